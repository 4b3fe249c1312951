// E4.6 and the model explorer in headless Chromium. Without any files: the tokens of both
// sentences with the shipped vocabulary, as the document prints them. With files: the tiny
// random DistilBERT folder of scripts/make-fixtures.mjs (Hugging Face's layout) goes through the
// page's real file inputs (setInputFiles) and a drop; every number the page shows must equal the
// library's output for the same files in Node (the assertions of tests/js/e46.mjs, shared with
// the Node test); progress reaches 100 %; the explorer has a layers x heads model view; a
// malformed folder shows a readable error (a tokenizer.json pattern that backtracks exponentially
// among them: the worker has the ReDoS analysis, so it also loads a pattern on no list) and
// leaves the page usable. Screenshots of the explorer at desktop and phone widths go to
// test-results/.
//
// With a real copy of the model, the page must print the document's lines exactly:
//   AW_DISTILBERT_DIR=/path/to/distilbert-base-uncased node --test tests/web/encoder.test.mjs
// (skipped, saying so, without it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadTokenizer } from '../../dist/node.js';
import { writeFixture } from '../../scripts/make-fixtures.mjs';
import { DOCUMENT, e46, printedE46 } from '../js/e46.mjs';
import { S1, S2 } from '../js/fixtures.mjs';
import { openLoadedPage, artefacts, numbersIn, initLikeThePage, fileTransfer } from './browser.mjs';
import {
  E46_FORWARD as FORWARD,
  assertE46Loaded,
  assertLocalAndClean,
  block,
  e46Text,
  loaded as loadedE46,
  loadThroughInput as loadThroughE46Input,
  pyStrings,
  rowOf,
  shownE46,
} from './core.mjs';
import { E4 } from './oracles.mjs';
import { savedJson } from './charts.mjs';

let b, A, dir, model;
before(async () => {
  A = await initLikeThePage();
  dir = await writeFixture('distilbert-f32');
  model = await A.loadPretrained(dir);
  b = await openLoadedPage();
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E4.6"] .result').innerText.startsWith('tokens'),
  );
});
after(async () => {
  model?.dispose();
  await b?.close();
});

const card = () => b.page.locator('[data-example="E4.6"]');
const text = (selector) => e46Text(b, selector);
const out = (name) => text(`[data-out=${name}]`);
const filesOf = (folder) => readdirSync(folder).map((n) => join(folder, n));
const shown = () => shownE46(b);
const loaded = (start) => loadedE46(b, start);
const loadThroughInput = (paths, input) => loadThroughE46Input(b, paths, input);

test('E4.6 without files: both sentences tokenized with the shipped vocabulary, printed as the document prints them, with their ids', async () => {
  const result = await text('.result');
  const tokenizer = await loadTokenizer('distilbert-base-uncased');
  assert.equal(block(result, 'tokens (s1):'), E4.tokens, 'the token list, wrapped as the notebook prints it');
  assert.deepEqual(pyStrings(block(result, 'tokens (s1):')), DOCUMENT.tokens);
  assert.deepEqual(numbersIn(block(result, 'token_ids (s1):')), tokenizer.encode(S1).inputIds);
  assert.match(block(result, 'token_ids (s1):'), /^tensor\(\[ *\d+(, +\d+)*,\n {8}/, "torch's int64 print, wrapped");
  assert.deepEqual(pyStrings(block(result, 'tokens (s2):')), tokenizer.encode(S2).tokens);
  assert.deepEqual(numbersIn(block(result, 'token_ids (s2):')), tokenizer.encode(S2).inputIds);
  // the snippet indexes the word where the tokenizer put it; the explanation says what weights would add
  const index = tokenizer.encode(S1).tokens.indexOf('bank');
  assert.ok((await text('pre.code')).includes(`s1_te_bank = extract_te(s1, tokenizer, model)[${index}]`));
  assert.match(await text('p.what'), /The weights would add the rest/);
  assert.equal(await card().locator('.outputs').isHidden(), true);
  assert.match(await text('.loader .privacy'), /never leave your machine/);
  // a text the tokenizer refuses: a readable message, and the next one works
  await card().locator('[name=s1]').fill('');
  await b.page.waitForFunction(() => document.querySelector('[data-example="E4.6"] p.error').textContent);
  assert.equal(
    await card().locator('p.error').first().innerText(),
    'sentence 1: the text has no tokens (an empty string)',
  );
  // too long: the page truncates nothing, so its message says to shorten the text (not the API's option)
  await card().locator('[name=s1]').fill('bank '.repeat(600));
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E4.6"] p.error').textContent.includes('more than'),
  );
  assert.match(
    await card().locator('p.error').first().innerText(),
    /^sentence 1: tokenizer\.encode: the text has 602 tokens, more than .*: shorten it$/,
  );
  await card().locator('[name=s1]').fill(S1);
  await b.page.waitForFunction(() => !document.querySelector('[data-example="E4.6"] p.error').textContent);
  // any sentence: tokenized on input
  await card().locator('[name=s2]').fill('The bank of the river, the bank of England.');
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E4.6"] .result').innerText.includes("'england'"),
  );
  assert.deepEqual(
    pyStrings(block(await text('.result'), 'tokens (s2):')),
    tokenizer.encode('The bank of the river, the bank of England.').tokens,
  );
  await card().locator('[name=s2]').fill(S2);
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E4.6"] .result').innerText.includes("'withdrawing'"),
  );
});

test("a folder chosen with the folder picker: progress reaches 100 %; the lines, token list and tensors equal the library's in Node", async () => {
  await loadThroughInput(dir, 'folder');
  await assertE46Loaded(b, model);
});

test("the model explorer: a layers x heads model view for the fixture's sizes, the selected head large, values equal Node's attentions", async () => {
  const explorer = b.page.locator('#explorer');
  await b.page.waitForSelector('#explorer .heatmapgrid');
  const grid = explorer.locator('figure.heatmapgrid');
  assert.equal(await grid.getAttribute('data-rows'), String(model.numLayers));
  assert.equal(await grid.getAttribute('data-cols'), String(model.numHeads));
  assert.equal(await grid.locator('.map img').count(), model.numLayers * model.numHeads);
  assert.equal(await grid.getAttribute('data-selected'), '0,0');
  const enc = model.tokenizer.encode(S1),
    L = enc.inputIds.length;
  const { attentions, hiddenStates } = model.forward(enc, FORWARD);
  /** The large map against head h of layer l: its caption, and the attention it exports (JSON). */
  const checkHead = async (l, h) => {
    await b.page.waitForFunction(
      (want) => document.querySelector('#explorer .attention').dataset.head === want,
      `${l},${h}`,
    );
    const big = explorer.locator('.head figure.heatmap');
    assert.equal(await big.getAttribute('data-rows'), String(L));
    assert.match(await big.locator('figcaption').innerText(), new RegExp(`^layer ${l + 1}, head ${h + 1}:`));
    const json = await savedJson(b.page, big);
    assert.deepEqual([json.layer, json.head], [l, h]);
    assert.deepEqual(json.tokens, enc.tokens, 'the tokens, on both axes');
    assert.deepEqual(json.queries, [...Array(L).keys()]);
    const want = attentions[l].data.subarray(h * L * L, (h + 1) * L * L);
    assert.equal(json.weights.length, L);
    json.weights.forEach((row, i) =>
      row.forEach((v, j) => assert.equal(Math.fround(v), want[i * L + j], `layer ${l} head ${h} [${i}][${j}]`)),
    );
    return json;
  };
  await checkHead(0, 0);
  // keyboard: the model view is one tab stop; the arrow keys move the selection
  await explorer.locator('[name=token]').focus();
  await b.page.keyboard.press('Tab');
  assert.equal(
    await b.page.evaluate(
      () => document.activeElement.closest('.map')?.dataset.i + ',' + document.activeElement.dataset.j,
    ),
    '0,0',
  );
  await b.page.keyboard.press('ArrowRight');
  await b.page.keyboard.press('ArrowDown');
  assert.equal(await grid.getAttribute('data-selected'), '1,1');
  assert.match(await grid.locator('p.hover').innerText(), /^layer 2, head 2: strongest weight .+ → .+ \d\.\d{4}$/);
  const head = await checkHead(1, 1);
  // the model view saves the selected head's attention too
  assert.deepEqual(await savedJson(b.page, grid), head);
  // the large map reads out a cell from the keyboard: the number it shows is the one it saves
  await explorer.locator('.head figure.heatmap canvas').focus();
  await b.page.keyboard.press('ArrowRight');
  assert.equal(
    await explorer.locator('.head p.hover').innerText(),
    `${enc.tokens[0]} → ${enc.tokens[1]}: ${head.weights[0][1].toFixed(4)}`,
  );
  // the word's hidden state across the layers: its norm at each hidden state
  assert.equal(await explorer.locator('[name=token]').inputValue(), '11');
  const norm = explorer.locator('figure.lineplot').first();
  assert.equal(await norm.getAttribute('data-points'), String(model.numLayers + 1));
  await norm.locator('svg').focus();
  await b.page.keyboard.press('ArrowRight');
  const h1 = rowOf(hiddenStates[1], 11);
  assert.equal(
    await norm.locator('p.hover').innerText(),
    `'bank' after layer 1: ‖h‖ = ${Math.hypot(...h1).toFixed(4)}`,
  );
  await b.page.keyboard.press('End');
  assert.equal(await norm.getAttribute('data-cursor'), String(model.numLayers));
  await explorer.screenshot({ path: join(artefacts, 'explorer-desktop.png') });
  await b.page.setViewportSize({ width: 390, height: 844 });
  await b.page.waitForTimeout(200);
  const width = await b.page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 392, `page is ${width}px wide on a phone`);
  const view = await grid.boundingBox();
  assert.ok(view.width <= 390, `model view ${view.width}px wide`);
  await explorer.locator('.controls').evaluate((e) => {
    e.scrollIntoView({ block: 'start' });
    window.scrollBy(0, -48);
  });
  await b.page.waitForTimeout(100);
  await b.page.screenshot({ path: join(artefacts, 'explorer-phone.png') });
  await b.page.setViewportSize({ width: 1100, height: 900 });
});

test('editing a sentence re-runs the lines and the explorer; superseded requests are dropped', async () => {
  const s2 = 'The money is in the bank by the river.';
  const worker = b.page.workers().find((w) => !w.url().includes('attention_wasm_mt'));
  const computed = () => worker.evaluate(() => self.computed.e46 ?? 0);
  const forwards = () => worker.evaluate(() => self.computed.forward ?? 0);
  const before = await computed(),
    forwardsBefore = await forwards();
  await b.page.evaluate((s) => {
    // 20 edits at once: the worker computes the first and the last
    const input = document.querySelector('[data-example="E4.6"] [name=s2]');
    for (let n = 1; n <= 20; n++) {
      input.value = s.slice(0, s.length - 20 + n);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }
  }, s2);
  await b.page.waitForFunction(
    (s) => document.querySelector('[data-example="E4.6"] .result').innerText.includes("'river', '.'"),
    s2,
  );
  const ran = (await computed()) - before;
  assert.ok(ran >= 1 && ran <= 2, `${ran} runs for 20 edits`);
  // one forward per sentence per run: the lines and the explorer come from the same result
  assert.equal((await forwards()) - forwardsBefore, 2 * ran);
  assert.equal(await worker.evaluate(() => self.computed.explore), undefined, 'no second request for the explorer');
  const enc = model.tokenizer.encode(s2);
  const i = enc.tokens.indexOf('bank');
  const te = rowOf(model.forward(enc, FORWARD).lastHiddenState, i).slice(0, 5);
  const line = (await out('lines')).split('\n').at(-1);
  assert.deepEqual(
    numbersIn(line.slice(line.indexOf('['))),
    te.map((x) => Math.round(x * 100) / 100),
  );
  assert.ok((await text('pre.code')).includes(`s2_te_bank = extract_te(s2, tokenizer, model)[${i}]`));
  await b.page.locator('#explorer [name=sentence]').selectOption('1');
  await b.page.waitForFunction(
    (n) => document.querySelector('#explorer .head figure.heatmap')?.dataset.rows === String(n),
    enc.inputIds.length,
  );
  // a sentence the tokenizer refuses: none of the last sentences' results stays up beside the message
  await card().locator('[name=s2]').fill('');
  await b.page.waitForFunction(() => document.querySelector('[data-example="E4.6"] p.error').textContent);
  assert.equal(await card().locator('.outputs').isHidden(), true);
  assert.equal(await text('.result'), '');
  await card().locator('[name=s2]').fill(S2);
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E4.6"] .result').innerText.includes("'withdrawing'"),
  );
  assert.equal(await card().locator('.outputs').isHidden(), false);
});

/** A copy of the fixture folder with some files replaced (name -> bytes or text). */
function brokenFolder(changes) {
  const folder = mkdtempSync(join(tmpdir(), 'aw-broken-'));
  for (const name of readdirSync(dir)) writeFileSync(join(folder, name), readFileSync(join(dir, name)));
  for (const [name, content] of Object.entries(changes)) writeFileSync(join(folder, name), content);
  return folder;
}

/** The fixture's tokenizer.json with its normalizer followed by Replace(regex, ' '). */
function tokenizerWith(regex) {
  const json = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8'));
  json.normalizer = {
    type: 'Sequence',
    normalizers: [json.normalizer, { type: 'Replace', pattern: { Regex: regex }, content: ' ' }],
  };
  return JSON.stringify(json);
}

test('a malformed folder shows a readable error and leaves the page usable; a correct folder afterwards works', async () => {
  const weights = readFileSync(join(dir, 'model.safetensors'));
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
  const cases = [
    [
      // the worker has the ReDoS analysis (attention-wasm/tokenizer-check): analysed, not merely unknown
      'a tokenizer.json with a catastrophic pattern',
      { 'tokenizer.json': tokenizerWith('(a+)+$') },
      /^Could not load the model: loadPretrained: tokenizer\.json: normalizer\.normalizers\[1\]\.pattern\.Regex '\(a\+\)\+\$' can take exponential time on some texts \(.*\): refused$/,
    ],
    [
      'a truncated model.safetensors',
      { 'model.safetensors': weights.subarray(0, weights.length >> 1) },
      /^Could not load the model: loadPretrained: model\.safetensors: /,
    ],
    [
      'a config.json of another width',
      { 'config.json': JSON.stringify({ ...config, dim: 24 }) },
      /^Could not load the model: loadPretrained: model\.safetensors: tensor '.*' has shape \[.*\]; config\.json \(.*dim 24.*\) needs \[.*\]$/,
    ],
    [
      'a config.json of an unsupported model',
      { 'config.json': JSON.stringify({ ...config, model_type: 't5' }) },
      /^Could not load the model: loadPretrained: config\.json: model_type 't5' is not supported \(supported: distilbert, bert, .*gpt2.*\)$/,
    ],
    [
      // a causal LM loads, but E4.6 is an encoder's example: the message names the section that takes it
      'a GPT-2 folder',
      await writeFixture('gpt2-tiny'),
      /^Could not load the model: loadPretrained: the folder holds a gpt2 causal language model; E4\.6 needs an encoder \(DistilBERT, BERT\): the generation explorer takes this folder$/,
    ],
  ];
  for (const [what, changes, message] of cases) {
    await loadThroughInput(filesOf(typeof changes === 'string' ? changes : brokenFolder(changes)));
    assert.match(await text('.loader .error'), message, what);
    assert.equal(await text('.loader .status'), 'No model is loaded.', what);
    assert.equal(await card().locator('.outputs').isHidden(), true, what);
    assert.match(await b.page.locator('#explorer .empty').innerText(), /^Load a model/, what);
    assert.ok((await text('.result')).startsWith('tokens (s1):'), `${what}: the tokens are still shown`);
  }
  // a folder without config.json, dropped on the drop zone (a DataTransfer of File objects)
  const files = readdirSync(dir)
    .filter((n) => n !== 'config.json')
    .map((n) => [n, readFileSync(join(dir, n))]);
  const transfer = await fileTransfer(b.page, files);
  await loaded(() => card().locator('.dropzone').dispatchEvent('drop', { dataTransfer: transfer }));
  assert.match(
    await text('.loader .error'),
    /^Could not load the model: loadPretrained: config\.json is missing from the files given \(it has: .*model\.safetensors.*\)$/,
  );
  // a pattern on no list, which the worker's analysis passes, loads
  await loadThroughInput(filesOf(brokenFolder({ 'tokenizer.json': tokenizerWith('[\\p{Zs}\\t]+') })));
  assert.equal(await text('.loader .error'), '');
  assert.match(await text('.loader .status'), /^Loaded distilbert/);
  // the page still works: another example, then the correct folder through the files input
  const old = await b.page.locator('[data-example="E0.3"] .result').innerText();
  await b.page.fill('[data-document="000"] [name=seed]', '7');
  await b.page.waitForFunction((o) => document.querySelector('[data-example="E0.3"] .result').innerText !== o, old);
  await b.page.fill('[data-document="000"] [name=seed]', '123');
  await loadThroughInput(filesOf(dir));
  assert.equal(await text('.loader .error'), '');
  assert.deepEqual(await shown(), printedE46(e46(model, FORWARD)));
  await b.page.waitForFunction(() => document.querySelector('#explorer figure.heatmapgrid'));
});

test(
  "E4.6 with the real distilbert-base-uncased in Chromium: the document's lines, tokens and tensors (AW_DISTILBERT_DIR)",
  {
    skip: process.env.AW_DISTILBERT_DIR
      ? false
      : 'set AW_DISTILBERT_DIR=/path/to/distilbert-base-uncased (a Hugging Face folder) to run it',
    timeout: 300000,
  },
  async () => {
    const folder = process.env.AW_DISTILBERT_DIR;
    const needed = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'vocab.txt'];
    await loadThroughInput(needed.filter((n) => existsSync(join(folder, n))).map((n) => join(folder, n)));
    assert.equal(await text('.loader .error'), '');
    const page = await shown();
    console.log(`${await out('lines')}\n${await text('.loader .status')}`);
    assert.deepEqual(page, printedE46(DOCUMENT));
  },
);

test('no request left the origin and the console has no errors', () => assertLocalAndClean(b));
