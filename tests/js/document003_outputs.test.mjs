// Document 003 ("Illustrated self-attention"), E3.5: "repeat steps 4-7 for Input 2 & Input 3", left
// to the reader. The library's outputs 2 and 3 against a float64 computation of the same steps.
import { test } from 'node:test';
import { Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import { assertNear, matmulFlat, softmaxRow } from './reference/index.mjs';

const A = await library();
const inputs = [
  [1, 0, 1, 0],
  [0, 2, 0, 2],
  [1, 1, 1, 1],
];
const wKey = [
  [0, 0, 1],
  [1, 1, 0],
  [0, 1, 0],
  [1, 1, 0],
];
const wQuery = [
  [1, 0, 1],
  [1, 0, 0],
  [0, 0, 1],
  [0, 1, 1],
];
const wValue = [
  [0, 2, 0],
  [0, 3, 0],
  [1, 0, 3],
  [1, 1, 0],
];

test('E3.5 outputs 2 and 3 (steps 4-7 repeated) agree with float64', () => {
  const x = Tensor.fromArray(inputs);
  const keys = A.matmul(x, Tensor.fromArray(wKey));
  const values = A.matmul(x, Tensor.fromArray(wValue));
  const queries = A.matmul(x, Tensor.fromArray(wQuery));
  // scale 1: the tutorial uses the plain dot product as the score.
  const { output, weights } = A.scaledDotProductAttention(queries, keys, values, { scale: 1, returnWeights: true });

  const X = Float64Array.from(inputs.flat());
  const K = matmulFlat(X, Float64Array.from(wKey.flat()), 3, 4, 3);
  const V = matmulFlat(X, Float64Array.from(wValue.flat()), 3, 4, 3);
  const Q = matmulFlat(X, Float64Array.from(wQuery.flat()), 3, 4, 3);
  for (const i of [1, 2]) {
    const scores = [0, 1, 2].map((j) => [0, 1, 2].reduce((s, d) => s + Q[i * 3 + d] * K[j * 3 + d], 0)); // step 4
    const w = softmaxRow(scores); // step 5
    const out = [0, 1, 2].map((d) => w.reduce((s, p, j) => s + p * V[j * 3 + d], 0)); // steps 6-7
    assertNear(
      { data: weights.data.slice(i * 3, i * 3 + 3), shape: [3] },
      { data: w, shape: [3] },
      `weights of input ${i + 1}`,
    );
    assertNear({ data: output.data.slice(i * 3, i * 3 + 3), shape: [3] }, { data: out, shape: [3] }, `output ${i + 1}`);
  }
});
