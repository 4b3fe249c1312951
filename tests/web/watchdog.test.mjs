// The page's worker watchdog in headless Chromium (issue 24): a job past its time bound is ended
// (the worker terminated and restarted), the card says what happened, the page keeps working,
// and E4.6 then works with a correct folder. The test hook of web/src/worker-client.js: the
// page's URL sets the base bound (?watchdog=2000 ms: a model load gets twice that plus its size's
// share) and makes the first load never return (?stall=load).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFixture } from '../../scripts/make-fixtures.mjs';
import { e46, printedE46 } from '../js/e46.mjs';
import { openPage, initLikeThePage } from './browser.mjs';

let b, A, dir, model;
before(async () => {
  A = await initLikeThePage();
  dir = await writeFixture('distilbert-f32');
  model = await A.loadPretrained(dir);
  b = await openPage();
  await b.page.goto(`${b.origin}/?watchdog=2000&stall=load`);
  await b.page.waitForSelector('body[data-ready]', { timeout: 30000 });
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E4.6"] .result')?.innerText.startsWith('tokens'),
  );
});
after(async () => {
  model?.dispose();
  await b?.close();
});

const card = () => b.page.locator('[data-example="E4.6"]');
const text = (selector) => card().locator(selector).innerText();
const files = () => readdirSync(dir).map((n) => join(dir, n));

/** Loads the fixture through the page's files input; waits until it has loaded or failed. */
async function load() {
  await b.page.evaluate(() => (document.querySelector('.loader').dataset.state = 'idle'));
  await card().locator('input[name=files]').setInputFiles(files());
  await b.page.waitForFunction(
    () => ['loaded', 'failed'].includes(document.querySelector('.loader').dataset.state),
    null,
    { timeout: 120000 },
  );
}

test('a load past its bound: the worker is terminated and restarted, the card says so', async () => {
  const bound = await b.page.evaluate(() => window.awWorker.timeBound('load', { files: [] }));
  assert.equal(bound, 4000);
  const t0 = Date.now();
  await load();
  const waited = Date.now() - t0;
  const message = await text('.loader .error');
  const m = message.match(
    /^Could not load the model: the page's worker was stopped after (\d+\.\d) s on 'load' \(past its time bound\) and restarted$/,
  );
  assert.ok(m, message);
  // 4 s, and 1 s per 20 MB of the folder's files
  assert.ok(Number(m[1]) >= 4 && Number(m[1]) < 5, message);
  assert.equal(await text('.loader .status'), 'No model is loaded.');
  assert.equal(await card().locator('.outputs').isHidden(), true);
  assert.ok(waited >= 4000, `the load was ended after ${waited} ms`);
  assert.equal(await b.page.evaluate(() => window.awWorker.watchdog.restarts), 1);
});

test('the page keeps working: the new worker runs jobs, E4.6 tokenizes on input', async () => {
  const info = await b.page.evaluate(() => window.awWorker.run('build'));
  assert.equal(typeof info.threads, 'number', `build info from the new worker: ${JSON.stringify(info)}`);
  await card().locator('[name=s2]').fill('The bank of the river.');
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E4.6"] .result').innerText.includes("'river'"),
  );
});

test('E4.6 then works with a correct folder: the lines equal the library in Node', async () => {
  await card().locator('[name=s2]').fill('Write a poem about a man withdrawing money from a bank.');
  await load();
  assert.equal(await text('.loader .error'), '');
  assert.match(await text('.loader .status'), /^Loaded distilbert: 2 layers, 3 heads/);
  const lines = (await card().locator('[data-out=lines]').innerText()).split('\n').slice(-3);
  assert.deepEqual(lines, printedE46(e46(model)).lines);
  await b.page.waitForFunction(() => document.querySelector('#explorer figure.heatmapgrid'));
  assert.equal(await b.page.evaluate(() => window.awWorker.watchdog.restarts), 1);
});

test('no request left the origin; the console has no errors', () => {
  assert.deepEqual(b.outside, []);
  assert.deepEqual(b.consoleErrors, []);
});
