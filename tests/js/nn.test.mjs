// The layers around attention through the package: layerNorm, relu, gelu, add, mul against
// float64 written from the formulas; torch's special values; argument errors (type, size, shape)
// with messages naming function, argument and shapes; inputs never written; module still working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import * as f64 from './reference/index.mjs';
import { assertClose, rng, randomTensor } from './reference/index.mjs';

const A = await library();
const random = rng(20240705);
const copy = (t) => ({ data: t.data.slice(), shape: [...t.shape] });

function assertUnchanged(before, after, label) {
  assert.deepEqual(after.shape, before.shape, `${label}: shape changed`);
  assert.deepEqual(Array.from(after.data), Array.from(before.data), `${label}: data changed`);
}

test('layerNorm over the last dim and the last two, with and without weight/bias, vs float64', () => {
  const x = randomTensor([2, 3, 5], random, 3);
  const w5 = randomTensor([5], random),
    b5 = randomTensor([5], random);
  const w35 = randomTensor([3, 5], random),
    b35 = randomTensor([3, 5], random);
  const xBefore = copy(x),
    wBefore = copy(w35);
  assertClose(A.layerNorm(x, [5]), f64.layerNorm(x, 1), 2e-6, 'layerNorm(x, [5])');
  assertClose(A.layerNorm(x, 5), f64.layerNorm(x, 1), 2e-6, 'layerNorm(x, 5)');
  assertClose(A.layerNorm(x, [5], { weight: w5, bias: b5 }), f64.layerNorm(x, 1, w5, b5), 4e-6, 'affine [5]');
  assertClose(A.layerNorm(x, [3, 5], { weight: w35, bias: b35 }), f64.layerNorm(x, 2, w35, b35), 4e-6, 'affine [3, 5]');
  assertClose(A.layerNorm(x, [2, 3, 5], { eps: 0.5 }), f64.layerNorm(x, 3, null, null, 0.5), 2e-6, 'eps 0.5');
  assertClose(A.layerNorm(x, [5], { bias: b5 }), f64.layerNorm(x, 1, null, b5), 4e-6, 'bias only');
  assertUnchanged(xBefore, x, 'input');
  assertUnchanged(wBefore, w35, 'weight');
  // every SIMD tail of the normalised dim
  for (const n of [1, 3, 4, 7, 8, 9, 16, 17, 33, 65]) {
    const xs = randomTensor([3, n], random, 2);
    assertClose(A.layerNorm(xs, [n]), f64.layerNorm(xs, 1), 1e-5, `layerNorm n=${n}`);
  }
  // torch: F.layer_norm(torch.tensor([1., 2., 3., 4.]), (4,)) -> [-1.3416, -0.4472, 0.4472, 1.3416]
  assertClose(
    A.layerNorm(Tensor.fromArray([1, 2, 3, 4]), [4]),
    [-1.3416, -0.4472, 0.4472, 1.3416],
    5e-5,
    'torch print',
  );
  // a NaN makes its row NaN, as torch
  const y = A.layerNorm(
    Tensor.fromArray([
      [1, NaN, 3],
      [1, 2, 3],
    ]),
    [3],
  );
  assert.ok(Array.from(y.data.slice(0, 3)).every(Number.isNaN));
  assert.ok(Array.from(y.data.slice(3)).every(Number.isFinite));
});

test('relu and gelu (none, tanh) vs float64 over every SIMD tail; special values as torch', () => {
  for (const n of [0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64, 65]) {
    const x = randomTensor([n], random, 5);
    const before = copy(x);
    assertClose(A.relu(x), f64.map(x, f64.relu), 0, `relu n=${n}`);
    assertClose(A.gelu(x), f64.map(x, f64.gelu), 2e-6, `gelu n=${n}`);
    assertClose(A.gelu(x, { approximate: 'none' }), f64.map(x, f64.gelu), 2e-6, `gelu none n=${n}`);
    assertClose(A.gelu(x, { approximate: 'tanh' }), f64.map(x, f64.geluTanh), 2e-6, `gelu tanh n=${n}`);
    assertUnchanged(before, x, `input n=${n}`);
  }
  const shaped = randomTensor([2, 3, 4], random);
  assert.deepEqual(A.gelu(shaped).shape, [2, 3, 4]);
  assert.deepEqual(A.relu(Tensor.fromArray(-2)).shape, []);
  // torch: relu(nan) = nan, relu(inf) = inf, relu(-inf) = 0; gelu(nan) = nan, gelu(-inf) = nan
  const special = Tensor.fromArray([NaN, Infinity, -Infinity, -0.5, 0.5]);
  assertClose(A.relu(special), [NaN, Infinity, 0, 0, 0.5], 0, 'relu special');
  for (const approximate of ['none', 'tanh']) {
    const g = A.gelu(special, { approximate });
    assert.ok(
      Number.isNaN(g.data[0]) && g.data[1] === Infinity && Number.isNaN(g.data[2]),
      `gelu ${approximate} special: ${g.data}`,
    );
  }
  // torch: F.gelu(torch.tensor([-1., 1., 2.])) -> [-0.1587, 0.8413, 1.9545]
  assertClose(A.gelu(Tensor.fromArray([-1, 1, 2])), [-0.1587, 0.8413, 1.9545], 5e-5, 'gelu torch print');
  assertClose(
    A.gelu(Tensor.fromArray([-1, 1, 2]), { approximate: 'tanh' }),
    [-0.1588, 0.8412, 1.9546],
    5e-5,
    'gelu tanh print',
  );
});

test('add and mul broadcast as torch, vs float64', () => {
  const shapes = [
    [
      [2, 3, 4],
      [2, 3, 4],
    ],
    [[2, 3, 4], [4]],
    [[2, 3, 1], [4]],
    [[4], [2, 3, 4]],
    [
      [2, 1, 5],
      [1, 3, 1],
    ],
    [[3, 17], [17]],
    [
      [3, 17],
      [3, 1],
    ],
    [[], [5]],
    [[5], []],
    [[], []],
    [
      [1, 9],
      [9, 1],
    ],
    [[0, 3], [3]],
  ];
  for (const [sa, sb] of shapes) {
    const a = randomTensor(sa, random, 3),
      b = randomTensor(sb, random, 3);
    const aBefore = copy(a),
      bBefore = copy(b);
    const sum = A.add(a, b),
      prod = A.mul(a, b);
    const label = `[${sa}] and [${sb}]`;
    assert.deepEqual(sum.shape, f64.broadcastShapes(sa, sb), `add ${label} shape`);
    assertClose(
      sum,
      f64.binary(a, b, (u, v) => u + v),
      1e-6,
      `add ${label}`,
    );
    assertClose(
      prod,
      f64.binary(a, b, (u, v) => u * v),
      1e-6,
      `mul ${label}`,
    );
    assertUnchanged(aBefore, a, `add ${label}: input`);
    assertUnchanged(bBefore, b, `add ${label}: other`);
  }
  // a number is a 0-d tensor
  assertClose(A.add(Tensor.fromArray([1, 2]), 0.5), [1.5, 2.5], 0, 'add number');
  assertClose(A.mul(2, Tensor.fromArray([1, 2])), [2, 4], 0, 'mul number');
  // IEEE: inf - inf = NaN, 0 * inf = NaN
  assertClose(A.add(Tensor.fromArray([Infinity, NaN]), Tensor.fromArray([-Infinity, 1])), [NaN, NaN], 0, 'add special');
  assertClose(
    A.mul(Tensor.fromArray([0, 2]), Tensor.fromArray([Infinity, -Infinity])),
    [NaN, -Infinity],
    0,
    'mul special',
  );
});

test('argument errors: TypeError, RangeError, Error naming function, argument and shapes', () => {
  const x = randomTensor([2, 3], random);
  const xBefore = copy(x);
  // layerNorm
  assert.throws(() => A.layerNorm([1, 2], [2]), {
    name: 'TypeError',
    message: /^layerNorm: input must have Float32Array data, got Array\(2\), not a tensor: .*Tensor\.fromArray/,
  });
  assert.throws(() => A.layerNorm(x, '3'), {
    name: 'TypeError',
    message: /^layerNorm: normalizedShape must be an integer or an array of integers, got string/,
  });
  assert.throws(() => A.layerNorm(x, [-3]), {
    name: 'RangeError',
    message: /^layerNorm: normalizedShape: shape \[-3\] must hold non-negative integers/,
  });
  assert.throws(() => A.layerNorm(x, [4]), {
    name: 'Error',
    message:
      'layerNorm: input must end with the dims of normalizedShape (expected [*, 4]), got input [2, 3], normalizedShape [4]',
  });
  assert.throws(() => A.layerNorm(x, [2, 3, 1]), {
    name: 'Error',
    message:
      /^layerNorm: input must end with the dims of normalizedShape \(expected \[\*, 2, 3, 1\]\), got input \[2, 3\]/,
  });
  assert.throws(() => A.layerNorm(x, []), {
    name: 'Error',
    message: /^layerNorm: normalizedShape must have at least 1 dimension, got input \[2, 3\], normalizedShape \[\]/,
  });
  assert.throws(() => A.layerNorm(x, [3], { weight: randomTensor([2], random) }), {
    name: 'Error',
    message: 'layerNorm: weight must have shape normalizedShape [3], got input [2, 3], normalizedShape [3], weight [2]',
  });
  assert.throws(() => A.layerNorm(x, [3], { bias: randomTensor([1, 3], random) }), {
    name: 'Error',
    message: /^layerNorm: bias must have shape normalizedShape \[3\], got .*bias \[1, 3\]$/,
  });
  assert.throws(() => A.layerNorm(x, [3], { weight: [1, 2, 3] }), {
    name: 'TypeError',
    message: /^layerNorm: weight must have Float32Array data/,
  });
  assert.throws(() => A.layerNorm(x, [3], { eps: '1e-5' }), {
    name: 'TypeError',
    message: /^layerNorm: eps must be a number, got string/,
  });
  assert.throws(() => A.layerNorm(x, [3], { eps: -1 }), {
    name: 'RangeError',
    message: /^layerNorm: eps must be non-negative, got -1/,
  });
  assert.throws(() => A.layerNorm(x, [3], { epsilon: 1 }), {
    name: 'TypeError',
    message: /^layerNorm: unknown option 'epsilon'/,
  });
  // relu / gelu
  assert.throws(() => A.relu(new Float32Array(3)), {
    name: 'TypeError',
    message: /^relu: input must have Float32Array data, got undefined/,
  });
  assert.throws(() => A.relu({ data: new Float32Array(3), shape: [4] }), {
    name: 'RangeError',
    message: /^relu: input has shape \[4\] \(4 elements\) but its data has 3/,
  });
  assert.throws(() => A.gelu(null), { name: 'TypeError', message: /^gelu: input must be a Tensor/ });
  assert.throws(() => A.gelu(x, { approximate: 'erf' }), {
    name: 'RangeError',
    message: "gelu: approximate must be 'none' or 'tanh', got 'erf'",
  });
  assert.throws(() => A.gelu(x, { approximate: true }), {
    name: 'TypeError',
    message: /^gelu: approximate must be 'none' or 'tanh', got boolean/,
  });
  assert.throws(() => A.gelu(x, 'tanh'), {
    name: 'TypeError',
    message: /^gelu: options must be an object, got string/,
  });
  // add / mul
  assert.throws(() => A.add(x, randomTensor([2], random)), {
    name: 'Error',
    message: 'add: input [2, 3] and other [2]: shapes [2, 3] and [2] are not broadcastable (dim 1: 3 vs 2)',
  });
  assert.throws(() => A.mul(randomTensor([4, 1, 2], random), randomTensor([3, 3], random)), {
    name: 'Error',
    message: /^mul: input \[4, 1, 2\] and other \[3, 3\]: .*not broadcastable/,
  });
  assert.throws(() => A.add(x, '1'), { name: 'TypeError', message: /^add: other must be a Tensor/ });
  assert.throws(() => A.mul(undefined, x), { name: 'TypeError', message: /^mul: input must be a Tensor/ });
  assert.throws(() => A.add({ data: new Float64Array(6), shape: [2, 3] }, x), {
    name: 'TypeError',
    message: /^add: input must have Float32Array data, got Float64Array\(6\) with shape \[2, 3\]/,
  });
  assertUnchanged(xBefore, x, 'input after errors');
});

test('the module keeps working after many errors', () => {
  const x = randomTensor([4, 8], random);
  for (let i = 0; i < 2000; i++) {
    assert.throws(() => A.layerNorm(x, [7]), { name: 'Error', message: /^layerNorm: input must end with/ });
    assert.throws(() => A.add(x, randomTensor([3], random)), { name: 'Error', message: /^add: .*not broadcastable/ });
    assert.throws(() => A.gelu(x, { approximate: 'fast' }), {
      name: 'RangeError',
      message: /^gelu: approximate must be/,
    });
  }
  assertClose(A.layerNorm(x, [8]), f64.layerNorm(x, 1), 2e-6, 'layerNorm after errors');
  assertClose(
    A.add(x, x),
    f64.binary(x, x, (u, v) => u + v),
    0,
    'add after errors',
  );
});

test('nn.LayerNorm.forward: its weight, bias and eps, as torch.nn.LayerNorm, vs float64', () => {
  const x = randomTensor([3, 4, 6], random);
  const w = randomTensor([6], random),
    b = randomTensor([6], random);
  const ln = new A.LayerNorm({ normalizedShape: 6, eps: 1e-3 });
  assertClose(ln.forward(x), f64.layerNorm(x, 1, undefined, undefined, 1e-3), 2e-6, 'initial: weight 1, bias 0');
  ln.weight = w;
  ln.bias = b;
  assertClose(ln.forward(x), f64.layerNorm(x, 1, w, b, 1e-3), 4e-6, 'set weight and bias');
  const noBias = new A.LayerNorm({ normalizedShape: 6, bias: false });
  noBias.weight = w;
  assertClose(noBias.forward(x), f64.layerNorm(x, 1, w), 4e-6, 'bias: false');
  assert.throws(() => ln.forward(randomTensor([2, 5], random)), {
    name: 'Error',
    message: /^layerNorm: input must end with the dims of normalizedShape \(expected \[\*, 6\]\), got input \[2, 5\]/,
  });
  // over the last two dims, and without elementwiseAffine (no weight, no bias), as torch
  const two = new A.LayerNorm({ normalizedShape: [4, 6], eps: 1e-3 });
  assert.deepEqual(
    [two.normalizedShape, two.weight.shape],
    [
      [4, 6],
      [4, 6],
    ],
  );
  const w2 = randomTensor([4, 6], random);
  two.weight = w2;
  assertClose(two.forward(x), f64.layerNorm(x, 2, w2, undefined, 1e-3), 4e-6, 'last two dims');
  const plain = new A.LayerNorm({ normalizedShape: 6, elementwiseAffine: false });
  assert.deepEqual(
    [plain.weight, plain.bias, plain.elementwiseAffine, Object.keys(plain.stateDict())],
    [null, null, false, []],
  );
  assertClose(plain.forward(x), f64.layerNorm(x, 1), 2e-6, 'elementwiseAffine: false');
});
