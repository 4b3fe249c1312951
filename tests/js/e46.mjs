// Document 004, E4.6: what the document prints, E4.6 computed with the library step by step as the
// document's Python, and the assertions that compare the two. Shared by the Node test
// (tests/js/e46_distilbert.test.mjs) and the page's test in Chromium (tests/web/encoder.test.mjs),
// so that both hold the library and the page to the same numbers.
import assert from 'node:assert/strict';
import { formatTensor } from 'attention-wasm';
import { S1, S2 } from './fixtures.mjs';

// What the document prints (document 004, sections 4.1, 4.6, 4.7, 4.8).
export const DOCUMENT = {
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
export const round2 = (x) => Math.round(x * 100) / 100;

/**
 * E4.6 computed with the library, step by step as the document's Python:
 *   extract_le(seq)[i] = model.embeddings.word_embeddings(tokenizer(seq).input_ids)[0][i], rounded
 *   extract_te(seq)[i] = model(**tokenizer(seq)).last_hidden_state[0][i], rounded
 * Unrounded values are kept too, so that the comparison can allow for the printed rounding.
 * `forwardOptions`: model.forward's options, as the caller being checked passes them (the page's
 * worker asks for the attentions too, whose materialised softmax rounds differently from the
 * fused one in the last float32 bits).
 */
export function e46(model, forwardOptions) {
  const tok = model.tokenizer;
  const le = (seq) => model.wordEmbeddings(tok.encode(seq).inputIds); // [L, dim]
  const te = (seq) => model.forward(tok.encode(seq), forwardOptions).lastHiddenState; // [1, L, dim]
  const row = (t, i) => Array.from(t.data.subarray(i * t.shape.at(-1), (i + 1) * t.shape.at(-1)));
  const s1 = tok.encode(S1);
  return {
    tokens: s1.tokens,
    leBank: row(le('bank'), 1).slice(0, 5),
    s1Bank: row(te(S1), 11).slice(0, 5),
    s2Bank: row(te(S2), 11).slice(0, 5),
    learnedEmbeddings: model.wordEmbeddings(s1.inputIds),
    lastHiddenState: model.forward(s1, forwardOptions).lastHiddenState,
  };
}

/** The numbers of a printed tensor, row by row ('...' kept as a marker). */
export function printedRows(text) {
  return text.split('\n').map((line) => line.match(/-?\d+\.\d+|\.\.\./g) ?? []);
}

/**
 * Asserts what `e46` computed against printed numbers: the token list exactly; the three bank
 * lines to 2 decimals and the tensors' corners to 4, each value within half a unit of the last
 * printed digit (plus float32 noise) of the printed one; and the tensors printed as torch prints
 * them (summarised, the same rows and `...` in the same places). `threshold`: torch's summarising
 * threshold (1000; lower for a tiny model, so that its print is summarised too).
 */
export function assertE46(got, expected, { threshold = 1000 } = {}) {
  assert.deepEqual(got.tokens, expected.tokens, 'tokens');
  assert.equal(got.tokens.indexOf('bank'), 11);
  for (const line of ['leBank', 's1Bank', 's2Bank']) {
    got[line].forEach((x, i) =>
      assert.ok(
        Math.abs(x - expected[line][i]) <= 0.005 + 1e-6,
        `${line}[${i}]: ${x} prints as ${round2(x)}, the document ${expected[line][i]}`,
      ),
    );
  }
  for (const name of ['learnedEmbeddings', 'lastHiddenState']) {
    const t = got[name];
    const printed = formatTensor(t, { threshold });
    const want = printedRows(expected[name]),
      have = printedRows(printed);
    assert.equal(
      have.length,
      want.length,
      `${name}: ${have.length} printed lines, expected ${want.length}:\n${printed}`,
    );
    // the corners: rows 0..2 and L-3..L-1, columns 0..2 and dim-3..dim-1
    const [L, D] = t.shape.slice(-2);
    const rows = [0, 1, 2, null, L - 3, L - 2, L - 1],
      cols = [0, 1, 2, null, D - 3, D - 2, D - 1];
    rows.forEach((r, line) => {
      if (r === null) return assert.deepEqual(want[line], ['...'], `${name}: line ${line} is '...'`);
      assert.equal(have[line].length, 7, `${name} line ${line}: ${have[line].join(' ')}`);
      cols.forEach((c, j) => {
        if (c === null) return assert.equal(want[line][j], '...');
        const x = t.data[r * D + c];
        assert.ok(
          Math.abs(x - Number(want[line][j])) <= 0.00005 + 1e-6,
          `${name}[${r}][${c}] = ${x} prints as ${x.toFixed(4)}, expected ${want[line][j]}`,
        );
        assert.equal(have[line][j], x.toFixed(4));
      });
    });
  }
}

/** Python's repr of a float (round2's results): -0.03, 0.15, 1.0, -0.0. */
const pyRepr = (x) => (Object.is(x, -0) ? '-0.0' : Number.isInteger(x) ? x.toFixed(1) : String(x));

/**
 * E4.6's printed output as text: the three lines of its print block (Python lists of the first 5
 * values, round(x, 2)), the token list, and learned_embeddings / last_hidden_state as torch
 * prints them. `values`: e46(model)'s result, or DOCUMENT (whose numbers are already rounded and
 * whose tensors are already text).
 */
export function printedE46(values) {
  const list = (xs) => `[${xs.map((x) => pyRepr(round2(x))).join(', ')}]`;
  return {
    tokens: values.tokens,
    lines: [
      `Learned embedding:                  ${list(values.leBank)}`,
      `Transformer embedding (sentence 1): ${list(values.s1Bank)}`,
      `Transformer embedding (sentence 2): ${list(values.s2Bank)}`,
    ],
    learnedEmbeddings: String(values.learnedEmbeddings),
    lastHiddenState: String(values.lastHiddenState),
  };
}
