// Seed 004, E4.6 with the real distilbert-base-uncased: every number the document prints, at the
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
import { referenceEncoder } from './encoder_reference.mjs';

const A = await library();

// What the document prints (seed 004, sections 4.1, 4.6, 4.7, 4.8).
const DOCUMENT = {
  tokens: ['[CLS]', 'write', 'a', 'poem', 'about', 'a', 'man', 'fishing', 'on', 'a', 'river', 'bank', '.', '[SEP]'],
  leBank: [-0.03, -0.06, -0.09, -0.07, -0.03],
  s1Bank: [0.15, -0.16, -0.17, -0.08, 0.44],
  s2Bank: [0.27, -0.23, -0.23, -0.21, 0.79],
  learnedEmbeddings: `tensor([[ 0.0390, -0.0123, -0.0208,  ...,  0.0607,  0.0230,  0.0238],
        [-0.0300, -0.0070, -0.0247,  ...,  0.0203, -0.0566, -0.0264],
        [ 0.0062,  0.0100,  0.0071,  ..., -0.0043, -0.0132,  0.0166],
        ...,
        [-0.0261, -0.0571, -0.0934,  ..., -0.0351, -0.0396, -0.0389],
        [-0.0244, -0.0138, -0.0078,  ...,  0.0069,  0.0057, -0.0016],
        [-0.0199, -0.0095, -0.0099,  ..., -0.0235,  0.0071, -0.0071]])`,
  lastHiddenState: `tensor([[[-0.0957, -0.2030, -0.5024,  ...,  0.0490,  0.3114,  0.1348],
         [ 0.4535,  0.5324, -0.2670,  ...,  0.0583,  0.2880, -0.4577],
         [-0.1893,  0.1717, -0.4159,  ..., -0.2230, -0.2225,  0.0207],
         ...,
         [ 0.1536, -0.1616, -0.1735,  ..., -0.3608, -0.3879, -0.1812],
         [-0.0182, -0.4264, -0.6702,  ...,  0.3213,  0.5881, -0.5163],
         [ 0.7911,  0.2633, -0.4892,  ..., -0.2303, -0.6364, -0.3311]]])`,
};

// Python's round(x, 2) (away from ties, which float data does not hit)
const round2 = (x) => Math.round(x * 100) / 100;

/**
 * E4.6 computed with the library, step by step as the document's Python:
 *   extract_le(seq)[i] = model.embeddings.word_embeddings(tokenizer(seq).input_ids)[0][i], rounded
 *   extract_te(seq)[i] = model(**tokenizer(seq)).last_hidden_state[0][i], rounded
 * Unrounded values are kept too, so that the comparison can allow for the printed rounding.
 */
function e46(model) {
  const tok = model.tokenizer;
  const le = (seq) => model.wordEmbeddings(tok.encode(seq).ids);           // [L, dim]
  const te = (seq) => model.forward(tok.encode(seq)).lastHiddenState;     // [1, L, dim]
  const row = (t, i) => Array.from(t.data.subarray(i * t.shape.at(-1), (i + 1) * t.shape.at(-1)));
  const s1 = tok.encode(S1);
  return {
    tokens: s1.tokens,
    leBank: row(le('bank'), 1).slice(0, 5),
    s1Bank: row(te(S1), 11).slice(0, 5),
    s2Bank: row(te(S2), 11).slice(0, 5),
    learnedEmbeddings: model.wordEmbeddings(s1.ids),
    lastHiddenState: model.forward(s1).lastHiddenState,
  };
}

/** The numbers of a printed tensor, row by row ('...' kept as a marker). */
function printedRows(text) {
  return text.split('\n').map((line) => line.match(/-?\d+\.\d+|\.\.\./g) ?? []);
}

/**
 * Asserts what `e46` computed against printed numbers: the token list exactly; the three bank
 * lines to 2 decimals and the tensors' corners to 4, each value within half a unit of the last
 * printed digit (plus float32 noise) of the printed one; and the tensors printed as torch prints
 * them (summarised, the same rows and `...` in the same places). `threshold`: torch's summarising
 * threshold (1000; lower for a tiny model, so that its print is summarised too).
 */
function assertE46(got, expected, { threshold = 1000 } = {}) {
  assert.deepEqual(got.tokens, expected.tokens, 'tokens');
  assert.equal(got.tokens.indexOf('bank'), 11);
  for (const line of ['leBank', 's1Bank', 's2Bank']) {
    got[line].forEach((x, i) => assert.ok(Math.abs(x - expected[line][i]) <= 0.005 + 1e-6,
      `${line}[${i}]: ${x} prints as ${round2(x)}, the document ${expected[line][i]}`));
  }
  for (const name of ['learnedEmbeddings', 'lastHiddenState']) {
    const t = got[name];
    const printed = formatTensor(t, { threshold });
    const want = printedRows(expected[name]), have = printedRows(printed);
    assert.equal(have.length, want.length, `${name}: ${have.length} printed lines, expected ${want.length}:\n${printed}`);
    // the corners: rows 0..2 and L-3..L-1, columns 0..2 and dim-3..dim-1
    const [L, D] = t.shape.slice(-2);
    const rows = [0, 1, 2, null, L - 3, L - 2, L - 1], cols = [0, 1, 2, null, D - 3, D - 2, D - 1];
    rows.forEach((r, line) => {
      if (r === null) return assert.deepEqual(want[line], ['...'], `${name}: line ${line} is '...'`);
      assert.equal(have[line].length, 7, `${name} line ${line}: ${have[line].join(' ')}`);
      cols.forEach((c, j) => {
        if (c === null) return assert.equal(want[line][j], '...');
        const x = t.data[r * D + c];
        assert.ok(Math.abs(x - Number(want[line][j])) <= 0.00005 + 1e-6, `${name}[${r}][${c}] = ${x} prints as ${x.toFixed(4)}, expected ${want[line][j]}`);
        assert.equal(have[line][j], x.toFixed(4));
      });
    });
  }
}

test('E4.6 with the real distilbert-base-uncased: every printed number (AW_DISTILBERT_DIR)', {
  skip: process.env.AW_DISTILBERT_DIR ? false : 'set AW_DISTILBERT_DIR=/path/to/distilbert-base-uncased (a Hugging Face folder) to run it',
}, async () => {
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
});

test('E4.6 assertions on a tiny random DistilBERT against the float64 reference (the opt-in test\'s logic)', async () => {
  const fx = await loadFixture('distilbert-f32');
  const model = await A.loadPretrained(fx.dir);
  const tok = model.tokenizer;
  // the expected numbers, from the reference, printed as the document prints them
  const reference = (seq) => referenceEncoder({ arch: 'distilbert', config: fx.config, weights: fx.weights }, { inputIds: [tok.encode(seq).ids] });
  const D = fx.config.dim, word = fx.weights.get('embeddings.word_embeddings.weight').data;
  const s1 = tok.encode(S1);
  const wordRows = (ids) => new Tensor(Float32Array.from(ids.flatMap((id) => Array.from(word.subarray(id * D, (id + 1) * D)))), [ids.length, D]);
  const bankRow = (seq) => Array.from(reference(seq).lastHiddenState.subarray(11 * D, 11 * D + 5)).map(round2);
  const threshold = 100;  // 14 x 18 values: summarised like the document's 14 x 768
  const expected = {
    tokens: DOCUMENT.tokens,
    leBank: Array.from(word.subarray(2924 * D, 2924 * D + 5)).map(round2),
    s1Bank: bankRow(S1),
    s2Bank: bankRow(S2),
    learnedEmbeddings: formatTensor(wordRows(s1.ids), { threshold }),
    lastHiddenState: formatTensor(new Tensor(Float32Array.from(reference(S1).lastHiddenState), [1, s1.ids.length, D]), { threshold }),
  };
  assertE46(e46(model), expected, { threshold });
  // and the assertions fail when a number is off by one printed digit
  const off = { ...expected, s2Bank: expected.s2Bank.map((x, i) => (i === 4 ? x + 0.01 : x)) };
  assert.throws(() => assertE46(e46(model), off, { threshold }), /s2Bank\[4\]/);
  const shifted = { ...expected, lastHiddenState: expected.lastHiddenState.replace(/(\d)\.(\d{4})/, (m, a, b) => `${a}.${String((Number(b) + 1) % 10000).padStart(4, '0')}`) };
  assert.throws(() => assertE46(e46(model), shifted, { threshold }), /lastHiddenState/);
  model.dispose();
});

test("the torch print: formatTensor reproduces the document's learned_embeddings from its corner values", () => {
  const want = printedRows(DOCUMENT.learnedEmbeddings).filter((r) => r[0] !== '...').map((r) => r.filter((x) => x !== '...').map(Number));
  const t = new Tensor(new Float32Array(14 * 768).fill(0.01), [14, 768]);
  [0, 1, 2, 11, 12, 13].forEach((r, i) => [0, 1, 2, 765, 766, 767].forEach((c, j) => { t.data[r * 768 + c] = want[i][j]; }));
  assert.equal(String(t), DOCUMENT.learnedEmbeddings);
  assert.equal(formatTensor(t, { threshold: 2e4 }).includes('...'), false, 'not summarised below the threshold');
});
