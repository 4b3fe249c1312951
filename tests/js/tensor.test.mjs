// Tensor: printing as torch prints (torch/_tensor_str.py: _Formatter, _vector_str,
// _tensor_str_with_formatter, _add_suffixes, _str_intern) and indexing with get() at any rank.
// The expected strings follow those functions' rules for the inputs, each rule named beside its
// case; the documents' own printed tensors are checked in document000.test.mjs and e46.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor, formatTensor } from 'attention-wasm';

const f32 = (values, shape) => new Tensor(Float32Array.from(values), shape);
const i32 = (values, shape) => new Tensor(Int32Array.from(values), shape);
const bool = (values, shape) => new Tensor(Uint8Array.from(values), shape);

test('String(t) as torch prints: fixed, int and scientific styles; widths from the non-zero finite values', () => {
  const cases = [
    // set_printoptions' docstring: 4 decimals by default
    [f32([1.12345]), 'tensor([1.1235])'],
    // every value whole: int mode, "2." (width: the longest "{:.0f}" plus the ".")
    [f32([2, 4, -4]), 'tensor([ 2.,  4., -4.])'],
    [f32([0, 0]), 'tensor([0., 0.])'],
    [f32([-0, 1]), 'tensor([-0., 1.])'],
    // nan and inf do not count for the width
    [f32([NaN, 1]), 'tensor([nan, 1.])'],
    [f32([0.5, Infinity, -Infinity]), 'tensor([0.5000,    inf,   -inf])'],
    // Python rounds an exact tie to even: 0.03125 -> 0.0312, 0.09375 -> 0.0938
    [f32([0.03125, 0.5, -0.09375]), 'tensor([ 0.0312,  0.5000, -0.0938])'],
    // scientific: the non-zero magnitudes span more than 1000x, pass 1e8, or (not int mode) go below 1e-4
    [f32([1e-5, 2.5]), 'tensor([1.0000e-05, 2.5000e+00])'],
    [f32([1, 2000]), 'tensor([1.0000e+00, 2.0000e+03])'],
    [f32([1e9, 1]), 'tensor([1.0000e+09, 1.0000e+00])'],
    [f32([0.5, 0, -0.001]), 'tensor([ 0.5000,  0.0000, -0.0010])'],
    [f32([3e-5, 0, NaN]), 'tensor([3.0000e-05, 0.0000e+00,        nan])'],
    // 0-d
    [f32([11.1466], []), 'tensor(11.1466)'],
    [f32([3], []), 'tensor(3.)'],
  ];
  for (const [t, want] of cases) assert.equal(String(t), want);
});

test('String(t) at any rank: rows wrapped at 80 characters, blank lines between blocks, `...` past 1000 elements', () => {
  assert.equal(
    String(f32([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2])),
    'tensor([[[1., 2.],\n         [3., 4.]],\n\n        [[5., 6.],\n         [7., 8.]]])',
  );
  assert.equal(String(f32([1, 2, 3, 4], [1, 1, 1, 4])), 'tensor([[[[1., 2., 3., 4.]]]])');
  // 30 values of width 7: (80 - 8) / (7 + 2) = 8 per line, continued under the first
  assert.equal(
    String(f32(Array.from({ length: 30 }, (_, i) => i * 1.5 - 7.25))),
    'tensor([-7.2500, -5.7500, -4.2500, -2.7500, -1.2500,  0.2500,  1.7500,  3.2500,\n' +
      '         4.7500,  6.2500,  7.7500,  9.2500, 10.7500, 12.2500, 13.7500, 15.2500,\n' +
      '        16.7500, 18.2500, 19.7500, 21.2500, 22.7500, 24.2500, 25.7500, 27.2500,\n' +
      '        28.7500, 30.2500, 31.7500, 33.2500, 34.7500, 36.2500])',
  );
  // more than 1000 elements: 3 at each end of every dim longer than 6, around ' ...' / '...'
  const big = f32(
    Array.from({ length: 40 * 30 }, (_, i) => 1000 + i),
    [40, 30],
  );
  assert.equal(
    String(big),
    'tensor([[1000., 1001., 1002.,  ..., 1027., 1028., 1029.],\n' +
      '        [1030., 1031., 1032.,  ..., 1057., 1058., 1059.],\n' +
      '        [1060., 1061., 1062.,  ..., 1087., 1088., 1089.],\n' +
      '        ...,\n' +
      '        [2110., 2111., 2112.,  ..., 2137., 2138., 2139.],\n' +
      '        [2140., 2141., 2142.,  ..., 2167., 2168., 2169.],\n' +
      '        [2170., 2171., 2172.,  ..., 2197., 2198., 2199.]])',
  );
  // the same from 0: the shown values span 1 .. 1199, more than 1000x: scientific
  assert.match(
    String(
      f32(
        Array.from({ length: 1200 }, (_, i) => i),
        [40, 30],
      ),
    ),
    /^tensor\(\[\[0\.0000e\+00, 1\.0000e\+00,/,
  );
  assert.equal(formatTensor(f32([0.123456, 1]), { precision: 2 }), 'tensor([0.12, 1.00])');
});

test('String(t) of masks, int32 indices and empty tensors: their dtype and size suffixes as torch adds them', () => {
  const cases = [
    [bool([1, 0, 1]), 'tensor([ True, False,  True])'],
    [bool([1, 1], [1, 2]), 'tensor([[True, True]])'],
    // torch prints the dtype of every tensor but float32, int64 and bool
    [i32([4, 3, -12]), 'tensor([  4,   3, -12], dtype=torch.int32)'],
    [i32([3], []), 'tensor(3, dtype=torch.int32)'],
    // the suffix goes to a new line when it would pass 80 characters
    [
      i32(Array.from({ length: 18 }, (_, i) => i)),
      'tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17],\n' +
        '       dtype=torch.int32)',
    ],
    // empty: "[]", its size unless 1-D, its dtype unless float32
    [f32([]), 'tensor([])'],
    [f32([], [2, 0]), 'tensor([], size=(2, 0))'],
    [i32([]), 'tensor([], dtype=torch.int32)'],
    [bool([], [0, 3]), 'tensor([], size=(0, 3), dtype=torch.bool)'],
  ];
  for (const [t, want] of cases) assert.equal(String(t), want);
  assert.equal(i32([1, 2]).dtype, 'int32');
  assert.deepEqual(i32([1, -2, 3, 4], [2, 2]).toArray(), [
    [1, -2],
    [3, 4],
  ]);
});

test('t.get(...indices) at any rank: one index per dim, negative from the end; errors name the dim and shape', () => {
  const t = f32(
    Array.from({ length: 24 }, (_, i) => i),
    [2, 3, 4],
  );
  assert.equal(t.get(1, 2, 3), 23);
  assert.equal(t.get(-1, -1, -1), 23);
  assert.equal(t.get(0, -3, 1), 1);
  assert.equal(f32([7], []).get(), 7);
  assert.equal(f32([1, 2, 3, 4, 5], [1, 1, 1, 1, 5]).get(0, 0, 0, 0, -2), 4);
  assert.equal(bool([0, 1]).get(1), true);
  assert.equal(bool([0, 1]).get(0), false);
  assert.equal(i32([5, -6]).get(-1), -6);
  const errors = [
    [() => t.get(1, 2), RangeError, 'Tensor.get: expected 3 indices for shape [2, 3, 4], got 2'],
    [
      () => t.get(2, 0, 0),
      RangeError,
      'Tensor.get: index 2 is out of range [-2, 1] for dim 0 (size 2) of shape [2, 3, 4]',
    ],
    [
      () => t.get(0, -4, 0),
      RangeError,
      'Tensor.get: index -4 is out of range [-3, 2] for dim 1 (size 3) of shape [2, 3, 4]',
    ],
    [() => t.get(0, 0, 1.5), RangeError, 'Tensor.get: the index for dim 2 must be an integer, got 1.5'],
    [() => t.get(0, '1', 0), TypeError, 'Tensor.get: the index for dim 1 must be an integer, got string'],
    [() => f32([1], []).get(0), RangeError, 'Tensor.get: expected 0 indices for shape [], got 1'],
    [() => f32([], [0]).get(0), RangeError, 'Tensor.get: index 0 is out of range for dim 0 (size 0) of shape [0]'],
  ];
  for (const [run, type, message] of errors) assert.throws(run, { name: type.name, message });
});

test('new Tensor takes Float32Array, Uint8Array and Int32Array data; other data names all three', () => {
  assert.throws(() => new Tensor(new Float64Array(2)), {
    name: 'TypeError',
    message:
      'Tensor: data must be a Float32Array, a Uint8Array (a boolean mask) or an Int32Array (indices), got Float64Array(2)',
  });
  assert.throws(() => new Tensor(new Proxy(new Float32Array(2), {})), {
    name: 'TypeError',
    message: /got an object posing as Float32Array \(a Proxy\?\), not a typed array$/,
  });
  // a subclass (Node's Buffer is a Uint8Array) is taken as its kind: a view on the same memory
  class Scores extends Float32Array {}
  const buffer = Buffer.from([1, 0, 1]),
    scores = Scores.from([0.5, 2]);
  const mask = new Tensor(buffer, [3]),
    t = new Tensor(scores);
  assert.deepEqual([mask.dtype, mask.data.constructor, Array.from(mask.data)], ['bool', Uint8Array, [1, 0, 1]]);
  assert.deepEqual([t.dtype, t.data.constructor, t.shape], ['float32', Float32Array, [2]]);
  buffer[1] = 1;
  scores[0] = 3;
  assert.deepEqual([mask.data[1], t.data[0]], [1, 3]); // the caller's memory, as for its own kind
  assert.equal(String(t), 'tensor([3., 2.])');
});

test('Tensor.fromArray: nested arrays of numbers of one shape, as torch.tensor takes; ragged or holey ones are TypeErrors', () => {
  assert.deepEqual(
    Tensor.fromArray([
      [1, 2],
      [3, 4],
    ]).shape,
    [2, 2],
  );
  assert.deepEqual(
    Array.from(
      Tensor.fromArray([
        [[1], [2]],
        [[3], [4]],
      ]).data,
    ),
    [1, 2, 3, 4],
  );
  assert.deepEqual(Tensor.fromArray(5).shape, []);
  assert.deepEqual(Tensor.fromArray([[]]).shape, [1, 0]);
  // the count of elements happens to match the first rows' shape: still ragged
  for (const [nested, message] of [
    [
      [
        [1, 2, 3],
        [4, 5, 6, 7],
        [8, 9],
      ],
      /\[1\] is an array of 4, where the first at its depth has 3 elements/,
    ],
    [
      [
        [1, , 3],
        [4, 5, 6],
      ],
      /\[0\]\[1\] is a hole/,
    ],
    [
      [
        [[1], [2]],
        [3, 4],
      ],
      /\[1\]\[0\] is number, where the first at its depth has 1 elements/,
    ],
    [
      [
        [1, 2],
        [3, '4'],
      ],
      /element \[1\]\[1\] is string, not a number/,
    ],
  ])
    assert.throws(() => Tensor.fromArray(nested), { name: 'TypeError', message });
});

test("formatTensor's options are torch.set_printoptions' and are checked; its tensor is checked as Tensor.from checks one", () => {
  const t = f32([1.5, 2], [2]);
  assert.equal(t.toString({ precision: 2 }), 'tensor([1.50, 2.00])');
  assert.equal(formatTensor(t, null), 'tensor([1.5000, 2.0000])');
  assert.throws(() => t.toString({ precison: 2 }), {
    name: 'TypeError',
    message: "formatTensor: unknown option 'precison' (allowed: precision, lineWidth, threshold, edgeitems)",
  });
  assert.throws(() => t.toString({ precision: 200 }), {
    name: 'RangeError',
    message: 'formatTensor: precision must be an integer in [0, 100], got 200',
  });
  // a name every object inherits is not an option; a Map is not an options object
  assert.throws(() => t.toString({ constructor: 5 }), { name: 'TypeError', message: /unknown option 'constructor'/ });
  assert.throws(() => t.toString(new Map([['precision', 2]])), {
    name: 'TypeError',
    message: 'formatTensor: options must be an object, got Map',
  });
  assert.throws(() => formatTensor({ data: Float32Array.of(1, 2), shape: [3] }), {
    name: 'RangeError',
    message: /shape \[3\] holds 3 elements but data has 2/,
  });
});
