// Keyboard access to the page's plots, in headless Chromium: every heat map is one tab stop and
// the arrow keys move inside it (the canvas of E4.2 with a cursor cell, the SVG grids of E4.5
// and the others with a roving focus), with an aria-live readout of the cell; E0.9's heading
// and snippet follow the heads control; the worker drops requests that a newer one replaced.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLoadedPage, initLikeThePage } from './browser.mjs';

let b, A;
before(async () => {
  A = await initLikeThePage();
  b = await openLoadedPage();
});
after(async () => {
  await b?.close();
});

const active = () =>
  b.page.evaluate(() => {
    const e = document.activeElement;
    const fig = e.closest('figure');
    return {
      tag: e.tagName.toLowerCase(),
      example: e.closest('[data-example]')?.dataset.example,
      figure: fig ? [...fig.parentElement.querySelectorAll(':scope > figure')].indexOf(fig) : -1,
      i: e.dataset.i,
      j: e.dataset.j,
      value: e.dataset.value,
    };
  });
const readout = (id) => b.page.locator(`[data-example="${id}"] p.hover`).innerText();

test('E4.2: the PE heat map takes focus from the keyboard; the arrow keys move a cursor and the readout', async () => {
  const card = b.page.locator('[data-example="E4.2"]');
  await card.locator('[name=maxLength]').focus();
  await b.page.keyboard.press('Tab');
  assert.deepEqual(await active().then(({ tag, example }) => [tag, example]), ['canvas', 'E4.2']);
  assert.equal(await card.locator('figure.bigheatmap').getAttribute('data-cursor'), '0,0');
  assert.ok(await card.locator('.cursor').isVisible(), 'the cursor cell shows while focused');
  assert.equal(await card.locator('p.hover').getAttribute('aria-live'), 'polite');
  await b.page.keyboard.press('ArrowRight');
  await b.page.keyboard.press('ArrowRight');
  await b.page.keyboard.press('ArrowDown');
  assert.equal(await card.locator('figure.bigheatmap').getAttribute('data-cursor'), '1,2');
  const pe = A.positionalEncoding(100, 400);
  const at = (i, j) => (Math.round(pe.data[i * 400 + j] * 1e4) / 1e4).toFixed(4);
  assert.equal(await readout('E4.2'), `pos 1, i 2: sin(1 / 10000^(2/400)) = ${at(1, 2)}`);
  await b.page.keyboard.press('Shift+ArrowDown'); // ten rows
  await b.page.keyboard.press('End'); // the last column
  assert.equal(await readout('E4.2'), `pos 11, i 399: cos(11 / 10000^(398/400)) = ${at(11, 399)}`);
  await b.page.keyboard.press('ArrowRight'); // stays inside the matrix
  await b.page.keyboard.press('PageDown');
  await b.page.keyboard.press('PageDown');
  assert.match(await readout('E4.2'), /^pos 31, i 399: /);
  await b.page.keyboard.press('Tab'); // leaves the heat map
  assert.notEqual((await active()).tag, 'canvas');
  assert.equal(await card.locator('.cursor').isVisible(), false);
});

test("E4.5: each head's 11 x 11 heat map is one tab stop; the arrow keys move the focused cell and the shared readout", async () => {
  const card = b.page.locator('[data-example="E4.5"]');
  assert.equal(await card.locator('figure.heatmap').count(), 8);
  await card.locator('[name=seed]').focus();
  await b.page.keyboard.press('Tab');
  let a = await active();
  assert.deepEqual([a.example, a.figure, a.i, a.j], ['E4.5', 0, '0', '0']);
  assert.match(await readout('E4.5'), /^write → write: q·k = .*softmax over the row → /);
  await b.page.keyboard.press('ArrowRight');
  await b.page.keyboard.press('ArrowDown');
  a = await active();
  assert.deepEqual([a.figure, a.i, a.j], [0, '1', '1']);
  const text = await readout('E4.5');
  assert.ok(text.startsWith('a → a: q·k = '), text);
  assert.ok(text.endsWith(`softmax over the row → ${Number(a.value).toFixed(4)}`), text);
  await b.page.keyboard.press('End');
  assert.equal((await active()).j, '10');
  await b.page.keyboard.press('Tab'); // the next head, not the next cell
  a = await active();
  assert.deepEqual([a.example, a.figure, a.i, a.j], ['E4.5', 1, '0', '0']);
  await b.page.keyboard.press('Shift+Tab'); // back to the cell last focused in head 1
  a = await active();
  assert.deepEqual([a.figure, a.i, a.j], [0, '1', '10']);
});

test('every SVG heat map on the page has exactly one cell in the tab order', async () => {
  const stops = await b.page.$$eval('figure.heatmap', (figs) =>
    figs.map((f) => f.querySelectorAll('g.cell[tabindex="0"]').length),
  );
  assert.ok(stops.length >= 10, `${stops.length} heat maps`);
  assert.deepEqual(
    stops,
    stops.map(() => 1),
  );
});

test('E0.9: the heading and the snippet follow the heads control', async () => {
  const card = b.page.locator('[data-example="E0.9"]');
  assert.equal(await card.locator('h3').innerText(), 'E0.9 — multi-head attention, h = 3');
  await b.page.fill('[data-document="000"] [name=heads]', '5');
  await b.page.waitForFunction(() => document.querySelector('[data-example="E0.9"] figure').dataset.rows === '5');
  assert.equal(await card.locator('h3').innerText(), 'E0.9 — multi-head attention, h = 5');
  const code = await card.locator('pre.code').innerText();
  assert.ok(code.startsWith('h = 5\n'), code);
  assert.ok(code.includes('embedded_sentence.T.repeat(5, 1, 1)'), code);
  assert.ok(!/\b3\b/.test(code), code);
  assert.ok((await card.locator('.result').innerText()).includes('torch.Size([5, 28])'));
  await b.page.fill('[data-document="000"] [name=heads]', '3');
  await b.page.waitForFunction(() => document.querySelector('[data-example="E0.9"] h3').textContent.endsWith('h = 3'));
});

test('the worker drops superseded requests: 30 quick d_model changes compute at most 2 matrices', async () => {
  // the page's worker; the others are the threaded build's pthread Workers nested in it
  const worker = b.page.workers().find((w) => !w.url().includes('attention_wasm_mt'));
  assert.ok(worker, 'the page runs a worker');
  const computed = () => worker.evaluate(() => self.computed.pe ?? 0);
  const before = await computed();
  await b.page.evaluate(() => {
    const input = document.querySelector('[data-example="E4.2"] [name=dModel]');
    for (let d = 100; d < 130; d++) {
      input.value = String(d);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }
  });
  await b.page.waitForFunction(
    () => document.querySelector('[data-example="E4.2"] figure.bigheatmap').dataset.cols === '129',
  );
  const ran = (await computed()) - before;
  assert.ok(ran >= 1 && ran <= 2, `${ran} matrices computed for 30 requests`);
  assert.match(
    await b.page.locator('[data-example="E4.2"] .result').innerText(),
    /^positional_encoding\.shape: \(100, 129\)/,
  );
  await b.page.fill('[data-example="E4.2"] [name=dModel]', '400');
  await b.page.waitForFunction(
    () => document.querySelector('[data-example="E4.2"] figure.bigheatmap').dataset.cols === '400',
  );
});

test('no request left the origin and the console has no errors', () => {
  assert.deepEqual(b.outside, []);
  assert.deepEqual(b.consoleErrors, []);
});
