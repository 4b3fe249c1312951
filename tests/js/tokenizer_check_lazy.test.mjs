// The Node entry point ('attention-wasm') registers the ReDoS analysis as a loader: importing the
// package does not import it (its ~12 MiB of resident memory would otherwise sit in every Node
// process that loads a model: docs/performance.md), and the first tokenizer.json with a pattern
// off the list imports it, so that Node callers still have every pattern analysed with nothing to
// import. This file imports only the Node entry point (node --test runs each file in its own
// process); tokenizer_patterns.test.mjs tests the analysis itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init, loadTokenizer } from 'attention-wasm';
import { hasPatternAnalysis } from '../../dist/tokenizer-patterns.js';
import { asFile, pipelineJson } from './fixtures/pipelines.mjs';
import { loadFixture } from './fixtures.mjs';

const split = (regex) => ({ type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false });

test('the Node entry point: the analysis is imported on the first pattern off the list, not before', async () => {
  assert.equal(hasPatternAnalysis(), false, 'importing the package does not import the analysis');
  // a model folder whose tokenizer has no pattern, and listed patterns, leave it unimported
  const A = await init();
  const fx = await loadFixture('distilbert-f32');
  (await A.loadPretrained(fx.files)).dispose();
  await loadTokenizer({ 'tokenizer.json': asFile(pipelineJson('llama3', ['How', 'Ġare'])) });
  // trustPatterns skips the analysis, so it is not imported for it either
  const json = pipelineJson('qwen2');
  json.pre_tokenizer.pretokenizers[0] = split('[\\p{Zs}\\t]+');
  await loadTokenizer({ 'tokenizer.json': asFile(json) }, { trustPatterns: true });
  assert.equal(hasPatternAnalysis(), false);
  // an unknown safe pattern: imported, analysed, loads
  assert.deepEqual((await loadTokenizer({ 'tokenizer.json': asFile(json) })).encode('a b').tokens, ['a', 'Ġ', 'b']);
  assert.equal(hasPatternAnalysis(), true);
  // a catastrophic one is refused as the analysis says
  json.pre_tokenizer.pretokenizers[0] = split('(a+)+$');
  await assert.rejects(loadTokenizer({ 'tokenizer.json': asFile(json) }), {
    message:
      "loadTokenizer: tokenizer.json: pre_tokenizer.pretokenizers[0].pattern.Regex '(a+)+$' can take exponential time on some texts ('a+' is repeated inside '(a+)+'): refused",
  });
});
