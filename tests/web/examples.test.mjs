// Every example E0.1-E4.5 in headless Chromium (E4.6 and the model explorer: encoder.test.mjs):
// the numbers the page shows are compared with the documents' printed values (oracles.mjs) and
// with the library called directly (Node, same package) by core.mjs's documentChecks, which
// firefox.test.mjs runs in Firefox too; here besides, the Chromium-only interactions: changing
// an input changes the result, keyboard and pointer, a screenshot of each section to
// test-results/. No request leaves the origin and the console stays clean.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openLoadedPage, artefacts, numbersIn, initLikeThePage } from './browser.mjs';
import { documentChecks, assertLocalAndClean } from './core.mjs';
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
const until = (id, old) =>
  b.page.waitForFunction(
    ([id, old]) => document.querySelector(`[data-example="${id}"] .result`).innerText !== old,
    [id, old],
  );
const shot = (doc) =>
  b.page.locator(`[data-document="${doc}"]`).screenshot({ path: join(artefacts, `section-${doc}.png`) });

// The numbers, as the page shows them when loaded (shared with Firefox).
for (const [name, check] of documentChecks) test(name, () => check(b, A));

// Chromium only: what the controls do.
test('document 000 controls: new seed -> new embedding; d_v -> context length; heads -> per-head rows', async () => {
  await shot('000');
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
  // four words: E0.6's omega_24 reads a fifth, which it says; the rest follow the sentence
  await b.page.fill(`${sel} [name=sentence]`, 'a b c d');
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E0.5"] .result').innerText.startsWith('keys.shape: torch.Size([4,'),
  );
  assert.match(await result('E0.6'), /^\(omega_24 reads keys\[4\], the fifth word/);
  assert.equal(numbersIn(await result('E0.7')).length, 4);
  assert.equal(await b.page.locator('[data-example="E0.7"] figure').getAttribute('data-rows'), '4');
  // one word: no example from E0.3 on keeps the last sentence's results
  await b.page.fill(`${sel} [name=sentence]`, 'Life');
  await b.page.waitForFunction(
    () => document.querySelector('[data-example="E0.1"] .result').innerText === "{'Life': 0}",
  );
  for (const id of ['E0.3', 'E0.4', 'E0.5', 'E0.6', 'E0.7', 'E0.8', 'E0.9', 'E0.10'])
    assert.equal(await result(id), '(type a sentence of at least two words)', id);
  assert.equal(await b.page.locator('[data-example="E0.7"] figure').count(), 0);
  // a word with an apostrophe, as Python's repr prints it
  await b.page.fill(`${sel} [name=sentence]`, "don't stop");
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E0.1"] .result').innerText.startsWith(`{"don't": 0`),
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

test('E1.2: the factor slider changes the third line', async () => {
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

test('E3: editing the inputs changes the outputs; a malformed matrix shows an error, not a crash', async () => {
  const inputs = b.page.locator('[data-document="003"] [name=inputs]');
  const old = await result('E3.2');
  await inputs.fill('[[1, 0, 1, 0], [0, 2, 0, 2], [2, 2, 2, 2]]');
  await until('E3.2', old);
  assert.notEqual(await result('E3.2'), old);
  await inputs.fill('[[1, 0]');
  // the message names the matrix, and no result of the last matrices stays up beside it
  assert.match(
    await b.page.locator('[data-document="003"] p.error').innerText(),
    /^Inputs \(3×4\): not a list of numbers/,
  );
  for (const id of ['E3.1', 'E3.2', 'E3.3', 'E3.4', 'E3.5']) assert.equal(await result(id), '', id);
  await inputs.fill('[[1, 0, 1, 0],\n [0, 2, 0, 2],\n [1, 1, 1, 1]]');
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E3.2"] .result').innerText.includes('[4, 4, 0]'),
  );
  await shot('003');
});

test("E4.2: the colour bar in the SVG the heat map saves; d_model and max_length change the heat map's size", async () => {
  const fig = b.page.locator('[data-example="E4.2"] figure.heatmap');
  // the colour bar, in the SVG the heat map saves (the picture the canvas shows)
  const svg = (await saved(b.page, fig, 'svg')).bytes.toString('utf8');
  assert.equal(svg.match(/class="colourbar"/g)?.length, 1);
  await b.page.locator('[data-example="E4.2"] [name=dModel]').fill('64');
  await b.page.waitForFunction(
    () => document.querySelector('[data-example="E4.2"] figure.heatmap').dataset.cols === '64',
  );
  await b.page.locator('[data-example="E4.2"] [name=dModel]').fill('400');
  await b.page.waitForFunction(
    () => document.querySelector('[data-example="E4.2"] figure.heatmap').dataset.cols === '400',
  );
  // the smallest max_length: a one-row matrix, printed as one
  const maxLength = b.page.locator('[data-example="E4.2"] [name=maxLength]');
  const length = await maxLength.inputValue();
  await maxLength.fill('1');
  await b.page.waitForFunction(
    () => document.querySelector('[data-example="E4.2"] figure.heatmap').dataset.rows === '1',
  );
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E4.2"] .result').innerText.startsWith('positional_encoding.shape: (1, 400)'),
  );
  assert.match((await lines('E4.2'))[1], /^row 0, first 4 columns: \[/);
  await maxLength.fill(length);
  await b.page.waitForFunction(
    (n) => document.querySelector('[data-example="E4.2"] figure.heatmap').dataset.rows === n,
    length,
  );
});

test('E4.3: moving bank with the keyboard moves the result', async () => {
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

test('E4.5: changing h changes the per-head views', async () => {
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

test('no request left the origin and the console has no errors', () => assertLocalAndClean(b));
