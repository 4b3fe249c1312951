// Document 003 ("Illustrated self-attention"): 3 inputs of dimension 4, plain dot-product scores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import { assertClose } from './reference/index.mjs';

const A = await library();
const inputs = Tensor.fromArray([
  [1, 0, 1, 0],
  [0, 2, 0, 2],
  [1, 1, 1, 1],
]);
const wKey = Tensor.fromArray([
  [0, 0, 1],
  [1, 1, 0],
  [0, 1, 0],
  [1, 1, 0],
]);
const wQuery = Tensor.fromArray([
  [1, 0, 1],
  [1, 0, 0],
  [0, 0, 1],
  [0, 1, 1],
]);
const wValue = Tensor.fromArray([
  [0, 2, 0],
  [0, 3, 0],
  [1, 0, 3],
  [1, 1, 0],
]);

test('E3.2 keys, values, queries', () => {
  assertClose(
    A.matmul(inputs, wKey),
    [
      [0, 1, 1],
      [4, 4, 0],
      [2, 3, 1],
    ],
    0,
    'keys',
  );
  assertClose(
    A.matmul(inputs, wValue),
    [
      [1, 2, 3],
      [2, 8, 0],
      [2, 6, 3],
    ],
    0,
    'values',
  );
  assertClose(
    A.matmul(inputs, wQuery),
    [
      [1, 0, 2],
      [2, 2, 2],
      [2, 1, 3],
    ],
    0,
    'queries',
  );
});

test('E3.3 scores [2, 4, 4] and softmax [0.0, 0.5, 0.5]; E3.4 output 1', () => {
  const keys = A.matmul(inputs, wKey);
  const values = A.matmul(inputs, wValue);
  const queries = A.matmul(inputs, wQuery);
  const r = A.scaledDotProductAttention(queries, keys, values, { scale: 1, returnIntermediates: true });
  assertClose(r.scores.data.slice(0, 3), [2, 4, 4], 0, 'scores of input 1');
  const w = Array.from(r.weights.data.slice(0, 3));
  // The document shows [0.0, 0.5, 0.5] "rounded to 1 decimal place": the exact weights are
  // [0.0634, 0.4683, 0.4683], so its 0.0 is a truncation (0.06 -> 0.0) and 0.5 a rounding.
  assert.deepEqual(
    w.map((x) => Math.trunc(x * 10) / 10),
    [0.0, 0.4, 0.4],
  );
  assert.deepEqual(
    w.slice(1).map((x) => Number(x.toFixed(1))),
    [0.5, 0.5],
  );
  // With those rounded weights [0, 0.5, 0.5] the document's output is [2.0, 7.0, 1.5] ...
  const rounded = [0, 0.5, 0.5];
  const docOutput = [0, 1, 2].map((j) => rounded.reduce((s, p, i) => s + p * values.get(i, j), 0));
  assert.deepEqual(docOutput, [2, 7, 1.5]);
  // ... and the exact weights (float64 here, from the formula) give the library's output.
  const e = [2, 4, 4].map(Math.exp);
  const z = e.reduce((a, b) => a + b);
  const exact = e.map((x) => x / z);
  assertClose(w, exact, 1e-6, 'exact weights');
  const exactOut = [0, 1, 2].map((j) => exact.reduce((s, p, i) => s + p * values.get(i, j), 0));
  assertClose(r.output.data.slice(0, 3), exactOut, 1e-5, 'output 1');
});
