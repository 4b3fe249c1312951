// Every example E0.1-E4.5 in headless Chromium (E4.6 and the model explorer: encoder.test.mjs): the numbers the page shows are compared with the
// documents' printed values (oracles.mjs) and with the library called directly (Node, same
// package); changing an input changes the result; a screenshot of each section goes to
// test-results/. No request leaves the origin and the console stays clean.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Tensor } from '../../dist/node.js';
import { openLoadedPage, artefacts, numbersIn, initLikeThePage } from './browser.mjs';
import { E0, E1, E3, E4 } from './oracles.mjs';
import { hoverCell, saved, savedJson } from './charts.mjs';

let b, A;
before(async () => {
  A = await initLikeThePage();
  b = await openLoadedPage();
});
after(async () => {
  await b?.close();
});

const result = (id) => b.page.locator(`[data-example="${id}"] .result`).innerText();
const lines = async (id) => (await result(id)).split('\n');
/** The numbers on the result line starting with `prefix`. */
const lineNumbers = async (id, prefix) => {
  const line = (await lines(id)).find((l) => l.startsWith(prefix));
  assert.ok(line, `${id}: no line starting with ${prefix}`);
  return numbersIn(line.slice(prefix.length));
};
const close = (actual, expected, tol, what) => {
  assert.equal(actual.length, expected.length, `${what}: ${actual.length} numbers, expected ${expected.length}`);
  actual.forEach((v, i) =>
    assert.ok(Math.abs(v - expected[i]) <= tol, `${what}[${i}] = ${v}, expected ${expected[i]}`),
  );
};
const until = (id, old) =>
  b.page.waitForFunction(
    ([id, old]) => document.querySelector(`[data-example="${id}"] .result`).innerText !== old,
    [id, old],
  );
const shot = (doc) =>
  b.page.locator(`[data-document="${doc}"]`).screenshot({ path: join(artefacts, `section-${doc}.png`) });

// The reference computations, with the library called directly in Node.
function document000Reference() {
  A.manualSeed(123);
  const x = A.embedding([0, 4, 5, 2, 1, 3], A.randn(6, 16));
  A.manualSeed(123);
  const Wq = A.rand(24, 16),
    Wk = A.rand(24, 16),
    Wv = A.rand(28, 16);
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
  return { heads: heads.flat(), cross: Array.from(r.output.data), Wq, Wk, Wv };
}

test("E0.1-E0.8 show the document's output", async () => {
  assert.equal(await result('E0.1'), E0['E0.1']);
  assert.equal(await result('E0.2'), E0['E0.2']);
  const e03 = numbersIn(await result('E0.3'));
  close(e03.slice(0, 8), E0['E0.3.first'], 0, 'E0.3 row 0');
  close(e03.slice(80, 96), E0['E0.3.last'], 0, 'E0.3 row 5');
  const e06 = await lines('E0.6');
  close(numbersIn(e06[0]), [E0['E0.6.omega_24']], 0, 'omega_24');
  close(numbersIn(e06[1]), E0['E0.6.omega_2'], 0, 'omega_2');
  close(numbersIn(await result('E0.7')), E0['E0.7'], 0, 'E0.7');
  close(numbersIn((await lines('E0.8')).slice(1).join('\n')), E0['E0.8'], 0, 'E0.8');
});

test("E0.9 multi-head and E0.10 cross-attention: the document's shapes, the completed contexts match the library", async () => {
  const e09 = await lines('E0.9');
  for (const s of E0['E0.9.shapes']) assert.ok(e09.includes(s), `E0.9 lacks ${s}`);
  assert.ok(e09.includes('multihead_context_vector_2.shape: torch.Size([3, 28])'));
  const ref = document000Reference();
  close(numbersIn(e09.slice(7).join('\n')), ref.heads, 6e-5, 'E0.9 context (3, 28)');
  const e010 = await lines('E0.10');
  for (const s of E0['E0.10.shapes']) assert.ok(e010.includes(s), `E0.10 lacks ${s}`);
  close(numbersIn(e010.slice(3).join('\n')), ref.cross, 6e-5, 'E0.10 context');
  assert.equal(await b.page.locator('[data-example="E0.10"] figure.heatmap').getAttribute('data-cols'), '8');
  await shot('000');
});

test('document 000 controls: new seed -> new embedding; d_v -> context length; heads -> per-head rows', async () => {
  const sel = '[data-document="000"]';
  const old = await result('E0.3');
  await b.page.fill(`${sel} [name=seed]`, '7');
  await until('E0.3', old);
  assert.notEqual(await result('E0.3'), old);
  const oldE8 = await result('E0.8');
  await b.page.fill(`${sel} [name=dv]`, '10');
  await until('E0.8', oldE8);
  assert.equal((await lines('E0.8'))[0], 'torch.Size([10])');
  await b.page.fill(`${sel} [name=heads]`, '2');
  await b.page.waitForFunction(() => document.querySelector('[data-example="E0.9"] figure').dataset.rows === '2');
  await b.page.fill(`${sel} [name=sentence]`, 'the cat sat on the mat');
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E0.1"] .result').innerText.startsWith("{'cat'"),
  );
  // back to the document's inputs
  await b.page.fill(`${sel} [name=sentence]`, 'Life is short, eat dessert first');
  await b.page.fill(`${sel} [name=seed]`, '123');
  await b.page.fill(`${sel} [name=dv]`, '28');
  await b.page.fill(`${sel} [name=heads]`, '3');
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E0.7"] .result').innerText.includes('0.2912'),
  );
});

test('E1.1 shapes; E1.2 NumPy output; the factor slider changes the third line', async () => {
  const e11 = await lines('E1.1');
  for (const [name, shape] of Object.entries(E1['E1.1.shapes']))
    assert.ok(e11.includes(`${name} ${shape}`), `E1.1 lacks ${name} ${shape}`);
  const e12 = await lines('E1.2');
  assert.equal(e12[0], E1['E1.2.diffused']);
  assert.equal(e12[1], E1['E1.2.onehot']);
  const direct = A.softmax(new Tensor(Float32Array.from([0.1, 0.4, -0.9, 0.02, 0.35, -0.62]), [6]), { dim: 0 });
  close(
    numbersIn(e12[0]),
    Array.from(direct.data, (v) => Math.round(v * 100) / 100),
    1e-9,
    'E1.2 vs library',
  );
  const old = await result('E1.2');
  await b.page.locator('[data-example="E1.2"] [name=factor]').fill('50');
  await until('E1.2', old);
  assert.ok((await lines('E1.2'))[2].startsWith('× 50: '));
});

test('E1.3 scaling keeps the softmax spread at d = 512', async () => {
  await b.page.locator('[data-example="E1.3"] [name=d]').fill('9');
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E1.3"] .result').innerText.startsWith('d = 512'),
  );
  const raw = Math.max(...(await lineNumbers('E1.3', 'unscaled: ')));
  const scaled = Math.max(...(await lineNumbers('E1.3', 'scaled:   ')));
  assert.ok(raw > 0.9 && scaled < raw, `unscaled max ${raw}, scaled max ${scaled}`);
});

test('E1.4 causal on -> the upper triangle of the weights is 0 and shown masked; padding masks columns', async () => {
  const card = b.page.locator('[data-example="E1.4"]');
  const fig = card.locator('figure.heatmap');
  await card.locator('[name=causal]').check();
  // the heat map's numbers as it exports them: the weights and the cells it draws masked
  let shown = await savedJson(b.page, fig);
  assert.equal(shown.masked.length, 15);
  const masked = new Set(shown.masked.map(String));
  shown.values.forEach((row, i) =>
    row.forEach((v, j) => {
      if (j > i) {
        assert.equal(v, 0);
        assert.ok(masked.has(`${i},${j}`), `(${i}, ${j}) masked`);
      } else assert.ok(!masked.has(`${i},${j}`), `(${i}, ${j}) not masked`);
    }),
  );
  const rows = numbersIn(await result('E1.4'));
  for (let i = 0; i < 6; i++) for (let j = i + 1; j < 6; j++) assert.equal(rows[i * 6 + j], 0);
  const causalOnly = await result('E1.4');
  await card.locator('[name=pad]').fill('2');
  await until('E1.4', causalOnly);
  shown = await savedJson(b.page, fig);
  assert.equal(shown.masked.length, 15 + 3); // + (4,4), (5,4), (5,5)
  // hover explains the computation, of a kept cell and of a masked one
  await hoverCell(b.page, fig, 3, 1);
  assert.match(await card.locator('p.hover').innerText(), /^eat → is: q·k = .*× 0\.2500 = .*softmax/);
  await hoverCell(b.page, fig, 1, 4);
  assert.match(await card.locator('p.hover').innerText(), /; masked → −∞; softmax over the row → 0\.0000$/);
  await card.locator('[name=causal]').uncheck();
  await card.locator('[name=pad]').fill('0');
  await shot('001');
});

test('E1.5 residual + LayerNorm + GELU feed-forward matches the library called directly', async () => {
  A.manualSeed(123);
  const x = A.randn(6, 16);
  const h = A.layerNorm(A.add(x, A.scaledDotProductAttention(x, x, x).output), [16]);
  const W1 = A.randn(64, 16),
    W2 = A.randn(16, 64);
  const y = A.layerNorm(A.add(h, A.linear(A.gelu(A.linear(h, W1)), W2)), [16]);
  close(
    await lineNumbers('E1.5', 'y[0] = '),
    Array.from(y.data.slice(0, 16), (v) => Math.round(v * 100) / 100),
    0.0100001,
    'y[0]',
  );
});

test('E2.1 shapes follow N, d_k, d_v and the heat map is N x N', async () => {
  const card = b.page.locator('[data-example="E2.1"]');
  const old = await result('E2.1');
  await card.locator('[name=N]').fill('7');
  await card.locator('[name=d_v]').fill('3');
  await until('E2.1', old);
  const text = await result('E2.1');
  assert.match(text, /S = Q Kᵀ \(7, 7\)/);
  assert.match(text, /Output = A V \(7, 3\)/);
  assert.equal(await card.locator('figure').getAttribute('data-rows'), '7');
  await shot('002');
});

test("E3.1-E3.5: the document's keys, values, queries, scores, weights and output 1; outputs 2 and 3 from the library", async () => {
  const e32 = await lines('E3.2');
  assert.equal(e32[0], `keys:    ${E3.keys}`);
  assert.equal(e32[1], `values:  ${E3.values}`);
  assert.equal(e32[2], `queries: ${E3.queries}`);
  const e33 = await lines('E3.3');
  assert.equal(e33[0], `scores for input 1: ${E3.scores1}`);
  assert.ok(e33.includes(`as the document rounds them: ${E3.softmax1}`));
  const e34 = await lines('E3.4');
  E3.weighted.forEach((w, i) => assert.ok(e34[i].endsWith(`= ${w}`), e34[i]));
  assert.equal(e34[3], `sum (document's weights) = ${E3.output1}`);
  const X = Tensor.fromArray([
    [1, 0, 1, 0],
    [0, 2, 0, 2],
    [1, 1, 1, 1],
  ]);
  const k = A.matmul(
    X,
    Tensor.fromArray([
      [0, 0, 1],
      [1, 1, 0],
      [0, 1, 0],
      [1, 1, 0],
    ]),
  );
  const q = A.matmul(
    X,
    Tensor.fromArray([
      [1, 0, 1],
      [1, 0, 0],
      [0, 0, 1],
      [0, 1, 1],
    ]),
  );
  const v = A.matmul(
    X,
    Tensor.fromArray([
      [0, 2, 0],
      [0, 3, 0],
      [1, 0, 3],
      [1, 1, 0],
    ]),
  );
  const out = A.scaledDotProductAttention(q, k, v, { scale: 1 }).output.toArray();
  close(await lineNumbers('E3.4', 'sum (exact weights)      = '), out[0], 5e-5, 'output 1 exact');
  close(await lineNumbers('E3.5', 'Output 2: '), out[1], 5e-5, 'output 2');
  close(await lineNumbers('E3.5', 'Output 3: '), out[2], 5e-5, 'output 3');
  // edit an input: the outputs change; a malformed matrix shows an error, not a crash
  const inputs = b.page.locator('[data-document="003"] [name=inputs]');
  const old = await result('E3.2');
  await inputs.fill('[[1, 0, 1, 0], [0, 2, 0, 2], [2, 2, 2, 2]]');
  await until('E3.2', old);
  assert.notEqual(await result('E3.2'), old);
  await inputs.fill('[[1, 0]');
  assert.notEqual(await b.page.locator('[data-document="003"] p.error').innerText(), '');
  await inputs.fill('[[1, 0, 1, 0],\n [0, 2, 0, 2],\n [1, 1, 1, 1]]');
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E3.2"] .result').innerText.includes('[4, 4, 0]'),
  );
  await shot('003');
});

test('E4.1 positional encoding printed as NumPy prints it', async () => {
  const text = await result('E4.1');
  assert.ok(text.includes(`Positional encoding:\n\n${E4.pe}\n`), text);
  const parts = text.split('\n\n');
  const input = numbersIn(parts[1]),
    output = numbersIn(parts[5]);
  output.forEach((v, i) => assert.ok(Math.abs(v - input[i] - E4.peValues[i]) < 1e-6, `output ${i}`));
});

test('E4.2 PE heat map: 100 x 400 with a colour bar; d_model changes its size', async () => {
  const fig = b.page.locator('[data-example="E4.2"] figure.heatmap');
  assert.equal(await fig.getAttribute('data-rows'), '100');
  assert.equal(await fig.getAttribute('data-cols'), '400');
  // the colour bar, in the SVG the heat map saves (the picture the canvas shows)
  const svg = (await saved(b.page, fig, 'svg')).bytes.toString('utf8');
  assert.equal(svg.match(/class="colourbar"/g)?.length, 1);
  const t0 = Date.now();
  await b.page.locator('[data-example="E4.2"] [name=dModel]').fill('64');
  await b.page.waitForFunction(
    () => document.querySelector('[data-example="E4.2"] figure.heatmap').dataset.cols === '64',
  );
  assert.ok(Date.now() - t0 < 2000);
  await b.page.locator('[data-example="E4.2"] [name=dModel]').fill('400');
  await b.page.waitForFunction(
    () => document.querySelector('[data-example="E4.2"] figure.heatmap').dataset.cols === '400',
  );
});

test('E4.3-E4.4 bank: y_bank is parameter-free attention over the toy embeddings; moving bank moves the result', async () => {
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
  close(
    await lineNumbers('E4.4', 'y_bank = '),
    Array.from(y.data, (v) => Math.round(v * 100) / 100),
    1e-9,
    'y_bank',
  );
  close(
    await lineNumbers('E4.3', 'bank after:  '),
    Array.from(y.data, (v) => Math.round(v * 100) / 100),
    1e-9,
    'bank after',
  );
  const old = await result('E4.3');
  const bank = b.page.locator('[data-example="E4.3"] g.pt.bank');
  await bank.focus();
  await b.page.keyboard.press('ArrowLeft');
  await until('E4.3', old);
  assert.deepEqual(await lineNumbers('E4.3', 'bank before: '), [4.25, 4.5]);
  await b.page.keyboard.press('ArrowRight');
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E4.3"] .result').innerText.startsWith('bank before: [4.5 4.5]'),
  );
});

test('E4.5 multi-head: (11, 512) through h heads; changing h changes the per-head views', async () => {
  const text = await result('E4.5');
  assert.match(text, /heads \(8, 11, 64\) -> concat \(11, 512\)/);
  assert.equal(await b.page.locator('[data-example="E4.5"] figure.heatmap').count(), 8);
  // the library's module agrees with the page's head-by-head computation
  const diff = (await lineNumbers('E4.5', 'A.MultiheadAttention with the same weights: max |ΔY| = '))[0];
  assert.ok(diff < 1e-4, `max |ΔY| = ${diff}`);
  await b.page.locator('[data-example="E4.5"] [name=heads]').selectOption('4');
  await b.page.waitForFunction(() => document.querySelectorAll('[data-example="E4.5"] figure.heatmap').length === 4);
  assert.match(await result('E4.5'), /d_k = 512 \/ 4 = 128/);
  await shot('004');
});

test('controls answer within 100 ms (main-thread sections)', async () => {
  const ms = await b.page.evaluate(() => {
    const input = document.querySelector('[data-document="000"] [name=seed]');
    const t0 = performance.now();
    input.value = '5';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const t = performance.now() - t0;
    input.value = '123';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    return t;
  });
  assert.ok(ms < 100, `${ms} ms`);
});

test('the speed panel runs the benchmark in the worker and reports GFLOP/s', async () => {
  await b.page.click('[data-document="bench"] [name=run]');
  await b.page.waitForFunction(() => document.querySelector('[data-document="bench"]').dataset.gflops, null, {
    timeout: 60000,
  });
  const text = await b.page.locator('[data-document="bench"] .result').innerText();
  assert.match(text, /H=8 S=512 D=64: [\d.]+ ms per call, [\d.]+ GFLOP\/s/);
  assert.ok(Number(await b.page.getAttribute('[data-document="bench"]', 'data-gflops')) > 0);
  // and which build it measured: Chromium runs relaxed SIMD, so that build (4 lanes); the page is
  // served cross-origin isolated, so threaded on a machine with 2+ cores (threads.test.mjs)
  const cores = await b.page.evaluate(() => navigator.hardwareConcurrency);
  const threads = cores >= 2 ? `threaded \\(${Math.min(cores, 64)} threads\\)` : 'single-threaded';
  assert.match(
    text,
    new RegExp(
      `build: WebAssembly relaxed SIMD, fused multiply-add \\(4 float lanes\\), ${threads}, Emscripten 3\\.1\\.69`,
    ),
  );
  await shot('bench');
});

test('readable on a phone: no horizontal overflow at 390 px', async () => {
  await b.page.setViewportSize({ width: 390, height: 844 });
  await b.page.waitForTimeout(200);
  const width = await b.page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 392, `page is ${width}px wide`);
  await b.page.screenshot({ path: join(artefacts, 'phone.png') });
  await b.page.setViewportSize({ width: 1100, height: 900 });
});

test('no request left the origin and the console has no errors', () => {
  assert.deepEqual(b.outside, []);
  assert.deepEqual(b.consoleErrors, []);
});
