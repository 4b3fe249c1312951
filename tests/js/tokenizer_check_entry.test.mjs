// The default (browser) entry point, dist/index.js, holds no ReDoS analysis (its 250 KB gzip
// would land in every page that imports the package): there, a tokenizer.json pattern that is a
// literal or on the list of checked real tokenizers' patterns loads; any other is refused at load
// with the file, the JSON path, the pattern and the two ways out; `{ trustPatterns: true }` loads
// it unchecked; and once 'attention-wasm/tokenizer-check' is imported, it is analysed (a safe one
// loads, a catastrophic one is refused as exponential). This file imports only dist/index.js
// (node --test runs each file in its own process), so nothing registered the analysis before.
// tests/consumers tests the same in Chromium with a bundler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { init, loadTokenizer } from '../../dist/index.js';
import { ANALYSIS_SIZE, hasPatternAnalysis } from '../../dist/tokenizer-patterns.js';
import { CHECKED_PATTERNS } from '../../dist/checked-patterns.js';
import { loadFixture } from './fixtures.mjs';
import { asFile, pipelineJson } from './fixtures/pipelines.mjs';

const split = (regex) => ({ type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false });
/** A safe pattern no real tokenizer on the list has. */
const UNKNOWN = '[\\p{Zs}\\t]+';
const HOSTILE = '(a+)+$';
const refusal = (fn, path, pattern) =>
  `${fn}: tokenizer.json: ${path}.Regex '${pattern}' is not one of the tokenizer patterns attention-wasm has ` +
  `checked, and this entry point does not analyse patterns: import 'attention-wasm/tokenizer-check' (the ReDoS ` +
  `analysis, ${ANALYSIS_SIZE}) to check it, or pass { trustPatterns: true } to run this file's patterns unchecked, at your own risk`;

/** The distilbert fixture's folder with its tokenizer.json's normalizer followed by Replace(pattern, ' '). */
async function folderWith(pattern) {
  const fx = await loadFixture('distilbert-f32');
  const json = JSON.parse(new TextDecoder().decode(fx.files['tokenizer.json']));
  json.normalizer = {
    type: 'Sequence',
    normalizers: [json.normalizer, { type: 'Replace', pattern: { Regex: pattern }, content: ' ' }],
  };
  return { ...fx.files, 'tokenizer.json': asFile(json) };
}

test('the default entry point: listed and literal patterns load without the analysis; an unknown one is refused, naming the fix', async () => {
  assert.equal(hasPatternAnalysis(), false, 'nothing registered the analysis');
  assert.ok(!CHECKED_PATTERNS.includes(UNKNOWN));

  // Llama 3's and Qwen2's pipelines: their Split patterns are on the list
  for (const name of ['llama3', 'qwen2']) {
    const tok = await loadTokenizer({ 'tokenizer.json': asFile(pipelineJson(name, ['How', 'Ġare'])) });
    assert.deepEqual(tok.encode('How are 12').tokens.slice(-5), ['How', 'Ġare', 'Ġ', '1', '2'], name);
  }
  // SentencePiece pipelines' literals (Llama 2, Mistral: ' ' -> '▁' and back), and a literal Regex
  const literals = pipelineJson('gpt2', ['▁a▁b…']);
  literals.normalizer = {
    type: 'Sequence',
    normalizers: [
      { type: 'Replace', pattern: { String: ' ' }, content: '▁' },
      { type: 'Replace', pattern: { Regex: '\\.\\.\\.' }, content: '…' },
    ],
  };
  literals.pre_tokenizer = literals.post_processor = null;
  literals.decoder = { type: 'Replace', pattern: { String: '▁' }, content: ' ' };
  const sentencePiece = await loadTokenizer({ 'tokenizer.json': asFile(literals) });
  assert.deepEqual(sentencePiece.encode(' a b...').tokens, ['▁a▁b…']);
  assert.equal(sentencePiece.decode(sentencePiece.encode(' a b...').inputIds), ' a b…');

  // an unknown pattern, safe or not, is refused before anything runs: the message names the fix
  for (const [pattern, edit, path] of [
    [UNKNOWN, (j) => (j.pre_tokenizer = split(UNKNOWN)), 'pre_tokenizer.pattern'],
    [
      HOSTILE,
      (j) => (j.pre_tokenizer = { type: 'Sequence', pretokenizers: [split(HOSTILE), j.pre_tokenizer] }),
      'pre_tokenizer.pretokenizers[0].pattern',
    ],
  ]) {
    const json = pipelineJson('llama3');
    edit(json);
    await assert.rejects(loadTokenizer({ 'tokenizer.json': asFile(json) }), {
      name: 'Error',
      message: refusal('loadTokenizer', path, pattern),
    });
  }
  // the shipped vocabulary has no pattern
  assert.equal((await loadTokenizer('bert-base-uncased')).encode('a bank').inputIds.length, 4);
});

test('the default entry point: { trustPatterns: true } runs a file’s patterns unchecked (loadTokenizer, loadPretrained)', async () => {
  const json = pipelineJson('qwen2');
  json.pre_tokenizer.pretokenizers[0] = split(UNKNOWN);
  const trusted = await loadTokenizer({ 'tokenizer.json': asFile(json) }, { trustPatterns: true });
  assert.deepEqual(trusted.encode('a b\tc').tokens, ['a', 'Ġ', 'b', 'ĉ', 'c']);
  await assert.rejects(loadTokenizer({ 'tokenizer.json': asFile(json) }, { trustPatterns: 'yes' }), {
    name: 'TypeError',
    message: 'loadTokenizer: trustPatterns must be a boolean, got string',
  });

  const A = await init({ wasmBinary: readFileSync(new URL('../../dist/attention_wasm.wasm', import.meta.url)) });
  const folder = await folderWith(UNKNOWN);
  await assert.rejects(A.loadPretrained(folder), {
    message: refusal('loadPretrained', 'normalizer.normalizers[1].pattern', UNKNOWN),
  });
  const model = await A.loadPretrained(folder, { trustPatterns: true });
  try {
    assert.deepEqual(model.tokenizer.encode('a\t\u00a0bank').tokens, ['[CLS]', 'a', 'bank', '[SEP]']);
  } finally {
    model.dispose();
  }
  await assert.rejects(A.loadPretrained(folder, { trustPatterns: 1 }), {
    name: 'TypeError',
    message: 'loadPretrained: trustPatterns must be a boolean, got number',
  });
});

test("import 'attention-wasm/tokenizer-check': the unknown pattern is analysed and loads, a catastrophic one is refused", async () => {
  const { enableTokenizerCheck } = await import('attention-wasm/tokenizer-check');
  assert.equal(hasPatternAnalysis(), true);
  enableTokenizerCheck(); // idempotent
  const json = pipelineJson('qwen2');
  json.pre_tokenizer.pretokenizers[0] = split(UNKNOWN);
  assert.deepEqual((await loadTokenizer({ 'tokenizer.json': asFile(json) })).encode('a b').tokens, ['a', 'Ġ', 'b']);
  json.pre_tokenizer.pretokenizers[0] = split(HOSTILE);
  await assert.rejects(loadTokenizer({ 'tokenizer.json': asFile(json) }), {
    message:
      "loadTokenizer: tokenizer.json: pre_tokenizer.pretokenizers[0].pattern.Regex '(a+)+$' can take exponential time on some texts ('a+' is repeated inside '(a+)+'): refused",
  });
  // trustPatterns is the caller's: with the analysis loaded it still skips it
  assert.ok(await loadTokenizer({ 'tokenizer.json': asFile(json) }, { trustPatterns: true }));

  const A = await init({ wasmBinary: readFileSync(new URL('../../dist/attention_wasm.wasm', import.meta.url)) });
  const model = await A.loadPretrained(await folderWith(UNKNOWN));
  model.dispose();
  await assert.rejects(A.loadPretrained(await folderWith('(x+x+)+y')), {
    message:
      /^loadPretrained: tokenizer\.json: normalizer\.normalizers\[1\]\.pattern\.Regex '\(x\+x\+\)\+y' can take exponential time/,
  });
});

test('the sizes: the analysis is what the message says (gzip -9), the list of checked patterns a few KB', () => {
  const gzip = (file) => gzipSync(readFileSync(new URL(`../../dist/${file}`, import.meta.url)), { level: 9 }).length;
  const analysis = gzip('tokenizer-check.js') + gzip('regex-analysis.js');
  const stated = Number(/^(\d+) KB gzip$/.exec(ANALYSIS_SIZE)[1]) * 1000;
  assert.ok(
    Math.abs(analysis - stated) <= 0.1 * stated,
    `the analysis is ${analysis} bytes gzip, the message says ${ANALYSIS_SIZE}`,
  );
  assert.ok(gzip('checked-patterns.js') < 5000, `checked-patterns.js: ${gzip('checked-patterns.js')} bytes gzip`);
});
