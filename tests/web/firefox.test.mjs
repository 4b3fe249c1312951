// The page in headless Firefox (Debian's firefox-esr through puppeteer-core: tests/browsers.mjs),
// served cross-origin isolated as `npm start` serves it: the same core checks as the Chromium
// tests (core.mjs), not copies of them. Every example's numbers against the documents and the
// library in Node; E4.6 with the fixture DistilBERT folder through the files input, equal to the
// same files loaded in Node; the worker's build and thread count; no request outside the
// origin and a clean console. Firefox, like Chromium, runs relaxed SIMD, so the Node side runs
// the relaxed build too (initLikeThePage); the cross-engine bytes are identity.test.mjs's.
import { test, before, after } from 'node:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFixture } from '../../scripts/make-fixtures.mjs';
import { openLoadedPage, initLikeThePage } from './browser.mjs';
import { documentChecks, loadThroughInput, assertE46Loaded, assertWorkerBuild, assertLocalAndClean } from './core.mjs';

let b, A, dir, model;
before(async () => {
  A = await initLikeThePage();
  dir = await writeFixture('distilbert-f32');
  model = await A.loadPretrained(dir);
  b = await openLoadedPage({ engine: 'firefox' });
});
after(async () => {
  model?.dispose();
  await b?.close();
});

for (const [name, check] of documentChecks) test(`Firefox: ${name}`, () => check(b, A));

test("Firefox: E4.6, the fixture folder's files through the files input: progress reaches 100 %; the lines, token list and tensors equal the library's in Node", async () => {
  await loadThroughInput(
    b,
    readdirSync(dir).map((n) => join(dir, n)),
  );
  await assertE46Loaded(b, model);
});

test('Firefox: the worker runs the relaxed-SIMD threaded build on navigator.hardwareConcurrency threads', () =>
  assertWorkerBuild(b));

test('Firefox: no request left the origin and the console has no errors', () => assertLocalAndClean(b));
