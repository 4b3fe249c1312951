// The README's E4.6 program (the block that starts with `// e46.mjs`) runs as written: here on a
// tiny random DistilBERT folder, so its numbers are those of the library's own calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { library } from './helpers.mjs';
import { loadFixture, S1 } from './fixtures.mjs';

test("README: the E4.6 Node program prints the three 'bank' lines", async () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const program = readme.match(/```js\n(\/\/ e46\.mjs[\s\S]*?)```/)?.[1];
  assert.ok(program, 'README has the e46.mjs block');
  const dir = fileURLToPath(new URL('../../build/readme/', import.meta.url)); // inside the package: 'attention-wasm' resolves to it
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}e46.mjs`, program);
  const fx = await loadFixture('distilbert-f32');
  const lines = execFileSync(process.execPath, [`${dir}e46.mjs`, fx.dir], { encoding: 'utf8' })
    .trim()
    .split('\n');
  assert.equal(lines[0], '------------------- Embedding vectors for "bank" -------------------');
  const numbers = (line) => JSON.parse(line.slice(line.indexOf('[')));
  assert.match(lines[2], /^Learned embedding: {18}\[/);
  assert.match(lines[3], /^Transformer embedding \(sentence 1\): \[/);
  assert.match(lines[4], /^Transformer embedding \(sentence 2\): \[/);
  const A = await library();
  const model = await A.loadPretrained(fx.dir);
  const D = model.hiddenSize,
    round = (x) => Math.round(x * 100) / 100;
  assert.deepEqual(numbers(lines[2]), Array.from(model.wordEmbeddings([2924]).data.subarray(0, 5), round));
  const te = model.forward(model.tokenizer.encode(S1)).lastHiddenState.data;
  assert.deepEqual(numbers(lines[3]), Array.from(te.subarray(11 * D, 11 * D + 5), round));
  model.dispose();
});
