// The generation explorer in headless Chromium, with the tiny random causal LMs of
// scripts/make-fixtures.mjs: gpt2-tiny (save_pretrained's layout) and llama-tiny (grouped-query
// attention, SentencePiece BPE). Each folder goes through the explorer's real file inputs or a
// drop; what the page shows must equal the library's lm.generate for the same files in Node:
// the streamed greedy tokens, each step's top candidates (probabilities and the top-k / top-p
// cut), and a chosen token's attention for a layer and head, read from the JSON the page
// exports. Stop ends a generation midway (the page is opened with ?stepdelay=, the test hook that
// slows each step down in the worker, so that there is a midway); the sampling controls change
// the distribution shown as the library's sampling does; a malformed folder shows a readable
// error and the page keeps working. Also: the PNG and SVG of the distribution, no duplicate ids,
// no request off the origin, a clean console; screenshots at desktop and phone widths go to
// test-results/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { writeFixture } from '../../scripts/make-fixtures.mjs';
import { openLoadedPage, artefacts, initLikeThePage, fileTransfer } from './browser.mjs';
import { saved, savedJson, pngSize } from './charts.mjs';
import { assertLocalAndClean } from './core.mjs';

const PROMPT = 'The river bank was quiet, and';
const CANDIDATES = 12; // the top candidates the page asks for (web/src/generation-jobs.js)
const STEP_DELAY = 60; // ms the worker waits after each step (?stepdelay=)

let b, A, gpt2Dir, llamaDir, gpt2, llama;
before(async () => {
  A = await initLikeThePage();
  [gpt2Dir, llamaDir] = await Promise.all([writeFixture('gpt2-tiny'), writeFixture('llama-tiny')]);
  gpt2 = await A.loadPretrained(gpt2Dir);
  llama = await A.loadPretrained(llamaDir);
  b = await openLoadedPage({ path: `/?stepdelay=${STEP_DELAY}` });
});
after(async () => {
  gpt2?.dispose();
  llama?.dispose();
  await b?.close();
});

const section = () => b.page.locator('#generation');
const text = (selector) => section().locator(selector).first().innerText();
const filesOf = (folder) => readdirSync(folder).map((n) => join(folder, n));
const state = () => section().locator('.loader').getAttribute('data-state');

/** Waits until the load started by `start` has ended (loaded or failed). */
async function loaded(start) {
  await section()
    .locator('.loader')
    .evaluate((e) => {
      e.dataset.state = 'idle';
    });
  await start();
  await b.page.waitForFunction(
    () => ['loaded', 'failed'].includes(document.querySelector('#generation .loader').dataset.state),
    null,
    { timeout: 120000 },
  );
}
const loadThroughInput = (paths, input = 'files') =>
  loaded(() => section().locator(`input[name=${input}]`).setInputFiles(paths));

/** Drops `files` ([name, bytes]) on the explorer's drop zone, as a DataTransfer of File objects. */
async function drop(files) {
  const transfer = await fileTransfer(b.page, files);
  await loaded(() => section().locator('.dropzone').dispatchEvent('drop', { dataTransfer: transfer }));
}
const folderFiles = (folder) => readdirSync(folder).map((n) => [n, readFileSync(join(folder, n))]);

/** Sets the decoding controls: { decoding: 'greedy' | 'sample', temperature, topK, topP, seed, maxNewTokens }. */
async function setControls(o) {
  if (o.prompt !== undefined) await section().locator('[name=prompt]').fill(o.prompt);
  await section()
    .locator(`[name=decoding][value=${o.decoding ?? 'greedy'}]`)
    .check();
  for (const name of ['temperature', 'topK', 'topP', 'seed', 'maxNewTokens'])
    if (o[name] !== undefined) await section().locator(`[name=${name}]`).fill(String(o[name]));
}

/** Clicks Generate (or presses Ctrl+Enter in the prompt) and waits for the generation's end; returns the tokens shown. */
async function generate({ keys = false } = {}) {
  await section().evaluate((e) => delete e.dataset.ended);
  if (keys) await section().locator('[name=prompt]').press('Control+Enter');
  else await section().locator('[name=generate]').click();
  await b.page.waitForFunction(() => document.querySelector('#generation').dataset.ended, null, {
    timeout: 120000,
  });
  return shownTokens();
}
const shownTokens = () => section().locator('.gentokens [role=option]').allInnerTexts();

/** Node's generation with the options the page passed. */
const nodeSteps = async (lm, options) =>
  (await lm.generate(PROMPT, { ...options, outputAttentions: true, candidates: CANDIDATES }).all()).steps;

/** The distribution chart's JSON against a step of Node's generation (every float32). */
function assertDistribution(json, step, what) {
  assert.equal(json.step, step.index, what);
  assert.equal(json.position, step.position, what);
  assert.equal(json.id, step.id, what);
  assert.equal(json.candidates.length, step.candidates.length, what);
  json.candidates.forEach((c, i) => {
    const want = step.candidates[i];
    assert.deepEqual([c.id, c.token, c.kept], [want.id, want.token, want.kept], `${what}: candidate ${i}`);
    assert.equal(Math.fround(c.probability), Math.fround(want.probability), `${what}: candidate ${i}'s probability`);
  });
}

/** Waits for the views of step k with head (l, h) drawn. */
const viewsDrawn = (k, l, h) =>
  b.page.waitForFunction(
    ([k, want]) =>
      document.querySelector('#generation').dataset.drawn === String(k) &&
      document.querySelector('#generation .attention').dataset.head === want,
    [k, `${l},${h}`],
  );

test('a GPT-2 folder dropped on the explorer: progress reaches 100 %; the status names the model', async () => {
  assert.equal(await section().locator('[name=generate]').isDisabled(), true, 'nothing to generate with yet');
  assert.match(await text('.loader .privacy'), /never leave your machine/);
  await drop(folderFiles(gpt2Dir));
  assert.equal(await text('.loader .error'), '');
  assert.equal(await state(), 'loaded');
  assert.equal(await section().locator('progress').getAttribute('data-percent'), '100');
  const c = gpt2.config;
  assert.match(
    await text('.loader .status'),
    new RegExp(
      `^Loaded gpt2: ${c.numLayers} layers, ${c.numHeads} heads \\(${c.numKvHeads} key/value\\), dimension ${c.hiddenSize}, vocabulary ${c.vocabSize}, context ${c.maxPositions}; `,
    ),
  );
  assert.equal(await section().locator('[name=generate]').isDisabled(), false);
});

test("greedy: the tokens stream in, equal to Node's lm.generate; each step's distribution equals Node's", async () => {
  await setControls({ prompt: PROMPT, decoding: 'greedy', maxNewTokens: 12 });
  assert.equal(await section().locator('[name=temperature]').isDisabled(), true, 'greedy has no temperature');
  await section().evaluate((e) => delete e.dataset.ended);
  await section().locator('[name=generate]').click();
  // streaming: some tokens are shown while the generation runs, and Stop is offered
  await b.page.waitForFunction(() => {
    const s = document.querySelector('#generation');
    return s.dataset.state === 'generating' && Number(s.dataset.steps) >= 2;
  });
  assert.equal(await section().locator('[name=stop]').isDisabled(), false);
  await b.page.waitForFunction(() => document.querySelector('#generation').dataset.ended);
  assert.equal(await section().getAttribute('data-ended'), 'done');
  const steps = await nodeSteps(gpt2, { maxNewTokens: 12, doSample: false });
  assert.deepEqual(
    await shownTokens(),
    steps.map((s) => s.token),
  );
  assert.equal(await section().locator('[data-out=text]').innerText(), PROMPT + steps.map((s) => s.text).join(''));
  assert.deepEqual(await section().locator('.prompttokens span').allInnerTexts(), gpt2.tokenizer.encode(PROMPT).tokens);
  assert.match(await text('.genstatus'), new RegExp(`^Generated ${steps.length} tokens \\(greedy\\) in [\\d.]+ s\\.$`));
  // the last token is selected; its step's distribution is shown (the drawn token outlined)
  assert.equal(await section().getAttribute('data-selected'), String(steps.length - 1));
  const chart = section().locator('figure.barchart');
  assertDistribution(await savedJson(b.page, chart), steps.at(-1), 'the last step');
  // its read-out: the bar under the keyboard's cursor says the number the JSON holds
  await chart.locator('canvas').focus();
  await b.page.keyboard.press('ArrowDown');
  const second = steps.at(-1).candidates[1];
  assert.equal(
    await chart.locator('p.hover').innerText(),
    `'${second.token}' (id ${second.id}): p = ${second.probability.toFixed(4)}${second.kept ? '' : ', cut'}`,
  );
});

test("a chosen token's attention over every earlier token equals Node's for each layer and head; the keys move the choice", async () => {
  const steps = await nodeSteps(gpt2, { maxNewTokens: 12, doSample: false });
  const k = 4,
    step = steps[k],
    T = step.position + 1;
  await section().locator(`.gentokens [role=option] >> nth=${k}`).click();
  await viewsDrawn(k, 0, 0);
  const enc = gpt2.tokenizer.encode(PROMPT);
  const tokens = [...enc.tokens, ...steps.slice(0, k + 1).map((s) => s.token)];
  const grid = section().locator('figure.heatmapgrid');
  assert.equal(await grid.getAttribute('data-rows'), String(gpt2.config.numLayers));
  assert.equal(await grid.getAttribute('data-cols'), String(gpt2.config.numHeads));
  const big = section().locator('.head figure.heatmap');
  assert.equal(await big.getAttribute('data-rows'), '1');
  assert.equal(await big.getAttribute('data-cols'), String(T));
  /** Head (l, h) as the page exports it, against Node's step k. */
  const checkHead = async (l, h) => {
    await viewsDrawn(k, l, h);
    const json = await savedJson(b.page, big);
    assert.deepEqual([json.layer, json.head], [l, h]);
    assert.deepEqual(json.tokens, tokens);
    assert.deepEqual(json.queries, [step.position]);
    const want = step.attentions[l].data.subarray(h * T, (h + 1) * T);
    assert.equal(json.weights.length, 1);
    json.weights[0].forEach((v, j) => assert.equal(Math.fround(v), want[j], `layer ${l} head ${h} key ${j}`));
    return json;
  };
  await checkHead(0, 0);
  // the model view's keys select another head
  await grid.locator('.map[tabindex="0"]').focus();
  await b.page.keyboard.press('ArrowDown');
  await b.page.keyboard.press('ArrowRight');
  await b.page.keyboard.press('ArrowRight');
  const head = await checkHead(1, 2);
  // the head's read-out from the keyboard says the number it saves
  await big.locator('canvas').focus();
  await b.page.keyboard.press('End');
  assert.equal(
    await big.locator('p.hover').innerText(),
    `${tokens[step.position]} → ${tokens[T - 1]}: ${head.weights[0][T - 1].toFixed(4)}`,
  );
  // the token list is one tab stop; the arrow keys move the choice and the views follow
  await section().locator('.gentokens').focus();
  await b.page.keyboard.press('ArrowLeft');
  assert.equal(await section().getAttribute('data-selected'), String(k - 1));
  assert.equal(await section().locator('.gentokens').getAttribute('aria-activedescendant'), `generated-token-${k - 1}`);
  assert.match(
    await section().locator('.tokenlist p.hover').innerText(),
    new RegExp(
      `^token ${k} of ${steps.length}: '.*' \\(id ${steps[k - 1].id}\\) at position ${steps[k - 1].position}, drawn with p = \\d\\.\\d{4}$`,
    ),
  );
  await viewsDrawn(k - 1, 1, 2);
  assertDistribution(await savedJson(b.page, section().locator('figure.barchart')), steps[k - 1], `step ${k - 1}`);
  await section().locator('.gentokens').focus();
  await b.page.keyboard.press('Home');
  assert.equal(await section().getAttribute('data-selected'), '0');
  await viewsDrawn(0, 1, 2);
  assert.equal(await big.getAttribute('data-cols'), String(steps[0].position + 1));
});

test("Stop ends a generation midway; the tokens shown are Node's first ones", async () => {
  const max = gpt2.config.maxPositions - gpt2.tokenizer.encode(PROMPT).inputIds.length;
  await setControls({ decoding: 'greedy', maxNewTokens: max });
  await section().evaluate((e) => delete e.dataset.ended);
  await section().locator('[name=generate]').click();
  await b.page.waitForFunction(() => Number(document.querySelector('#generation').dataset.steps) >= 3);
  await section().locator('[name=stop]').click();
  await b.page.waitForFunction(() => document.querySelector('#generation').dataset.ended);
  assert.equal(await section().getAttribute('data-ended'), 'stopped');
  const shown = await shownTokens();
  assert.ok(shown.length >= 3 && shown.length < max, `${shown.length} of ${max} tokens before the stop`);
  assert.match(await text('.genstatus'), new RegExp(`^Stopped after ${shown.length} tokens \\([\\d.]+ s\\)\\.$`));
  const steps = await nodeSteps(gpt2, { maxNewTokens: shown.length, doSample: false });
  assert.deepEqual(
    shown,
    steps.map((s) => s.token),
  );
  await b.page.waitForTimeout(5 * STEP_DELAY);
  assert.equal((await shownTokens()).length, shown.length, 'nothing arrives after the stop');
  assert.equal(await section().locator('[name=stop]').isDisabled(), true);
  assert.equal(await section().locator('[name=generate]').isDisabled(), false);
});

test("the sampling controls change the distribution shown, as the library's sampling does (temperature, top-k, top-p, seed)", async () => {
  const chart = () => section().locator('figure.barchart');
  const firstStep = async () => {
    await section().locator('.gentokens').focus();
    await b.page.keyboard.press('Home');
    await b.page.waitForFunction(() => document.querySelector('#generation').dataset.drawn === '0');
    return savedJson(b.page, chart());
  };
  await setControls({ decoding: 'greedy', maxNewTokens: 6 });
  await generate();
  const greedy = await firstStep();
  const cases = [
    { temperature: 2, topK: 3, topP: 1, seed: 5 },
    { temperature: 0.7, topK: 0, topP: 0.5, seed: 11 },
  ];
  for (const o of cases) {
    await setControls({ decoding: 'sample', maxNewTokens: 6, ...o });
    const shown = await generate();
    const options = { maxNewTokens: 6, doSample: true, ...o };
    const steps = await nodeSteps(gpt2, options);
    assert.deepEqual(
      shown,
      steps.map((s) => s.token),
      `the tokens sampled with ${JSON.stringify(o)}`,
    );
    const json = await firstStep();
    assertDistribution(json, steps[0], JSON.stringify(o));
    assert.deepEqual(json.options, options);
    assert.notDeepEqual(
      json.candidates.map((c) => c.probability),
      greedy.candidates.map((c) => c.probability),
      'the temperature changes the probabilities',
    );
    const kept = json.candidates.filter((c) => c.kept).length;
    if (o.topK) assert.equal(kept, o.topK, 'top-k keeps k candidates');
    assert.ok(kept < json.candidates.length, 'the cut is in the candidates shown');
    assert.match(
      await chart().locator('figcaption').innerText(),
      new RegExp(`^step 1: the next-token distribution at position \\d+ \\(sampled at temperature ${o.temperature}`),
    );
  }
  // greedy again: the sampling inputs are off, nothing is cut
  await setControls({ decoding: 'greedy', maxNewTokens: 6 });
  await generate();
  assert.deepEqual(await firstStep(), greedy);
});

test("a Llama folder (grouped-query attention) through the folder picker: greedy tokens and a head's attention equal Node's", async () => {
  await loadThroughInput(llamaDir, 'folder');
  assert.equal(await text('.loader .error'), '');
  assert.match(await text('.loader .status'), /^Loaded llama: 2 layers, 4 heads \(2 key\/value\)/);
  assert.equal(await section().locator('.gentokens [role=option]').count(), 0, 'the last model’s tokens are gone');
  await setControls({ decoding: 'greedy', maxNewTokens: 10 });
  const shown = await generate({ keys: true });
  const steps = await nodeSteps(llama, { maxNewTokens: 10, doSample: false });
  assert.deepEqual(
    shown,
    steps.map((s) => s.token),
  );
  const k = steps.length - 1,
    T = steps[k].position + 1;
  await section().locator('figure.heatmapgrid .map[tabindex="0"]').focus();
  await b.page.keyboard.press('PageUp'); // layer 1 (the views keep the head chosen before)
  await b.page.keyboard.press('End'); // its head 4: the second key/value head's group
  await viewsDrawn(k, 0, 3);
  const json = await savedJson(b.page, section().locator('.head figure.heatmap'));
  const want = steps[k].attentions[0].data.subarray(3 * T, 4 * T);
  json.weights[0].forEach((v, j) => assert.equal(Math.fround(v), want[j], `key ${j}`));
});

/** A copy of a fixture folder with some files replaced (name -> bytes or text) or removed (null). */
function brokenFolder(dir, changes) {
  const folder = mkdtempSync(join(tmpdir(), 'aw-broken-lm-'));
  for (const name of readdirSync(dir))
    if (changes[name] !== null) writeFileSync(join(folder, name), readFileSync(join(dir, name)));
  for (const [name, content] of Object.entries(changes))
    if (content !== null) writeFileSync(join(folder, name), content);
  return folder;
}

test('a malformed folder shows a readable error and the page keeps working; a correct folder afterwards generates', async () => {
  const weights = readFileSync(join(gpt2Dir, 'model.safetensors'));
  const config = JSON.parse(readFileSync(join(gpt2Dir, 'config.json'), 'utf8'));
  const cases = [
    [
      'a truncated model.safetensors',
      brokenFolder(gpt2Dir, { 'model.safetensors': weights.subarray(0, weights.length >> 1) }),
      /^Could not load the model: loadPretrained: model\.safetensors: /,
    ],
    [
      'a config.json of another width',
      brokenFolder(gpt2Dir, { 'config.json': JSON.stringify({ ...config, n_embd: 24 }) }),
      /^Could not load the model: loadPretrained: .*(n_embd|shape)/,
    ],
    [
      'no config.json',
      brokenFolder(gpt2Dir, { 'config.json': null }),
      /^Could not load the model: loadPretrained: config\.json is missing/,
    ],
    [
      'not JSON',
      brokenFolder(gpt2Dir, { 'config.json': '{"model_type": "gpt2",' }),
      /^Could not load the model: loadPretrained: config\.json/,
    ],
    [
      'an encoder (DistilBERT)',
      await writeFixture('distilbert-f32'),
      /^Could not load the model: loadPretrained: the folder holds a distilbert encoder; the generation explorer needs a causal language model/,
    ],
  ];
  for (const [what, folder, message] of cases) {
    await loadThroughInput(filesOf(folder));
    assert.equal(await state(), 'failed', what);
    assert.match(await text('.loader .error'), message, what);
    assert.equal(await text('.loader .status'), 'No model is loaded.', what);
    assert.equal(await section().locator('[name=generate]').isDisabled(), true, what);
    assert.equal(await section().locator('.gentokens [role=option]').count(), 0, what);
  }
  // the rest of the page still works
  const old = await b.page.locator('[data-example="E0.3"] .result').innerText();
  await b.page.fill('[data-document="000"] [name=seed]', '7');
  await b.page.waitForFunction((o) => document.querySelector('[data-example="E0.3"] .result').innerText !== o, old);
  await b.page.fill('[data-document="000"] [name=seed]', '123');
  // and the correct folder loads and generates
  await loadThroughInput(filesOf(gpt2Dir));
  assert.equal(await text('.loader .error'), '');
  await setControls({ decoding: 'greedy', maxNewTokens: 5 });
  const steps = await nodeSteps(gpt2, { maxNewTokens: 5, doSample: false });
  assert.deepEqual(
    await generate(),
    steps.map((s) => s.token),
  );
});

test('the distribution and the attention save as PNG and SVG; no duplicate ids; screenshots at desktop and phone widths', async () => {
  await setControls({ decoding: 'sample', temperature: 1.5, topK: 5, topP: 1, seed: 3, maxNewTokens: 8 });
  await generate();
  for (const [name, fig] of [
    ['distribution', section().locator('figure.barchart')],
    ['head', section().locator('.head figure.heatmap')],
    ['model view', section().locator('figure.heatmapgrid')],
  ]) {
    const png = pngSize((await saved(b.page, fig, 'png')).bytes);
    assert.ok(png.width >= 200 && png.height >= 40, `${name}: PNG ${png.width} x ${png.height}`);
    const svg = (await saved(b.page, fig, 'svg')).bytes.toString('utf8');
    assert.ok(svg.startsWith('<svg') && svg.includes('xmlns="http://www.w3.org/2000/svg"'), `${name}: an SVG file`);
    assert.ok(!/tabindex|role=/.test(svg), `${name}: without the page's interactive attributes`);
  }
  const svg = (await saved(b.page, section().locator('figure.barchart'), 'svg')).bytes.toString('utf8');
  const json = await savedJson(b.page, section().locator('figure.barchart'));
  for (const c of json.candidates)
    assert.ok(svg.includes(`>${c.probability.toFixed(4)}<`), `the SVG prints ${c.probability}`);
  const duplicates = await b.page.evaluate(() => {
    const seen = new Map();
    for (const e of document.querySelectorAll('[id]')) seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1);
  });
  assert.deepEqual(duplicates, []);
  await section().screenshot({ path: join(artefacts, 'generation-desktop.png') });
  await b.page.setViewportSize({ width: 390, height: 844 });
  await b.page.waitForTimeout(200);
  const width = await b.page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 392, `page is ${width}px wide on a phone`);
  const chart = await section().locator('figure.barchart canvas').boundingBox();
  assert.ok(chart.width <= 380, `the distribution is ${chart.width} px wide`);
  await section()
    .locator('.gencontrols')
    .evaluate((e) => {
      e.scrollIntoView({ block: 'start' });
      window.scrollBy(0, -48);
    });
  await b.page.waitForTimeout(100);
  await b.page.screenshot({ path: join(artefacts, 'generation-phone.png') });
  await b.page.setViewportSize({ width: 1100, height: 900 });
});

test('no request left the origin and the console has no errors', () => assertLocalAndClean(b));
