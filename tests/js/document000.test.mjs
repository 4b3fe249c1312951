// Document 000 ("Understanding and coding self-attention"), E0.1-E0.8, computed through the library
// from torch.manual_seed(123) onwards. The expected numbers are the document's printed output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import { assertPrinted } from './reference/index.mjs';

const A = await library();
const sentence = 'Life is short, eat dessert first';

// E0.1 / E0.2: Python's sorted() is code-point order (case-sensitive), like JS's default sort.
const words = sentence.replace(/,/g, '').split(/\s+/);
const dc = Object.fromEntries([...words].sort().map((s, i) => [s, i]));
const sentenceInt = words.map((s) => dc[s]);

function embeddedSentence() {
  A.manualSeed(123);
  const weight = A.randn(6, 16); // nn.Embedding(6, 16) initialises with normal_(0, 1)
  return A.embedding(sentenceInt, weight);
}

function weights() {
  A.manualSeed(123);
  return { W_query: A.rand(24, 16), W_key: A.rand(24, 16), W_value: A.rand(28, 16) };
}

test('E0.1 vocabulary and E0.2 sentence_int', () => {
  assert.deepEqual(dc, { Life: 0, dessert: 1, eat: 2, first: 3, is: 4, short: 5 });
  assert.deepEqual(sentenceInt, [0, 4, 5, 2, 1, 3]);
});

test('E0.3 embedded_sentence (6x16) at 4 decimals', () => {
  const x = embeddedSentence();
  assert.deepEqual(x.shape, [6, 16]);
  assertPrinted(
    x,
    [
      [
        0.3374, -0.1778, -0.3035, -0.588, 0.3486, 0.6603, -0.2196, -0.3792, 0.7671, -1.1925, 0.6984, -1.4097, 0.1794,
        1.8951, 0.4954, 0.2692,
      ],
      [
        0.5146, 0.9938, -0.2587, -1.0826, -0.0444, 1.6236, -2.3229, 1.0878, 0.6716, 0.6933, -0.9487, -0.0765, -0.1526,
        0.1167, 0.4403, -1.4465,
      ],
      [
        0.2553, -0.5496, 1.0042, 0.8272, -0.3948, 0.4892, -0.2168, -1.7472, -1.6025, -1.0764, 0.9031, -0.7218, -0.5951,
        -0.7112, 0.623, -1.3729,
      ],
      [
        -1.325, 0.1784, -2.1338, 1.0524, -0.3885, -0.9343, -0.4991, -1.0867, 0.8805, 1.5542, 0.6266, -0.1755, 0.0983,
        -0.0935, 0.2662, -0.585,
      ],
      [
        -0.077, -1.0205, -0.169, 0.9178, 1.581, 1.301, 1.2753, -0.201, 0.4965, -1.5723, 0.9666, -1.1481, -1.1589,
        0.3255, -0.6315, -2.84,
      ],
      [
        0.8768, 1.6221, -1.4779, 1.1331, -1.2203, 1.3139, 1.0533, 0.1388, 2.2473, -0.8036, -0.2808, 0.7697, -0.6596,
        -0.7979, 0.1838, 0.2293,
      ],
    ],
    4,
    'embedded_sentence',
  );
  // and printed exactly as torch prints it (first line)
  assert.match(
    x.toString(),
    /^tensor\(\[\[ 0\.3374, -0\.1778, -0\.3035, -0\.5880,  0\.3486,  0\.6603, -0\.2196, -0\.3792,\n/,
  );
});

test('E0.4 / E0.5 projections of x_2 and all keys and values: shapes', () => {
  const x = embeddedSentence();
  const { W_query, W_key, W_value } = weights();
  const x2 = new Tensor(x.data.slice(16, 32), [16]);
  assert.deepEqual(A.matmul(W_query, x2).shape, [24]);
  assert.deepEqual(A.matmul(W_key, x2).shape, [24]);
  assert.deepEqual(A.matmul(W_value, x2).shape, [28]);
  // keys = W_key.matmul(embedded_sentence.T).T == linear(embedded_sentence, W_key)
  assert.deepEqual(A.linear(x, W_key).shape, [6, 24]);
  assert.deepEqual(A.linear(x, W_value).shape, [6, 28]);
});

test('E0.6-E0.8 omega_2, attention weights, context_vector_2 at 4 decimals', () => {
  const x = embeddedSentence();
  const { W_query, W_key, W_value } = weights();
  const x2 = new Tensor(x.data.slice(16, 32), [16]);
  const query2 = A.matmul(W_query, x2);
  const keys = A.linear(x, W_key);
  const values = A.linear(x, W_value);

  const omega24 = A.matmul(query2, new Tensor(keys.data.slice(4 * 24, 5 * 24), [24]));
  assert.deepEqual(omega24.shape, []);
  assertPrinted(omega24, [11.1466], 4, 'omega_24');
  assert.equal(omega24.toString(), 'tensor(11.1466)');

  const omega2 = A.matmul(keys, query2); // query_2.matmul(keys.T)
  assertPrinted(omega2, [8.5808, -7.6597, 3.2558, 1.0395, 11.1466, -0.48], 4, 'omega_2');

  const attn = A.softmax(
    new Tensor(
      omega2.data.map((w) => w / Math.sqrt(24)),
      [6],
    ),
    { dim: 0 },
  );
  assertPrinted(attn, [0.2912, 0.0106, 0.0982, 0.0625, 0.4917, 0.0458], 4, 'attention_weights_2');

  const context = A.matmul(attn, values);
  assert.deepEqual(context.shape, [28]);
  const expected = [
    -1.5993, 0.0156, 1.267, 0.0032, -0.646, -1.1407, -0.4908, -1.4632, 0.4747, 1.1926, 0.4506, -0.711, 0.0602, 0.7125,
    -0.1628, -2.0184, 0.3838, -2.1188, -0.8136, -1.5694, 0.7934, -0.2911, -1.364, -0.2366, -0.9564, -0.5265, 0.0624,
    1.7084,
  ];
  assertPrinted(context, expected, 4, 'context_vector_2');

  // The same context through one call of scaled dot-product attention (default scale 1/sqrt(24)).
  const queries = A.linear(x, W_query);
  const { output, weights: w } = A.scaledDotProductAttention(queries, keys, values, { returnWeights: true });
  assertPrinted(output.data.slice(28, 56), expected, 4, 'sdpa output row 2');
  assertPrinted(w.data.slice(6, 12), [0.2912, 0.0106, 0.0982, 0.0625, 0.4917, 0.0458], 4, 'sdpa weights row 2');
});
