// Document 004 ("Self-Attention Explained with Code"), E4.1 and E4.2: sinusoidal positional encoding
// as the document's PositionalEncoder builds it (numpy: denominator = 10000 ** (even_i / d_model),
// sin and cos interleaved, an odd d_model drops the last column).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { library } from './helpers.mjs';
import { assertClose, positionalEncoding as document004 } from './reference/index.mjs';

const A = await library();

test('E4.1 PositionalEncoder(d_model=3, max_length=5, rounding=2)', () => {
  const pe = A.positionalEncoding(5, 3);
  assert.deepEqual(pe.shape, [5, 3]);
  const rounded = Array.from(pe.data, (v) => Math.round(v * 100) / 100 + 0); // + 0: -0 -> 0
  assert.deepEqual(rounded, [0, 1, 0, 0.84, 0.54, 0, 0.91, -0.42, 0, 0.14, -0.99, 0.01, -0.76, -0.65, 0.01]);
  // The last column is sin(pos / 10000^(2/3)): the second pair's denominator, not 10000^(1/3).
  assertClose([pe.get(4, 2)], [Math.sin(4 / 10000 ** (2 / 3))], 1e-7, 'PE[4, 2]');
});

test('E4.2 the heatmap matrix (max_length 100, d_model 400) against float64', () => {
  const pe = A.positionalEncoding(100, 400);
  assert.deepEqual(pe.shape, [100, 400]);
  assertClose(pe, document004(100, 400), 1e-7, 'PE(100, 400)');
  // bounded in [-1, 1]; row 0 alternates sin(0) = 0 and cos(0) = 1
  assert.ok(pe.data.every((v) => v >= -1 && v <= 1));
  assertClose(pe.data.slice(0, 6), [0, 1, 0, 1, 0, 1], 0, 'row 0');
});

test('odd and small sizes, and long sequences, against float64', () => {
  for (const [maxLength, dModel] of [
    [1, 1],
    [7, 5],
    [9, 17],
    [33, 65],
    [3, 2],
    [2000, 7],
  ]) {
    assertClose(
      A.positionalEncoding(maxLength, dModel),
      document004(maxLength, dModel),
      1e-7,
      `PE(${maxLength}, ${dModel})`,
    );
  }
  assert.deepEqual(A.positionalEncoding(0, 4).shape, [0, 4]);
  assert.deepEqual(A.positionalEncoding(4, 0).shape, [4, 0]);
});

test('positionalEncoding: argument errors', () => {
  assert.throws(() => A.positionalEncoding('5', 3), {
    name: 'TypeError',
    message: /positionalEncoding: maxLength must be an integer, got string/,
  });
  assert.throws(() => A.positionalEncoding(5), {
    name: 'TypeError',
    message: /positionalEncoding: dModel must be an integer, got undefined/,
  });
  assert.throws(() => A.positionalEncoding(5, 2.5), {
    name: 'RangeError',
    message: /positionalEncoding: dModel must be an integer, got 2.5/,
  });
  assert.throws(() => A.positionalEncoding(-1, 3), {
    name: 'RangeError',
    message: /positionalEncoding: maxLength must be a non-negative integer, got -1/,
  });
  assert.throws(() => A.positionalEncoding(1e20, 3), {
    name: 'RangeError',
    message: /maxLength must be an integer in \(-2\^53, 2\^53\)/,
  });
  assert.throws(() => A.positionalEncoding(1e6, 1e6), {
    name: 'RangeError',
    message: /^positionalEncoding: result: shape \[1000000, 1000000\] has more than/,
  });
  assert.deepEqual(A.positionalEncoding(2, 2).shape, [2, 2]); // still working
});
