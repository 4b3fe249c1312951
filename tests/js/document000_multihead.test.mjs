// Document 000 ("Understanding and coding self-attention"), E0.9 (multi-head) and E0.10
// (cross-attention), computed completely through the library from torch.manual_seed(123). The
// document prints only shapes here, so the values are checked against an independent float64
// computation (plain JS doubles over the same float32 inputs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import { assertNear, matmulFlat, softmaxRow } from './reference/index.mjs';

const A = await library();

/** torch's t.transpose(-2, -1) (also `.T` of a matrix and `.permute(0, 2, 1)` of a 3-D tensor). */
function transpose(t) {
  const [r, c] = t.shape.slice(-2),
    batch = t.data.length / (r * c);
  const out = new Float32Array(t.data.length);
  for (let b = 0; b < batch; b++)
    for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) out[b * r * c + j * r + i] = t.data[b * r * c + i * c + j];
  return new Tensor(out, [...t.shape.slice(0, -2), c, r]);
}

function embeddedSentence() {
  // E0.3: nn.Embedding(6, 16) after torch.manual_seed(123)
  A.manualSeed(123);
  return A.embedding([0, 4, 5, 2, 1, 3], A.randn(6, 16));
}

/** float64: softmax(q k^T / sqrt(d_k)) v for one query row q (d_k), keys (S, d_k), values (S, d_v). */
function context64(q, keys, values, S, dk, dv) {
  const scores = Array.from(
    matmulFlat(Float64Array.from(keys), Float64Array.from(q), S, dk, 1),
    (s) => s / Math.sqrt(dk),
  );
  return matmulFlat(Float64Array.from(softmaxRow(scores)), Float64Array.from(values), 1, S, dv);
}

test('E0.9 multi-head: per-head query (3, 24), keys (3, 6, 24), values (3, 6, 28), 3 x 28 context of x_2', () => {
  const x = embeddedSentence();
  // --- the document's multi-head steps, as a user writes them with the library ---
  A.manualSeed(123);
  A.rand(24, 16);
  A.rand(24, 16);
  A.rand(28, 16); // W_query, W_key, W_value (single head)
  const mWq = A.rand(3, 24, 16),
    mWk = A.rand(3, 24, 16),
    mWv = A.rand(3, 28, 16); // h = 3
  const x2 = new Tensor(x.data.slice(16, 32), [16]); // x_2 = embedded_sentence[1]
  const query2 = A.matmul(mWq, x2); // (3, 24)
  const keys = transpose(A.matmul(mWk, transpose(x))); // bmm((3, 24, 16), (16, 6)).permute(0, 2, 1): (3, 6, 24)
  const values = transpose(A.matmul(mWv, transpose(x))); // (3, 6, 28)
  const { output } = A.scaledDotProductAttention(new Tensor(query2.data, [3, 1, 24]), keys, values); // scale 1/sqrt(24)
  const context = new Tensor(output.data, [3, 28]); // one 28-vector per head
  // ---
  assert.deepEqual(query2.shape, [3, 24]);
  assert.deepEqual(A.matmul(mWk, transpose(x)).shape, [3, 24, 6]); // multihead_keys.shape before permute
  assert.deepEqual(A.matmul(mWv, transpose(x)).shape, [3, 28, 6]);
  assert.deepEqual(keys.shape, [3, 6, 24]);
  assert.deepEqual(values.shape, [3, 6, 28]);
  assert.deepEqual(output.shape, [3, 1, 28]);

  // float64, straight from the definitions: for head h, q_h = W^q_h x_2, k_h,j = W^k_h x_j, ...
  const X = Float64Array.from(x.data);
  const expected = [];
  for (let h = 0; h < 3; h++) {
    const wq = Float64Array.from(mWq.data.subarray(h * 384, (h + 1) * 384));
    const wk = Float64Array.from(mWk.data.subarray(h * 384, (h + 1) * 384));
    const wv = Float64Array.from(mWv.data.subarray(h * 448, (h + 1) * 448));
    const q = matmulFlat(wq, X.subarray(16, 32), 24, 16, 1);
    const k = matmulFlat(X, Float64Array.from(transpose(new Tensor(Float32Array.from(wk), [24, 16])).data), 6, 16, 24);
    const v = matmulFlat(X, Float64Array.from(transpose(new Tensor(Float32Array.from(wv), [28, 16])).data), 6, 16, 28);
    assertNear(
      { data: query2.data.subarray(h * 24, (h + 1) * 24), shape: [24] },
      { data: q, shape: [24] },
      `query head ${h}`,
    );
    assertNear(
      { data: keys.data.subarray(h * 144, (h + 1) * 144), shape: [6, 24] },
      { data: k, shape: [6, 24] },
      `keys head ${h}`,
    );
    expected.push(...context64(q, k, v, 6, 24, 28));
  }
  assertNear(context, { data: expected, shape: [3, 28] }, 'context of x_2');
  // The heads differ from each other (different weights).
  assert.ok(Math.abs(context.get(0, 0) - context.get(1, 0)) > 1e-3);
});

test('E0.10 cross-attention: embedded_sentence_2 (8, 16) gives keys (8, 24), values (8, 28) and the context of x_2', () => {
  const x = embeddedSentence();
  A.manualSeed(123);
  const Wq = A.rand(24, 16),
    Wk = A.rand(24, 16),
    Wv = A.rand(28, 16);
  const x2Seq = A.rand(8, 16); // embedded_sentence_2
  const x2 = new Tensor(x.data.slice(16, 32), [16]);
  const query2 = A.matmul(Wq, x2); // (24): from the first sentence
  const keys = A.linear(x2Seq, Wk); // W_key.matmul(embedded_sentence_2.T).T
  const values = A.linear(x2Seq, Wv);
  assert.deepEqual(keys.shape, [8, 24]);
  assert.deepEqual(values.shape, [8, 28]);
  const { output, weights } = A.scaledDotProductAttention(new Tensor(query2.data, [1, 24]), keys, values, {
    returnWeights: true,
  });
  assert.deepEqual(output.shape, [1, 28]);
  assert.deepEqual(weights.shape, [1, 8]);

  const X = Float64Array.from(x.data),
    X2 = Float64Array.from(x2Seq.data);
  const q = matmulFlat(Float64Array.from(Wq.data), X.subarray(16, 32), 24, 16, 1);
  const k = matmulFlat(X2, Float64Array.from(transpose(Wk).data), 8, 16, 24);
  const v = matmulFlat(X2, Float64Array.from(transpose(Wv).data), 8, 16, 28);
  assertNear(keys, { data: k, shape: [8, 24] }, 'keys');
  assertNear(values, { data: v, shape: [8, 28] }, 'values');
  assertNear(output, { data: context64(q, k, v, 8, 24, 28), shape: [1, 28] }, 'cross-attention context of x_2');
});
