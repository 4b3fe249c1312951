// The page's core checks, run in every browser engine: examples.test.mjs, encoder.test.mjs and
// threads.test.mjs call them in Chromium (beside their Chromium-only interactions), and
// firefox.test.mjs calls every one of them in Firefox. Each takes `b` (browser.mjs's openPage or
// openLoadedPage) and uses only the part of Playwright's Page that tests/browsers.mjs gives
// every engine.
//   documentChecks     every example's numbers: the documents' printed values (oracles.mjs)
//                      and the library called directly in Node on the same build
//   loadThroughInput,  E4.6: a model folder through the page's file inputs; what the page shows
//   assertE46Loaded    equals the library's output for the same files in Node
//   assertWorkerBuild  the worker's build and thread count, and the threaded .wasm fetched
//   assertLocalAndClean  no request left the origin; no console error
import assert from 'node:assert/strict';
import { Tensor } from '../../dist/node.js';
import { numbersIn } from './browser.mjs';
import { E0, E1, E3, E4 } from './oracles.mjs';
import { e46, printedE46 } from '../js/e46.mjs';
import { S1, S2 } from '../js/fixtures.mjs';
import { cosine } from '../js/reference/tolerance.mjs';

const result = (b, id) => b.page.locator(`[data-example="${id}"] .result`).innerText();
const lines = async (b, id) => (await result(b, id)).split('\n');
/** The numbers on the result line starting with `prefix`. */
async function lineNumbers(b, id, prefix) {
  const line = (await lines(b, id)).find((l) => l.startsWith(prefix));
  assert.ok(line, `${id}: no line starting with ${prefix}`);
  return numbersIn(line.slice(prefix.length));
}
/** Each of `actual` within `tol` of `expected`. */
export function close(actual, expected, tol, what) {
  assert.equal(actual.length, expected.length, `${what}: ${actual.length} numbers, expected ${expected.length}`);
  actual.forEach((v, i) =>
    assert.ok(Math.abs(v - expected[i]) <= tol, `${what}[${i}] = ${v}, expected ${expected[i]}`),
  );
}
const rounded = (data) => Array.from(data, (v) => Math.round(v * 100) / 100);

// ------------------------------------------------------------------------------------------------
// The documents' numbers. The reference computations call the library directly in Node.

/** Document 000's multi-head contexts (E0.9) and cross-attention context (E0.10). */
function document000Reference(A) {
  A.manualSeed(123);
  const x = A.embedding([0, 4, 5, 2, 1, 3], A.randn(6, 16));
  A.manualSeed(123);
  for (const rows of [24, 24, 28]) A.rand(rows, 16); // Wq, Wk, Wv: drawn first, as the document does
  const mWq = A.rand(3, 24, 16),
    mWk = A.rand(3, 24, 16),
    mWv = A.rand(3, 28, 16);
  const x2 = new Tensor(x.data.slice(16, 32), [16]);
  const heads = [0, 1, 2].map((h) => {
    const w = (W, rows) => new Tensor(W.data.slice(h * rows * 16, (h + 1) * rows * 16), [rows, 16]);
    const q = A.matmul(w(mWq, 24), x2),
      keys = A.linear(x, w(mWk, 24)),
      values = A.linear(x, w(mWv, 28));
    const omega = A.matmul(keys, q);
    const a = A.softmax(
      new Tensor(
        omega.data.map((v) => v / Math.sqrt(24)),
        [6],
      ),
      { dim: 0 },
    );
    return Array.from(A.matmul(a, values).data);
  });
  A.manualSeed(123);
  const cWq = A.rand(24, 16),
    cWk = A.rand(24, 16),
    cWv = A.rand(28, 16);
  const x2seq = A.rand(8, 16);
  const r = A.scaledDotProductAttention(
    new Tensor(A.matmul(cWq, x2).data, [1, 24]),
    A.linear(x2seq, cWk),
    A.linear(x2seq, cWv),
  );
  return { heads: heads.flat(), cross: Array.from(r.output.data) };
}

/** Document 003's inputs and the library's keys, queries and values for them. */
function document003Reference(A) {
  const X = Tensor.fromArray([
    [1, 0, 1, 0],
    [0, 2, 0, 2],
    [1, 1, 1, 1],
  ]);
  const project = (W) => A.matmul(X, Tensor.fromArray(W));
  const k = project([
    [0, 0, 1],
    [1, 1, 0],
    [0, 1, 0],
    [1, 1, 0],
  ]);
  const q = project([
    [1, 0, 1],
    [1, 0, 0],
    [0, 0, 1],
    [0, 1, 1],
  ]);
  const v = project([
    [0, 2, 0],
    [0, 3, 0],
    [1, 0, 3],
    [1, 1, 0],
  ]);
  return A.scaledDotProductAttention(q, k, v, { scale: 1 }).output.toArray();
}

/** [name, check(b, A)]: every example's numbers on the page as loaded (nothing changed). */
export const documentChecks = [
  [
    "E0.1-E0.8 show the document's output",
    async (b) => {
      assert.equal(await result(b, 'E0.1'), E0['E0.1']);
      assert.equal(await result(b, 'E0.2'), E0['E0.2']);
      const e03 = numbersIn(await result(b, 'E0.3'));
      close(e03.slice(0, 8), E0['E0.3.first'], 0, 'E0.3 row 0');
      close(e03.slice(80, 96), E0['E0.3.last'], 0, 'E0.3 row 5');
      const e06 = await lines(b, 'E0.6');
      close(numbersIn(e06[0]), [E0['E0.6.omega_24']], 0, 'omega_24');
      close(numbersIn(e06[1]), E0['E0.6.omega_2'], 0, 'omega_2');
      close(numbersIn(await result(b, 'E0.7')), E0['E0.7'], 0, 'E0.7');
      close(numbersIn((await lines(b, 'E0.8')).slice(1).join('\n')), E0['E0.8'], 0, 'E0.8');
    },
  ],
  [
    "E0.9 multi-head and E0.10 cross-attention: the document's shapes, the completed contexts match the library",
    async (b, A) => {
      const e09 = await lines(b, 'E0.9');
      for (const s of E0['E0.9.shapes']) assert.ok(e09.includes(s), `E0.9 lacks ${s}`);
      assert.ok(e09.includes('multihead_context_vector_2.shape: torch.Size([3, 28])'));
      const ref = document000Reference(A);
      close(numbersIn(e09.slice(7).join('\n')), ref.heads, 6e-5, 'E0.9 context (3, 28)');
      const e010 = await lines(b, 'E0.10');
      for (const s of E0['E0.10.shapes']) assert.ok(e010.includes(s), `E0.10 lacks ${s}`);
      close(numbersIn(e010.slice(3).join('\n')), ref.cross, 6e-5, 'E0.10 context');
      assert.equal(await b.page.locator('[data-example="E0.10"] figure.heatmap').getAttribute('data-cols'), '8');
    },
  ],
  [
    "E1.1 shapes; E1.2 the document's NumPy output, equal to the library's softmax",
    async (b, A) => {
      const e11 = await lines(b, 'E1.1');
      for (const [name, shape] of Object.entries(E1['E1.1.shapes']))
        assert.ok(e11.includes(`${name} ${shape}`), `E1.1 lacks ${name} ${shape}`);
      const e12 = await lines(b, 'E1.2');
      assert.equal(e12[0], E1['E1.2.diffused']);
      assert.equal(e12[1], E1['E1.2.onehot']);
      const direct = A.softmax(new Tensor(Float32Array.from([0.1, 0.4, -0.9, 0.02, 0.35, -0.62]), [6]), { dim: 0 });
      close(numbersIn(e12[0]), rounded(direct.data), 1e-9, 'E1.2 vs library');
    },
  ],
  [
    'E1.5 residual + LayerNorm + GELU feed-forward matches the library called directly',
    async (b, A) => {
      A.manualSeed(123);
      const x = A.randn(6, 16);
      const h = A.layerNorm(A.add(x, A.scaledDotProductAttention(x, x, x).output), [16]);
      const W1 = A.randn(64, 16),
        W2 = A.randn(16, 64);
      const y = A.layerNorm(A.add(h, A.linear(A.gelu(A.linear(h, W1)), W2)), [16]);
      close(await lineNumbers(b, 'E1.5', 'y[0] = '), rounded(y.data.slice(0, 16)), 0.0100001, 'y[0]');
    },
  ],
  [
    "E3.1-E3.5: the document's keys, values, queries, scores, weights and output 1; outputs 2 and 3 from the library",
    async (b, A) => {
      const e32 = await lines(b, 'E3.2');
      assert.equal(e32[0], `keys:    ${E3.keys}`);
      assert.equal(e32[1], `values:  ${E3.values}`);
      assert.equal(e32[2], `queries: ${E3.queries}`);
      const e33 = await lines(b, 'E3.3');
      assert.equal(e33[0], `scores for input 1: ${E3.scores1}`);
      assert.ok(e33.includes(`as the document rounds them: ${E3.softmax1}`));
      const e34 = await lines(b, 'E3.4');
      E3.weighted.forEach((w, i) => assert.ok(e34[i].endsWith(`= ${w}`), e34[i]));
      assert.equal(e34[3], `sum (document's weights) = ${E3.output1}`);
      const out = document003Reference(A);
      close(await lineNumbers(b, 'E3.4', 'sum (exact weights)      = '), out[0], 5e-5, 'output 1 exact');
      close(await lineNumbers(b, 'E3.5', 'Output 2: '), out[1], 5e-5, 'output 2');
      close(await lineNumbers(b, 'E3.5', 'Output 3: '), out[2], 5e-5, 'output 3');
    },
  ],
  [
    'E4.1 positional encoding printed as NumPy prints it',
    async (b) => {
      const text = await result(b, 'E4.1');
      assert.ok(text.includes(`Positional encoding:\n\n${E4.pe}\n`), text);
      const parts = text.split('\n\n');
      const input = numbersIn(parts[1]),
        output = numbersIn(parts[5]);
      output.forEach((v, i) => assert.ok(Math.abs(v - input[i] - E4.peValues[i]) < 1e-6, `output ${i}`));
    },
  ],
  [
    'E4.2 PE heat map (from the worker): 100 x 400',
    async (b) => {
      const fig = b.page.locator('[data-example="E4.2"] figure.heatmap');
      assert.equal(await fig.getAttribute('data-rows'), '100');
      assert.equal(await fig.getAttribute('data-cols'), '400');
    },
  ],
  [
    'E4.3-E4.4 bank: y_bank is parameter-free attention over the toy embeddings',
    async (b, A) => {
      const pts = [
        [0.5, 3],
        [1.5, 1.2],
        [2.5, 0.5],
        [6, 8],
        [7.5, 7.5],
        [8, 5.5],
        [4.5, 4.5],
      ];
      const X = Tensor.fromArray(pts);
      const y = A.scaledDotProductAttention(Tensor.fromArray([[4.5, 4.5]]), X, X).output;
      close(await lineNumbers(b, 'E4.4', 'y_bank = '), rounded(y.data), 1e-9, 'y_bank');
      close(await lineNumbers(b, 'E4.3', 'bank after:  '), rounded(y.data), 1e-9, 'bank after');
    },
  ],
  [
    'E4.5 multi-head (from the worker): (11, 512) through 8 heads, equal to A.MultiheadAttention',
    async (b) => {
      const text = await result(b, 'E4.5');
      assert.match(text, /heads \(8, 11, 64\) -> concat \(11, 512\)/);
      assert.equal(await b.page.locator('[data-example="E4.5"] figure.heatmap').count(), 8);
      // the library's module agrees with the page's head-by-head computation
      const diff = (await lineNumbers(b, 'E4.5', 'A.MultiheadAttention with the same weights: max |ΔY| = '))[0];
      assert.ok(diff < 1e-4, `max |ΔY| = ${diff}`);
    },
  ],
];

// ------------------------------------------------------------------------------------------------
// E4.6: a model folder through the page's file inputs.

/** The forward the page's worker runs for E4.6 and its explorer (web/src/encoder-jobs.js). */
export const E46_FORWARD = { outputAttentions: true, outputHiddenStates: true };

const card = (b) => b.page.locator('[data-example="E4.6"]');
export const e46Text = (b, selector) => card(b).locator(selector).innerText();
const out = (b, name) => e46Text(b, `[data-out=${name}]`);

/** A printed Python list of strings back to an array. */
export const pyStrings = (s) => [...s.matchAll(/'((?:[^'\\]|\\.)*)'|"([^"]*)"/g)].map((m) => m[1] ?? m[2]);
/** The lines of the result between `label` and the next label (or the end). */
export function block(result, label) {
  const lines = result.split('\n');
  const start = lines.indexOf(label);
  assert.ok(start >= 0, `no '${label}' in\n${result}`);
  const end = lines.findIndex((l, i) => i > start && /^[a-z_]+ \(s\d\):$/.test(l));
  return lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join('\n')
    .trim();
}

/** What the page shows of E4.6 with a model loaded, in the form printedE46 gives. */
export async function shownE46(b) {
  const result = await e46Text(b, '.result');
  return {
    tokens: pyStrings(block(result, 'tokens (s1):')),
    lines: (await out(b, 'lines')).split('\n').slice(-3),
    learnedEmbeddings: await out(b, 'learned'),
    lastHiddenState: await out(b, 'hidden'),
  };
}

/** Waits until the load started by `start` has shown its lines or failed. */
export async function loaded(b, start) {
  await b.page.evaluate(() => {
    document.querySelector('.loader').dataset.state = 'idle';
  });
  await start();
  await b.page.waitForFunction(
    () => ['loaded', 'failed'].includes(document.querySelector('.loader').dataset.state),
    null,
    { timeout: 240000 },
  );
}

/** Loads files (paths; a folder for the folder picker, input 'folder') through E4.6's file inputs. */
export const loadThroughInput = (b, paths, input = 'files') =>
  loaded(b, () => card(b).locator(`input[name=${input}]`).setInputFiles(paths));

export const rowOf = (t, i) => Array.from(t.data.subarray(i * t.shape.at(-1), (i + 1) * t.shape.at(-1)));

/**
 * After a load of the fixture folder: progress at 100 %, the status line, and the lines, token
 * list, tensors and cosines equal to `model`'s (the same files loaded in Node).
 */
export async function assertE46Loaded(b, model) {
  assert.equal(await e46Text(b, '.loader .error'), '');
  assert.equal(await card(b).locator('progress').getAttribute('data-percent'), '100');
  assert.equal(
    await card(b)
      .locator('progress')
      .evaluate((p) => p.value),
    1,
  );
  assert.match(await e46Text(b, '.loader .progresstext'), /\(100 %\)$/);
  assert.match(
    await e46Text(b, '.loader .status'),
    /^Loaded distilbert: 2 layers, 3 heads, dimension 18, vocabulary 30522; .* From the drop to the lines below: [\d.]+ s\.$/,
  );
  assert.deepEqual(await shownE46(b), printedE46(e46(model, E46_FORWARD)));
  assert.equal(
    (await out(b, 'lines')).split('\n')[0],
    '------------------- Embedding vectors for "bank" -------------------',
  );
  // the cosines between the three vectors (float64 here, printed to 4 decimals)
  const le = rowOf(model.wordEmbeddings(model.tokenizer.encode('bank').inputIds), 1);
  const te = [S1, S2].map((s) => rowOf(model.forward(model.tokenizer.encode(s), E46_FORWARD).lastHiddenState, 11));
  const cos = numbersIn(
    (await out(b, 'cosines'))
      .split('\n')
      .slice(1)
      .map((l) => l.split(':').at(-1))
      .join('\n'),
  );
  assert.deepEqual(
    cos.map((c) => c.toFixed(4)),
    [cosine(le, te[0]), cosine(le, te[1]), cosine(te[0], te[1])].map((c) => c.toFixed(4)),
  );
  assert.match(await e46Text(b, 'p.what'), /Computed in this page's Web Worker from your files/);
}

// ------------------------------------------------------------------------------------------------
// The worker's build.

/** Chromium and Firefox run relaxed SIMD, so init() picks that build. */
export const BUILD = 'WebAssembly relaxed SIMD, fused multiply-add';

/** The speed panel's build line and thread count, once the worker has reported them. */
export async function workerPanel(b) {
  await b.page.waitForSelector('[data-document="bench"][data-threads]', { timeout: 30000 });
  return {
    threads: Number(await b.page.getAttribute('[data-document="bench"]', 'data-threads')),
    text: await b.page.locator('[data-document="bench"] .build').innerText(),
  };
}

/**
 * Served cross-origin isolated, the worker runs the relaxed threaded build on
 * navigator.hardwareConcurrency threads (at most 64; on one core the single-thread build) and
 * the threaded .wasm was fetched.
 */
export async function assertWorkerBuild(b) {
  const cores = await b.page.evaluate(() => navigator.hardwareConcurrency);
  const { threads, text } = await workerPanel(b);
  if (cores >= 2) {
    const n = Math.min(cores, 64);
    assert.equal(threads, n);
    assert.match(
      text,
      new RegExp(
        `^Worker build: ${BUILD} \\(4 float lanes\\), threaded \\(${n} threads\\), Emscripten 3\\.1\\.69; this page is cross-origin isolated`,
      ),
    );
    assert.ok(
      b.responses.some((r) => /\/attention_wasm_relaxed_mt-[^/]*\.wasm$/.test(r.url)),
      "the threaded build's .wasm was loaded",
    );
  } else {
    assert.equal(threads, 1);
    assert.match(text, /single-threaded, .*reports one core/);
  }
  return { cores, threads };
}

/** No request left the origin and the console has no errors. */
export function assertLocalAndClean(b) {
  assert.deepEqual(b.outside, []);
  assert.deepEqual(b.consoleErrors, []);
}
