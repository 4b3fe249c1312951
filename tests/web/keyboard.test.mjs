// Keyboard access to the page's plots, in headless Chromium: every heat map is one tab stop (its
// canvas; its export menu is one more) and the arrow keys move a cursor cell inside it (E4.2's
// positional encoding, each of E4.5's heads, every other one), with an aria-live readout of the
// cell; E0.9's heading and snippet follow the heads control; the worker drops requests that a
// newer one replaced.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLoadedPage, initLikeThePage } from './browser.mjs';
import { savedJson } from './charts.mjs';

let b, A;
before(async () => {
  A = await initLikeThePage();
  b = await openLoadedPage();
});
after(async () => {
  await b?.close();
});

/** The focused element: its tag, example, figure (its place among its siblings) and the figure's cursor. */
const active = () =>
  b.page.evaluate(() => {
    const e = document.activeElement;
    const fig = e.closest('figure');
    return {
      tag: e.tagName.toLowerCase(),
      example: e.closest('[data-example]')?.dataset.example,
      figure: fig ? [...fig.parentElement.querySelectorAll(':scope > figure')].indexOf(fig) : -1,
      cursor: fig?.dataset.cursor,
    };
  });
const readout = (id) => b.page.locator(`[data-example="${id}"] p.hover`).innerText();

test('E4.2: the PE heat map takes focus from the keyboard; the arrow keys move a cursor and the readout', async () => {
  const card = b.page.locator('[data-example="E4.2"]');
  await card.locator('[name=maxLength]').focus();
  await b.page.keyboard.press('Tab');
  assert.deepEqual(await active().then(({ tag, example }) => [tag, example]), ['canvas', 'E4.2']);
  const fig = card.locator('figure.heatmap');
  assert.equal(await fig.getAttribute('data-cursor'), '0,0');
  assert.equal(await card.locator('p.hover').getAttribute('aria-live'), 'polite');
  await b.page.keyboard.press('ArrowRight');
  await b.page.keyboard.press('ArrowRight');
  await b.page.keyboard.press('ArrowDown');
  assert.equal(await fig.getAttribute('data-cursor'), '1,2');
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
  // the focus window (the matrix's cells are 1.6 px) follows the cursor: rows 8-31, columns 376-399
  assert.equal(await fig.getAttribute('data-window'), '8,376');
  await b.page.keyboard.press('Tab'); // leaves the heat map, for its export menu
  assert.deepEqual(await active().then(({ tag, example }) => [tag, example]), ['summary', 'E4.2']);
});

test("E4.5: each head's 11 x 11 heat map is one tab stop; the arrow keys move the cursor and the shared readout", async () => {
  const card = b.page.locator('[data-example="E4.5"]');
  assert.equal(await card.locator('figure.heatmap').count(), 8);
  await card.locator('[name=seed]').focus();
  await b.page.keyboard.press('Tab');
  let a = await active();
  assert.deepEqual([a.tag, a.example, a.figure, a.cursor], ['canvas', 'E4.5', 0, '0,0']);
  assert.match(await readout('E4.5'), /^write → write: q·k = .*softmax over the row → /);
  await b.page.keyboard.press('ArrowRight');
  await b.page.keyboard.press('ArrowDown');
  a = await active();
  assert.deepEqual([a.figure, a.cursor], [0, '1,1']);
  const text = await readout('E4.5');
  assert.ok(text.startsWith('a → a: q·k = '), text);
  // the value read out is head 1's weight (1, 1), as its JSON export has it
  const json = await savedJson(b.page, card.locator('figure.heatmap').first());
  assert.ok(text.endsWith(`softmax over the row → ${json.values[1][1].toFixed(4)}`), text);
  await card.locator('figure.heatmap canvas').first().focus();
  await b.page.keyboard.press('End');
  assert.equal((await active()).cursor, '1,10');
  await b.page.keyboard.press('Tab'); // the head's export menu, then the next head, not the next cell
  assert.deepEqual(await active().then(({ tag, figure }) => [tag, figure]), ['summary', 0]);
  await b.page.keyboard.press('Tab');
  a = await active();
  assert.deepEqual([a.tag, a.example, a.figure, a.cursor], ['canvas', 'E4.5', 1, '0,0']);
  await b.page.keyboard.press('Shift+Tab');
  await b.page.keyboard.press('Shift+Tab'); // back to head 1, at the cell last focused
  a = await active();
  assert.deepEqual([a.tag, a.figure, a.cursor], ['canvas', 0, '1,10']);
});

test('every heat map on the page is one tab stop (its canvas), and its export menu one more', async () => {
  const stops = await b.page.$$eval('figure.heatmap', (figs) =>
    figs.map((f) =>
      [...f.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')]
        .filter((e) => e.tabIndex >= 0 && !e.closest('details:not([open]) > :not(summary)'))
        .map((e) => e.tagName.toLowerCase())
        .join(' '),
    ),
  );
  assert.ok(stops.length >= 10, `${stops.length} heat maps`);
  assert.deepEqual(
    stops,
    stops.map(() => 'canvas summary'),
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
    () => document.querySelector('[data-example="E4.2"] figure.heatmap').dataset.cols === '129',
  );
  const ran = (await computed()) - before;
  assert.ok(ran >= 1 && ran <= 2, `${ran} matrices computed for 30 requests`);
  assert.match(
    await b.page.locator('[data-example="E4.2"] .result').innerText(),
    /^positional_encoding\.shape: \(100, 129\)/,
  );
  await b.page.fill('[data-example="E4.2"] [name=dModel]', '400');
  await b.page.waitForFunction(
    () => document.querySelector('[data-example="E4.2"] figure.heatmap').dataset.cols === '400',
  );
});

test('no request left the origin and the console has no errors', () => {
  assert.deepEqual(b.outside, []);
  assert.deepEqual(b.consoleErrors, []);
});
