// The threaded build in the page. Served with COOP/COEP (vite.config.js's headers, as `npm start`
// serves it) the page and its worker are cross-origin isolated and the worker runs the threaded
// build on navigator.hardwareConcurrency threads (on a 1-core machine: the single-thread build).
// Served by a plain static server without those headers the page falls back to the
// single-thread build and still works. Both show the same results; the benchmark's output (big
// enough to be split over the threads) is byte-identical to the single-thread build in Node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openLoadedPage, artefacts, initLikeThePage } from './browser.mjs';
import { BUILD, assertLocalAndClean, assertWorkerBuild, workerPanel as panel } from './core.mjs';

let iso, plain, cores, expectedChecksum;
before(async () => {
  iso = await openLoadedPage();
  plain = await openLoadedPage({ isolated: false });
  cores = await iso.page.evaluate(() => navigator.hardwareConcurrency);
  // The speed panel's workload, on the single-thread build (of the same SIMD flavour) in Node.
  const A = await initLikeThePage();
  A.manualSeed(0);
  const q = A.randn(8, 512, 64),
    k = A.randn(8, 512, 64),
    v = A.randn(8, 512, 64);
  expectedChecksum = fnv1a(A.scaledDotProductAttention(q, k, v).output.data);
});
after(async () => {
  await iso?.close();
  await plain?.close();
});

/** FNV-1a (32 bits, 8 hex digits) of a typed array's bytes; written again here, not imported from the page. */
function fnv1a(array) {
  let h = 0x811c9dc5;
  for (const byte of new Uint8Array(array.buffer, array.byteOffset, array.byteLength))
    h = Math.imul(h ^ byte, 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

const isPthreadWorker = (url) => /\/attention_wasm_mt-[^/]*\.js$/.test(url); // the threaded glue runs them
/** The page's own worker (web/src/worker.js); the pthread Workers block in Atomics.wait, never evaluate in them. */
const pageWorker = (b) => b.page.workers().find((w) => !isPthreadWorker(w.url()));
const isolation = (b) =>
  Promise.all([
    b.page.evaluate(() => [self.crossOriginIsolated, typeof SharedArrayBuffer]),
    pageWorker(b).evaluate(() => [self.crossOriginIsolated, typeof SharedArrayBuffer]),
  ]);
async function runBenchmark(b) {
  await b.page.click('[data-document="bench"] [name=run]');
  await b.page.waitForFunction(() => document.querySelector('[data-document="bench"]').dataset.gflops, null, {
    timeout: 60000,
  });
  return b.page.locator('[data-document="bench"] .result').innerText();
}
/** Every example's printed result, by example id. */
const results = (b) =>
  b.page.$$eval('[data-example] .result', (els) =>
    els.map((e) => [e.closest('[data-example]').dataset.example, e.innerText]),
  );

test("served by vite preview: every response, the workers' scripts included, has COOP same-origin and COEP require-corp", () => {
  const own = iso.responses.filter((r) => r.url.startsWith(iso.origin));
  assert.ok(
    own.some((r) => r.url === `${iso.origin}/`),
    'the document',
  );
  assert.ok(
    own.some((r) => /\/assets\/worker-[^/]*\.js$/.test(r.url)),
    "the page's worker",
  );
  for (const r of own) {
    assert.equal(r.headers['cross-origin-opener-policy'], 'same-origin', r.url);
    assert.equal(r.headers['cross-origin-embedder-policy'], 'require-corp', r.url);
  }
});

test('the page and its worker are cross-origin isolated, with SharedArrayBuffer', async () => {
  assert.deepEqual(await isolation(iso), [
    [true, 'function'],
    [true, 'function'],
  ]);
});

test('the worker runs the threaded build on navigator.hardwareConcurrency threads (1 core: the single-thread build)', async () => {
  const { threads } = await assertWorkerBuild(iso);
  // one pthread Worker per thread besides the page worker's own, nested in it, from this origin
  const pthreadWorkers = iso.page.workers().filter((w) => isPthreadWorker(w.url()));
  assert.equal(pthreadWorkers.length, threads > 1 ? threads - 1 : 0);
  for (const w of pthreadWorkers) assert.ok(w.url().startsWith(`${iso.origin}/assets/`), w.url());
});

test("the benchmark runs on that build; its output is byte-identical to the single-thread build's (Node)", async () => {
  const text = await runBenchmark(iso);
  assert.match(text, /H=8 S=512 D=64: [\d.]+ ms per call, [\d.]+ GFLOP\/s/);
  assert.match(text, cores >= 2 ? new RegExp(`threaded \\(${Math.min(cores, 64)} threads\\)`) : /single-threaded/);
  assert.equal(await iso.page.getAttribute('[data-document="bench"]', 'data-checksum'), expectedChecksum);
  assert.ok(text.includes(`output checksum: ${expectedChecksum}`), text);
  await iso.page.locator('[data-document="bench"]').screenshot({ path: join(artefacts, 'bench-isolated.png') });
});

test('isolated page: no request left the origin and the console has no errors', () => assertLocalAndClean(iso));

test('served without COOP/COEP: not isolated, no SharedArrayBuffer, the single-thread build', async () => {
  const own = plain.responses.filter((r) => r.url.startsWith(plain.origin));
  assert.ok(own.length > 0);
  for (const r of own) assert.equal(r.headers['cross-origin-embedder-policy'], undefined, r.url);
  assert.deepEqual(await isolation(plain), [
    [false, 'undefined'],
    [false, 'undefined'],
  ]);
  const { threads, text } = await panel(plain);
  assert.equal(threads, 1);
  assert.match(
    text,
    new RegExp(
      `^Worker build: ${BUILD} \\(4 float lanes\\), single-threaded, Emscripten 3\\.1\\.69; this page is not cross-origin isolated`,
    ),
  );
  assert.deepEqual(
    plain.page.workers().filter((w) => isPthreadWorker(w.url())),
    [],
  );
  assert.deepEqual(
    own.filter((r) => /_mt[-.]/.test(r.url)).map((r) => r.url),
    [],
    'the threaded build is never fetched',
  );
});

test('without COOP/COEP the page still works: the same results as the isolated page, the same benchmark output', async () => {
  const shown = await results(plain);
  const ids = shown.map(([id]) => id);
  for (const id of ['E0.1', 'E1.1', 'E3.1', 'E4.2', 'E4.5']) assert.ok(ids.includes(id), `${id} in ${ids}`); // E4.2, E4.5: from the worker
  assert.deepEqual(shown, await results(iso));
  const text = await runBenchmark(plain);
  assert.match(text, new RegExp(`build: ${BUILD} \\(4 float lanes\\), single-threaded, Emscripten 3\\.1\\.69`));
  assert.equal(await plain.page.getAttribute('[data-document="bench"]', 'data-checksum'), expectedChecksum);
});

test('page without isolation: no request left the origin and the console has no errors', () =>
  assertLocalAndClean(plain));
