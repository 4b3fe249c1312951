// The generation explorer at a model's full context, in headless Chromium: the GPT-2 of
// scripts/make-fixtures.mjs with 6 layers x 12 heads and 640 positions ('gpt2-6x12'), dropped on
// the explorer, and a prompt of about 500 tokens generated on to 512 positions. The tokens stream
// in with the views following the newest, and then the choice of a token (the keys and clicks in
// the token list), of a head (the model view's keys and clicks) and of a key (the head's cursor)
// redraws the model view (72 strips of up to 512 weights) and the head view with no main-thread
// task over 50 ms: a PerformanceObserver of 'longtask' entries in the page. The longest of each
// drawing step (the page's user timing, web/src/timing.js) is printed with the load average. The
// VM is shared and a busy neighbour stretches any task, so each measured interaction gets three
// tries and passes when one of them has no long task (long-tasks.mjs, as in scale.test.mjs); a
// drawing too slow for the budget is too slow every time.
//
// Also: the streamed tokens equal Node's lm.generate for the same files and prompt, and the
// exported attention of the token at position 511 (512 keys) equals Node's for its layer and head,
// every float32, with the number read out at the cursor; no request leaves the origin and the
// console stays clean. A screenshot of the 512-position views goes to test-results/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFixture } from '../../scripts/make-fixtures.mjs';
import { openLoadedPage, artefacts, initLikeThePage, fileTransfer } from './browser.mjs';
import { observeLongTasks, reportLongTasks, withoutLongTasks } from './long-tasks.mjs';
import { savedJson, cellPoint } from './charts.mjs';
import { assertLocalAndClean } from './core.mjs';

const POSITIONS = 512; // the sequence the views are measured at: the last token's keys
const WORDS =
  'the river bank was quiet in the morning and a man sat fishing there while the fox runs over the lazy dog';
/** A prompt of `count` words (about 2.2 tokens each with the fixture's tokenizer). */
const text = (count) => Array.from({ length: count }, (_, i) => WORDS.split(' ')[i % 21]).join(' ');
const PROMPT = text(230);

let b, A, dir, lm, promptTokens, steps;
before(async () => {
  A = await initLikeThePage();
  dir = await writeFixture('gpt2-6x12');
  lm = await A.loadPretrained(dir);
  promptTokens = lm.tokenizer.encode(PROMPT).inputIds.length;
  b = await openLoadedPage();
  await observeLongTasks(b.page);
  // the folder dropped on the explorer's drop zone, as a DataTransfer of File objects
  const files = readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]);
  const transfer = await fileTransfer(b.page, files);
  await section().locator('.dropzone').dispatchEvent('drop', { dataTransfer: transfer });
  await b.page.waitForFunction(
    () => ['loaded', 'failed'].includes(document.querySelector('#generation .loader').dataset.state),
    null,
    { timeout: 120000 },
  );
  assert.equal(await section().locator('.loader .error').innerText(), '');
});
after(async () => {
  lm?.dispose();
  await b?.close();
});

const section = () => b.page.locator('#generation');
const tokenList = () => section().locator('.gentokens');
const grid = () => section().locator('figure.heatmapgrid');
const head = () => section().locator('.head figure.heatmap');

/** Waits until step k's views are drawn (with head (l, h) when given) and every map of the model view is painted. */
const drawn = (k, l = null, h = null) =>
  b.page.waitForFunction(
    ([k, want]) => {
      const s = document.querySelector('#generation');
      const views = s.querySelector('.attention');
      return (
        s.dataset.drawn === String(k) &&
        s.querySelector('.heatmapgrid')?.dataset.painted === 'true' &&
        views.dataset.head !== undefined &&
        (want === null || views.dataset.head === want)
      );
    },
    [k, l === null ? null : `${l},${h}`],
    { timeout: 120000 },
  );

test('a prompt of about 500 tokens generated on to 512 positions: the tokens stream in and the views follow, with no task over 50 ms', async () => {
  assert.ok(promptTokens >= 480 && promptTokens < POSITIONS - 4, `the prompt is ${promptTokens} tokens`);
  const maxNewTokens = POSITIONS - promptTokens; // the last token at position 511: 512 keys
  await section().locator('[name=prompt]').fill(PROMPT);
  await section().locator('[name=decoding][value=greedy]').check();
  await section().locator('[name=maxNewTokens]').fill(String(maxNewTokens));
  const runs = await withoutLongTasks(b.page, async () => {
    await section().evaluate((e) => delete e.dataset.ended);
    await section().locator('[name=generate]').click();
    await b.page.waitForFunction(() => document.querySelector('#generation').dataset.ended, null, {
      timeout: 120000,
    });
    await drawn(maxNewTokens - 1);
  });
  await reportLongTasks(
    b.page,
    `${promptTokens} prompt tokens and ${maxNewTokens} generated, streamed and drawn`,
    runs,
  );
  assert.deepEqual(runs.at(-1), [], `long tasks in each of three tries: ${JSON.stringify(runs)}`);
  assert.equal(await section().getAttribute('data-ended'), 'done');
  steps = (await lm.generate(PROMPT, { maxNewTokens, doSample: false, outputAttentions: true }).all()).steps;
  assert.equal(steps.length, maxNewTokens, 'greedy ran to maxNewTokens (no end-of-text)');
  assert.equal(steps.at(-1).position, POSITIONS - 1);
  assert.deepEqual(
    await section().locator('.gentokens [role=option]').allInnerTexts(),
    steps.map((s) => s.token),
  );
  assert.equal(await section().locator('.prompttokens span').count(), promptTokens);
  assert.equal(await grid().getAttribute('data-rows'), '6');
  assert.equal(await grid().getAttribute('data-cols'), '12');
  assert.match(await grid().locator('figcaption').innerText(), /^model view: 6 layers × 12 heads, 512 tokens/);
  assert.equal(await head().getAttribute('data-rows'), '1');
  assert.equal(await head().getAttribute('data-cols'), String(POSITIONS));
});

test('512 positions: the keys and clicks in the token list choose a token and both views redraw, with no task over 50 ms', async () => {
  const last = steps.length - 1;
  const runs = await withoutLongTasks(b.page, async () => {
    await tokenList().focus();
    await b.page.keyboard.press('Home');
    await drawn(0);
    const at = (k) => Math.max(0, Math.min(last, k));
    for (const [key, k] of [
      ['ArrowRight', 1],
      ['ArrowRight', 2],
      ['Shift+ArrowRight', at(12)],
      ['End', last],
      ['ArrowLeft', last - 1],
      ['Shift+ArrowLeft', at(last - 11)],
    ]) {
      await b.page.keyboard.press(key);
      await drawn(k);
    }
    for (const k of [3, last, 7]) {
      await tokenList().locator(`[role=option] >> nth=${k}`).click();
      await drawn(k);
    }
  });
  await reportLongTasks(b.page, 'tokens chosen by keys and clicks', runs);
  assert.deepEqual(runs.at(-1), [], `long tasks in each of three tries: ${JSON.stringify(runs)}`);
  assert.equal(await section().getAttribute('data-selected'), '7');
  assert.equal(await tokenList().getAttribute('aria-activedescendant'), 'generated-token-7');
  assert.equal(await head().getAttribute('data-cols'), String(steps[7].position + 1));
});

test('512 positions: the keys and clicks move the selection through the model view and the cursor along the head, with no task over 50 ms', async () => {
  const last = steps.length - 1;
  await tokenList().locator(`[role=option] >> nth=${last}`).click();
  await drawn(last);
  const runs = await withoutLongTasks(b.page, async () => {
    await grid().locator('.map[tabindex="0"]').focus();
    await b.page.keyboard.press('Home');
    await b.page.keyboard.press('PageUp');
    await drawn(last, 0, 0);
    for (const [key, l, h] of [
      ['ArrowRight', 0, 1],
      ['ArrowDown', 1, 1],
      ['End', 1, 11],
      ['PageDown', 5, 11],
    ]) {
      await b.page.keyboard.press(key);
      await drawn(last, l, h);
    }
    await grid().locator('.map[data-i="2"][data-j="4"]').click();
    await drawn(last, 2, 4);
    await grid().locator('.map[data-i="4"][data-j="9"]').click();
    await drawn(last, 4, 9);
    await head().locator('canvas').focus();
    await b.page.keyboard.press('Home');
    for (let k = 0; k < 12; k++) await b.page.keyboard.press(k % 3 ? 'Shift+ArrowRight' : 'ArrowRight');
    await b.page.keyboard.press('End');
    await b.page.keyboard.press('Shift+ArrowLeft');
    const { x, y } = await cellPoint(head(), 0, 300);
    await b.page.mouse.click(x, y);
  });
  await reportLongTasks(b.page, 'heads chosen by keys and clicks, the cursor moved by keys and a click', runs);
  assert.deepEqual(runs.at(-1), [], `long tasks in each of three tries: ${JSON.stringify(runs)}`);
  assert.equal(await grid().getAttribute('data-selected'), '4,9');
  assert.equal(await head().getAttribute('data-cursor'), '0,300');
});

test("the token at position 511: the head's JSON equals Node's attention for that layer and head, and the number read out", async () => {
  const k = steps.length - 1,
    step = steps[k],
    T = step.position + 1;
  assert.equal(T, POSITIONS);
  await tokenList().locator(`[role=option] >> nth=${k}`).click();
  await drawn(k, 4, 9);
  const json = await savedJson(b.page, head());
  assert.deepEqual([json.layer, json.head], [4, 9]);
  const tokens = [...lm.tokenizer.encode(PROMPT).tokens, ...steps.map((s) => s.token)];
  assert.deepEqual(json.tokens, tokens);
  assert.deepEqual(json.queries, [POSITIONS - 1]);
  const want = step.attentions[4].data.subarray(9 * T, 10 * T);
  let differ = 0;
  json.weights[0].forEach((v, j) => (differ += Math.fround(v) !== want[j]));
  assert.equal(differ, 0, `${differ} of ${T} weights differ from Node's`);
  await head().locator('canvas').focus();
  await b.page.keyboard.press('End');
  await b.page.keyboard.press('Shift+ArrowLeft');
  assert.equal(await head().getAttribute('data-cursor'), `0,${T - 11}`);
  assert.equal(
    await head().locator('p.hover').innerText(),
    `${tokens[T - 1]} → ${tokens[T - 11]}: ${json.weights[0][T - 11].toFixed(4)}`,
  );
  await section()
    .locator('.views, .attention')
    .first()
    .screenshot({ path: join(artefacts, 'generation-512.png') });
});

test('no request left the origin and the console has no errors', () => assertLocalAndClean(b));
