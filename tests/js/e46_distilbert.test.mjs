// Document 004, E4.6 with the real distilbert-base-uncased: every number the document prints, at the
// precision it prints it. Opt-in, since the weights cannot be downloaded here:
//
//   AW_DISTILBERT_DIR=/path/to/distilbert-base-uncased npm test
//
// (the Hugging Face folder: config.json, model.safetensors, tokenizer.json and/or vocab.txt).
// Without it that test is skipped, saying so. The same computation and assertions run on a tiny
// random DistilBERT against numbers from the float64 reference, so that a bug in this path shows
// up in every run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor, formatTensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import { loadFixture, S1, S2 } from './fixtures.mjs';
import { referenceEncoder } from './reference/index.mjs';
import { DOCUMENT, round2, e46, printedRows, assertE46 } from './e46.mjs';

const A = await library();

test(
  'E4.6 with the real distilbert-base-uncased: every printed number (AW_DISTILBERT_DIR)',
  {
    skip: process.env.AW_DISTILBERT_DIR
      ? false
      : 'set AW_DISTILBERT_DIR=/path/to/distilbert-base-uncased (a Hugging Face folder) to run it',
  },
  async () => {
    const model = await A.loadPretrained(process.env.AW_DISTILBERT_DIR);
    try {
      assert.equal(model.modelType, 'distilbert');
      const got = e46(model);
      const shown = (xs) => `[${xs.map(round2).join(', ')}]`;
      console.log('------------------- Embedding vectors for "bank" -------------------\n');
      console.log(`Learned embedding:                  ${shown(got.leBank)}`);
      console.log(`Transformer embedding (sentence 1): ${shown(got.s1Bank)}`);
      console.log(`Transformer embedding (sentence 2): ${shown(got.s2Bank)}`);
      assertE46(got, DOCUMENT);
    } finally {
      model.dispose();
    }
  },
);

test("E4.6 assertions on a tiny random DistilBERT against the float64 reference (the opt-in test's logic)", async () => {
  const fx = await loadFixture('distilbert-f32');
  const model = await A.loadPretrained(fx.dir);
  const tok = model.tokenizer;
  // the expected numbers, from the reference, printed as the document prints them
  const reference = (seq) =>
    referenceEncoder(
      { arch: 'distilbert', config: fx.config, weights: fx.weights },
      { inputIds: [tok.encode(seq).inputIds] },
    );
  const D = fx.config.dim,
    word = fx.weights.get('embeddings.word_embeddings.weight').data;
  const s1 = tok.encode(S1);
  const wordRows = (ids) =>
    new Tensor(Float32Array.from(ids.flatMap((id) => Array.from(word.subarray(id * D, (id + 1) * D)))), [
      ids.length,
      D,
    ]);
  const bankRow = (seq) => Array.from(reference(seq).lastHiddenState.subarray(11 * D, 11 * D + 5)).map(round2);
  const threshold = 100; // 14 x 18 values: summarised like the document's 14 x 768
  const expected = {
    tokens: DOCUMENT.tokens,
    leBank: Array.from(word.subarray(2924 * D, 2924 * D + 5)).map(round2),
    s1Bank: bankRow(S1),
    s2Bank: bankRow(S2),
    learnedEmbeddings: formatTensor(wordRows(s1.inputIds), { threshold }),
    lastHiddenState: formatTensor(
      new Tensor(Float32Array.from(reference(S1).lastHiddenState), [1, s1.inputIds.length, D]),
      {
        threshold,
      },
    ),
  };
  assertE46(e46(model), expected, { threshold });
  // and the assertions fail when a number is off by one printed digit
  const off = { ...expected, s2Bank: expected.s2Bank.map((x, i) => (i === 4 ? x + 0.01 : x)) };
  assert.throws(() => assertE46(e46(model), off, { threshold }), /s2Bank\[4\]/);
  const shifted = {
    ...expected,
    lastHiddenState: expected.lastHiddenState.replace(
      /(\d)\.(\d{4})/,
      (m, a, b) => `${a}.${String((Number(b) + 1) % 10000).padStart(4, '0')}`,
    ),
  };
  assert.throws(() => assertE46(e46(model), shifted, { threshold }), /lastHiddenState/);
  model.dispose();
});

test("the torch print: formatTensor reproduces the document's learned_embeddings from its corner values", () => {
  const want = printedRows(DOCUMENT.learnedEmbeddings)
    .filter((r) => r[0] !== '...')
    .map((r) => r.filter((x) => x !== '...').map(Number));
  const t = new Tensor(new Float32Array(14 * 768).fill(0.01), [14, 768]);
  [0, 1, 2, 11, 12, 13].forEach((r, i) =>
    [0, 1, 2, 765, 766, 767].forEach((c, j) => {
      t.data[r * 768 + c] = want[i][j];
    }),
  );
  assert.equal(String(t), DOCUMENT.learnedEmbeddings);
  assert.equal(formatTensor(t, { threshold: 2e4 }).includes('...'), false, 'not summarised below the threshold');
});
