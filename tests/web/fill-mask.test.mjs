// E4.6's fill-mask card (issue 20) in headless Chromium: the tiny DistilBERT folder of
// scripts/make-fixtures.mjs has distilbert-base-uncased's masked-LM head (DistilBertForMaskedLM,
// the projection tied to the word embeddings), so loading it through the page's file input shows
// the card with the default sentence; its five tokens and probabilities must be the library's
// model.fillMask for the same files in Node; two masks give two tables; a sentence without
// [MASK] says what to do and the next edit works; the model explorer gets the "[MASK] sentence"
// whose rows are the [MASK] positions; a folder without the head says what it needs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFixture } from '../../scripts/make-fixtures.mjs';
import { openLoadedPage, initLikeThePage } from './browser.mjs';
import { assertLocalAndClean, e46Text, loadThroughInput } from './core.mjs';

let b, A, dir, model;
before(async () => {
  A = await initLikeThePage();
  dir = await writeFixture('distilbert-f32');
  model = await A.loadPretrained(dir);
  b = await openLoadedPage();
});
after(async () => {
  model?.dispose();
  await b?.close();
});

const filesOf = (folder) => readdirSync(folder).map((n) => join(folder, n));
const card = () => b.page.locator('[data-example="E4.6"] .fillmask');
const DEFAULT = 'Write a poem about a man fishing on a river [MASK].';

/** The card's tables: for each, its caption and rows { id, token, score, shown } as the page has them. */
const tables = () =>
  card()
    .locator('table.predictions')
    .evaluateAll((ts) =>
      ts.map((t) => ({
        caption: t.querySelector('caption').textContent,
        rows: [...t.querySelectorAll('tbody tr')].map((r) => ({
          id: Number(r.dataset.id),
          score: Number(r.dataset.score),
          token: r.cells[0].textContent,
          shown: r.querySelector('.value').textContent,
        })),
      })),
    );

/** Waits until the card shows predictions for `text` (typed into its input). */
async function fill(text) {
  await b.page.evaluate(() => delete document.querySelector('.fillmask').dataset.state);
  await card().locator('[name=masked]').fill(text);
  await b.page.waitForFunction(() => document.querySelector('.fillmask').dataset.state === 'shown', null, {
    timeout: 60000,
  });
}

/** The page's tables equal model.fillMask(text) in Node: ids, tokens, probabilities (4 decimals shown). */
async function assertSameAsNode(text) {
  const want = model.fillMask(text, { topK: 5 });
  const lists = Array.isArray(want[0]) ? want : [want];
  const got = await tables();
  assert.equal(got.length, lists.length, `${text}: one table per [MASK]`);
  const maskId = model.tokenizer.tokenToId('[MASK]');
  const positions = model.tokenizer.encode(text).inputIds.flatMap((id, i) => (id === maskId ? [i] : []));
  got.forEach((table, m) => {
    assert.match(table.caption, new RegExp(`\\(token ${positions[m]}\\)$`), 'the caption names the position');
    assert.deepEqual(
      table.rows.map((r) => [r.id, r.token, r.shown]),
      lists[m].map((p) => [p.id, p.token, p.score.toFixed(4)]),
      text,
    );
    table.rows.forEach((r, i) =>
      assert.ok(Math.abs(r.score - lists[m][i].score) <= 1e-6 * lists[m][i].score + 1e-9, `score ${i}`),
    );
  });
}

test('a folder with the masked-LM head: the card fills the default sentence as model.fillMask does in Node', async () => {
  assert.equal(await card().isHidden(), true, 'no card before a model is loaded');
  await b.page.evaluate(() => {
    const el = document.querySelector('.fillmask');
    if (el) delete el.dataset.state;
  });
  await loadThroughInput(b, filesOf(dir));
  assert.equal(model.head, 'masked-lm');
  await b.page.waitForFunction(() => document.querySelector('.fillmask').dataset.state === 'shown', null, {
    timeout: 60000,
  });
  assert.equal(await card().locator('[name=masked]').inputValue(), DEFAULT);
  assert.equal(await card().locator('.needs').isHidden(), true);
  await assertSameAsNode(DEFAULT);
});

test('editing: two masks give two tables; a sentence without [MASK] says so and the next edit works', async () => {
  await fill('The [MASK] of the river is [MASK].');
  await assertSameAsNode('The [MASK] of the river is [MASK].');
  await card().locator('[name=masked]').fill('no mask here');
  await b.page.waitForFunction(() => document.querySelector('.fillmask .error').textContent !== '');
  assert.equal(await card().locator('.error').innerText(), 'Put [MASK] where a word should be predicted.');
  await fill('a man fishing on the [MASK] bank.');
  assert.equal(await card().locator('.error').innerText(), '');
  await assertSameAsNode('a man fishing on the [MASK] bank.');
});

test('the model explorer offers the [MASK] sentence: its token choice starts at the [MASK] row', async () => {
  const text = 'a man fishing on the [MASK] bank.';
  const select = b.page.locator('#explorer [name=sentence]');
  await b.page.waitForFunction(() => {
    const option = document.querySelector('#explorer [name=sentence] option[value=mask]');
    return option && !option.disabled;
  });
  await select.selectOption('mask');
  const position = model.tokenizer.encode(text).tokens.indexOf('[MASK]');
  await b.page.waitForFunction((p) => document.querySelector('#explorer [name=token]').value === String(p), position);
  const tokens = await b.page.locator('#explorer [name=token] option').allTextContents();
  assert.deepEqual(
    tokens,
    model.tokenizer.encode(text).tokens.map((t, i) => `${i}: ${t}`),
  );
  await select.selectOption('0');
});

test('a folder without the head: the card says what it needs; the head back, the card back', async () => {
  const bare = await writeFixture('distilbert-f16'); // DistilBertModel: no head in the file
  await loadThroughInput(b, filesOf(bare));
  assert.match(await e46Text(b, '.loader .status'), /^Loaded distilbert/);
  assert.equal(await card().isHidden(), false);
  assert.equal(await card().locator('table.predictions').count(), 0);
  assert.match(
    await card().locator('.needs').innerText(),
    /^This folder's model has no masked-LM head \(config\.json's architectures\[0\] is DistilBertModel\): filling \[MASK\] needs DistilBertForMaskedLM's/,
  );
  assert.equal(await b.page.locator('#explorer [name=sentence] option[value=mask]').isDisabled(), true);
  await loadThroughInput(b, filesOf(dir));
  await b.page.waitForFunction(() => document.querySelector('.fillmask').dataset.state === 'shown', null, {
    timeout: 60000,
  });
  assert.equal(await card().locator('.needs').isHidden(), true);
});

test('no request left the origin and the console has no errors', () => assertLocalAndClean(b));
