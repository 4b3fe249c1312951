// The int8 ("q8") linear layer gives the same bytes in Chromium as in Node: the package's browser
// entry (dist/index.js), served from the repository with a one-line page, runs A.quantize and
// A.linear on inputs drawn from a seed, in the relaxed-SIMD and SIMD128 builds; Node runs the same
// with its builds (relaxed where the engine has it: this suite runs with the flag), and the
// results are compared byte for byte, and with the layer's definition (reference/quantized.mjs).
// Each engine lowers relaxed SIMD's integer dot its own way (on x86: pmaddubsw or AVX-VNNI, on
// ARM sdot); the q8 path keeps its operands where every lowering gives the same sums.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../browsers.mjs';
import { init } from '../../dist/node.js';
import { relaxedSimdSupported } from '../../dist/builds.js';
import { firstDifference, quantizedLinear, quantizeWeight, randomTensor, rng } from '../js/reference/index.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
// the shapes: a tail of each route's tiles (11 rows: 6 + 5, 4 + 4 + 3, 2 x 5 + 1) and of the
// 8-channel panels, DistilBERT-sized layers, and one past a block of 96 rows
const CASES = [
  { m: 11, k: 37, n: 13, seed: 1 },
  { m: 33, k: 768, n: 3072, seed: 2 },
  { m: 97, k: 3072, n: 768, seed: 3 },
];

// Runs in the page and in Node alike: the inputs from the seed, A.linear with the weight quantized.
function compute(A, { m, k, n, seed }, make) {
  const next = make.rng(seed);
  const x = make.randomTensor([m, k], next, 2),
    w = make.randomTensor([n, k], next, 0.05),
    bias = make.randomTensor([n], next, 0.01);
  const wq = A.quantize(w);
  try {
    return { x, w, bias, y: A.linear(x, wq, bias).data };
  } finally {
    wq.dispose();
  }
}

let server, browser, page;
before(async () => {
  const serve = sirv(root, { dev: true });
  const html = `<!doctype html><script type="importmap">{"imports": {"@huggingface/tokenizers": "/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs"}}</script>
<script type="module">
import { init } from '/dist/index.js';
import { relaxedSimdSupported } from '/dist/builds.js';
import { rng, randomTensor } from '/tests/js/reference/random.mjs';
window.compute = async (cases, computeSource) => {
  const compute = new Function('return ' + computeSource)();
  const out = {};
  for (const simd of relaxedSimdSupported() ? ['relaxed', 'simd128'] : ['simd128']) {
    const A = await init({ simd });
    out[simd] = { info: A.buildInfo(), results: cases.map((c) => Array.from(new Uint8Array(compute(A, c, { rng, randomTensor }).y.buffer))) };
  }
  return out;
};
window.ready = true;
</script>`;
  server = createServer((req, res) => {
    if (req.url === '/q8.html') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(html);
    serve(req, res, () => res.writeHead(404).end());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  browser = await chromium.launch(chromiumLaunchOptions);
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/q8.html`);
  await page.waitForFunction(() => window.ready);
});
after(async () => {
  await browser?.close();
  server?.close();
});

test('q8 linear: Chromium and Node give the same bytes, equal to the definition, in each build', async () => {
  const inChromium = await page.evaluate(
    ([cases, source]) => window.compute(cases, source),
    [CASES, compute.toString()],
  );
  const builds = relaxedSimdSupported() ? ['relaxed', 'simd128'] : ['simd128'];
  assert.ok('relaxed' in inChromium, 'Chromium 156 runs the relaxed-SIMD build');
  for (const simd of builds) {
    const A = await init({ simd });
    const info = inChromium[simd].info;
    CASES.forEach((c, i) => {
      const { x, w, bias, y } = compute(A, c, { rng, randomTensor });
      const label = `${simd} ${c.m} x ${c.k} -> ${c.n} (Node: ${A.buildInfo().int8Product}, Chromium: ${info.int8Product}, relaxed dot(127, -1) = ${info.relaxedDotLowering})`;
      const chromiumY = new Float32Array(Uint8Array.from(inChromium[simd].results[i]).buffer);
      const at = firstDifference(chromiumY, y);
      assert.equal(at, -1, `${label}: element ${at}: Chromium ${chromiumY[at]}, Node ${y[at]}`);
      if (c.k <= 768) {
        const want = quantizedLinear(x, quantizeWeight(w), bias).data;
        assert.equal(firstDifference(y, want), -1, `${label}: the layer's definition`);
      }
    });
  }
  // and the two builds agree with each other (their epilogues are the same IEEE operations)
  if (inChromium.relaxed)
    assert.deepEqual(inChromium.relaxed.results, inChromium.simd128.results, 'Chromium: relaxed == SIMD128');
});
