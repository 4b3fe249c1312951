// The README's E4.6 program (the block that starts with `// e46.mjs`) runs as written: here on a
// tiny random DistilBERT folder, so its numbers are those of the library's own calls. So does the
// causal-LM program (`// generate.mjs`), on the tiny random GPT-2 folder, its text and attention
// computed here without the cache. So do the
// programs of docs/api-helpers.md (E0.9 with the tensor helpers; a head's top tokens and a cosine
// similarity on the same tiny folder), their numbers computed here another way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { library } from './helpers.mjs';
import { loadFixture, S1, S2 } from './fixtures.mjs';
import { softmaxRow } from './reference/index.mjs';
import { E0 } from '../web/oracles.mjs';

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
  for (const [line, sentence] of [
    [lines[3], S1],
    [lines[4], S2],
  ]) {
    const encoded = model.tokenizer.encode(sentence);
    const bank = encoded.tokens.indexOf('bank');
    assert.ok(bank > 0, `'bank' is a token of ${sentence}`);
    const te = model.forward(encoded).lastHiddenState.data;
    assert.deepEqual(numbers(line), Array.from(te.subarray(bank * D, bank * D + 5), round), sentence);
  }
  model.dispose();
});

/** The ```js block of a document (path from the repository root) that starts with `// name`. */
function documentProgram(path, name) {
  const text = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  const program = text.match(new RegExp(`\`\`\`js\\n(// ${name.replace('.', '\\.')}[\\s\\S]*?)\`\`\``))?.[1];
  assert.ok(program, `${path} has the ${name} block`);
  return program;
}

/** Runs a program as a file of the package (so that 'attention-wasm' resolves), what it prints. */
function runProgramOutput(name, program, ...args) {
  const dir = fileURLToPath(new URL('../../build/readme/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}`, program);
  return execFileSync(process.execPath, [`${dir}${name}`, ...args], { encoding: 'utf8' });
}

/** Runs a program as a file of the package, its printed lines. */
const runProgram = (name, program, ...args) =>
  runProgramOutput(name, program, ...args)
    .trim()
    .split('\n');

/** The numbers of a printed tensor, each with half a unit of its last printed digit (4 decimals, or 4 in a mantissa). */
const printedNumbers = (text) =>
  Array.from(text.matchAll(/-?\d+\.\d+(?:e([+-]\d+))?/g), (m) => ({
    value: Number(m[0]),
    half: 0.5e-4 * 10 ** Number(m[1] ?? 0),
  }));

test("docs/api-helpers.md: the E0.9 program prints the document's shapes and the context of x_2 (float64)", async () => {
  const lines = runProgram('e09.mjs', documentProgram('docs/api-helpers.md', 'e09.mjs'));
  // the document's lines but stacked_inputs' shape: A.matmul broadcasts x.T where torch.bmm needs repeat(3, 1, 1)
  assert.deepEqual(
    lines.slice(0, 5),
    E0['E0.9.shapes'].filter((line) => line !== 'torch.Size([3, 16, 6])'),
  );
  // the 3 x 28 context, from the definitions in float64 over the same float32 inputs: for head h,
  // q = W^q_h x_2, k_j = W^k_h x_j, v_j = W^v_h x_j, w = softmax(q . k_j / sqrt(24)), z = sum w_j v_j
  const A = await library();
  A.manualSeed(123);
  const x = A.embedding([0, 4, 5, 2, 1, 3], A.randn(6, 16)).data;
  A.manualSeed(123);
  A.rand(24, 16);
  A.rand(24, 16);
  A.rand(28, 16);
  const [wq, wk, wv] = [A.rand(3, 24, 16).data, A.rand(3, 24, 16).data, A.rand(3, 28, 16).data];
  const project = (w, h, rows, j) =>
    Array.from({ length: rows }, (_, r) => {
      let s = 0;
      for (let c = 0; c < 16; c++) s += w[(h * rows + r) * 16 + c] * x[j * 16 + c];
      return s;
    });
  const want = [];
  for (let h = 0; h < 3; h++) {
    const q = project(wq, h, 24, 1);
    const scores = [0, 1, 2, 3, 4, 5].map(
      (j) => project(wk, h, 24, j).reduce((s, k, i) => s + k * q[i], 0) / Math.sqrt(24),
    );
    const weights = softmaxRow(scores);
    const z = new Array(28).fill(0);
    for (let j = 0; j < 6; j++) project(wv, h, 28, j).forEach((v, i) => (z[i] += weights[j] * v));
    want.push(...z);
  }
  const printed = printedNumbers(lines.slice(5).join('\n'));
  assert.match(lines[5], /^tensor\(\[\[/);
  assert.equal(printed.length, 3 * 28);
  printed.forEach(({ value, half }, i) =>
    assert.ok(Math.abs(value - want[i]) <= half + 1e-5 * Math.abs(want[i]), `context [${i}]: ${value} vs ${want[i]}`),
  );
});

test("docs/api-helpers.md: the pretrained-model program prints a head's top-3 tokens and a cosine similarity", async () => {
  const fx = await loadFixture('distilbert-f32');
  const lines = runProgram('neighbours.mjs', documentProgram('docs/api-helpers.md', 'neighbours.mjs'), fx.dir);
  // the same numbers from the model's flat outputs: attentions[l] is [1, heads, L, L], head 0 first
  const A = await library();
  const model = await A.loadPretrained(fx.dir);
  const enc = model.tokenizer.encode('Write a poem about a man fishing on a river bank.');
  const L = enc.inputIds.length,
    bank = enc.tokens.indexOf('bank');
  const attention = model.forward(enc, { outputAttentions: true }).attentions[model.numLayers - 1].data;
  const row = Array.from(attention.subarray(bank * L, (bank + 1) * L));
  const order = row.map((_, j) => j).sort((a, b) => row[b] - row[a] || a - b);
  assert.equal(
    lines[0],
    `"bank" attends most to: ${order
      .slice(0, 3)
      .map((j) => enc.tokens[j])
      .join(' ')}`,
  );
  const printed = printedNumbers(lines.slice(1, -1).join('\n'));
  assert.deepEqual(printed.length, 3);
  printed.forEach(({ value, half }, r) => assert.ok(Math.abs(value - row[order[r]]) <= half + 1e-7, `top ${r}`));
  // cosine similarity of the two mean-pooled embeddings, float64
  const e = model.embed(['a man fishing on a river bank', 'a man withdrawing money from a bank']);
  const D = model.hiddenSize,
    u = e.data.subarray(0, D),
    v = e.data.subarray(D);
  const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
  const cosine = dot(u, v) / (Math.sqrt(dot(u, u)) * Math.sqrt(dot(v, v)));
  assert.ok(Math.abs(Number(lines.at(-1)) - cosine) <= 0.5e-4 + 1e-6, `${lines.at(-1)} vs ${cosine}`);
  model.dispose();
});

test("README: the causal-LM program streams the greedy completion and its last token's top-3 attention (gpt2-tiny)", async () => {
  const program = documentProgram('README.md', 'generate.mjs');
  const prompt = program.match(/const prompt = '([^']*)'/)?.[1];
  const maxNewTokens = Number(program.match(/maxNewTokens: (\d+)/)?.[1]);
  assert.ok(prompt && maxNewTokens > 0, 'the program has a prompt and maxNewTokens');
  const fx = await loadFixture('gpt2-tiny');
  const printed = runProgramOutput('generate.mjs', program, fx.dir);

  // greedy decoding with a full forward per token (no cache): the first largest logit of the last row
  const A = await library();
  const lm = await A.loadPretrained(fx.dir);
  const V = lm.config.vocabSize,
    eos = [lm.eosTokenId].flat();
  const encoded = lm.tokenizer.encode(prompt);
  const ids = Array.from(encoded.inputIds),
    newIds = [];
  while (newIds.length < maxNewTokens && !eos.includes(newIds.at(-1))) {
    const logits = lm.forward(ids).logits.data.subarray((ids.length - 1) * V);
    let best = 0;
    for (let v = 1; v < V; v++) if (logits[v] > logits[best]) best = v;
    ids.push(best);
    newIds.push(best);
  }
  const text = lm.tokenizer.decode(newIds, { skipSpecialTokens: true });
  assert.ok(
    printed.startsWith(`${text}\n`),
    `the streamed text ${JSON.stringify(printed)} starts with ${JSON.stringify(text)}`,
  );
  const lines = printed
    .slice(text.length + 1)
    .trimEnd()
    .split('\n');
  assert.equal(lines.length, 2);

  // the last token's row of head 0 in the last layer of a full forward over the final sequence
  const S = ids.length,
    layer = lm.config.numLayers - 1;
  const attention = lm.forward(ids, { outputAttentions: true }).attentions[layer]; // [1, heads, S, S]
  const row = Array.from(attention.data.subarray((S - 1) * S, S * S)); // head 0, row S - 1
  const order = row.map((_, j) => j).sort((a, b) => row[b] - row[a] || a - b);
  const pieces = [...encoded.tokens, ...newIds.map((id) => lm.tokenizer.idToToken(id))];
  assert.equal(
    lines[0],
    `${pieces[S - 1]} attends most to: ${order
      .slice(0, 3)
      .map((j) => pieces[j])
      .join(' ')}`,
  );
  const values = printedNumbers(lines[1]);
  assert.match(lines[1], /^tensor\(\[/);
  assert.equal(values.length, 3);
  values.forEach(({ value, half }, r) =>
    assert.ok(Math.abs(value - row[order[r]]) <= half + 1e-6, `top ${r}: ${value} vs ${row[order[r]]}`),
  );
  lm.dispose();
});
