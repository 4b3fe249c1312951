// Bad input never kills the module: each documented bad-input case throws the documented type
// (TypeError: wrong types; RangeError: bad sizes, dims, indices, sizes beyond the heap; Error:
// shapes that do not fit) with a message naming the function, the argument and the shapes.
// After each, the module still computes correctly and the caller's arrays are byte-identical.
// Also: zero-length dims give torch's results, and an allocation that fails inside the module
// becomes a JS error and leaves the module usable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import { canary, snapshot, sameBytes } from './cases.mjs';

const A = await library();
const f = (shape, fill = 0.5) => ({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(fill), shape });

// [label, call, error type, message pattern, caller arrays to compare afterwards]
const q = f([2, 3, 4]),
  k = f([2, 5, 4]),
  v = f([2, 5, 6]);
const cases = [
  // TypeError: wrong types
  [
    'matmul Array data',
    () => A.matmul({ data: [1, 2], shape: [2] }, f([2])),
    TypeError,
    /^matmul: input must have Float32Array data, got Array\(2\) with shape \[2\]: make one from nested arrays with Tensor\.fromArray\(rows\)$/,
  ],
  [
    'matmul Float64Array data',
    () => A.matmul(f([2]), { data: new Float64Array(2), shape: [2] }),
    TypeError,
    /^matmul: other must have Float32Array data, got Float64Array\(2\)/,
  ],
  ['matmul null', () => A.matmul(null, f([2])), TypeError, /^matmul: input must be a Tensor/],
  ['rand string size', () => A.rand(2, '3'), TypeError, /^rand: size: shape \[2, 3\] must hold numbers, got string$/],
  [
    'linear string shape',
    () => A.linear(f([2, 3]), { data: new Float32Array(6), shape: ['2', 3] }),
    TypeError,
    /^linear: weight: shape \[2, 3\] must hold numbers/,
  ],
  [
    'softmax dim string',
    () => A.softmax(f([2]), { dim: '0' }),
    TypeError,
    /^softmax: dim must be an integer, got string$/,
  ],
  [
    'sdpa unknown option',
    () => A.scaledDotProductAttention(q, k, v, { causal: true }),
    TypeError,
    /^scaledDotProductAttention: unknown option 'causal'/,
  ],
  [
    'sdpa mask Int32Array',
    () => A.scaledDotProductAttention(q, k, v, { attnMask: { data: new Int32Array(15), shape: [3, 5] } }),
    TypeError,
    /^scaledDotProductAttention: attnMask must have Uint8Array \(boolean\) or Float32Array \(additive\) data, got Int32Array\(15\)$/,
  ],
  [
    'embedding float ids',
    () => A.embedding(new Float32Array([0, 1]), f([2, 2])),
    TypeError,
    /^embedding: input must be an array of integers/,
  ],
  ['Tensor Array data', () => new Tensor([1, 2, 3]), TypeError, /^Tensor: data must be a Float32Array/],
  // RangeError: sizes, dims, indices
  [
    'rand negative',
    () => A.rand(2, -1),
    RangeError,
    /^rand: size: shape \[2, -1\] must hold non-negative integers, got -1$/,
  ],
  [
    'randn fractional',
    () => A.randn(2.5),
    RangeError,
    /^randn: size: shape \[2\.5\] must hold non-negative integers, got 2\.5$/,
  ],
  [
    'matmul shape != data.length',
    () => A.matmul(f([2, 3]), { data: new Float32Array(5), shape: [3, 2] }),
    RangeError,
    /^matmul: other has shape \[3, 2\] \(6 elements\) but its data has 5$/,
  ],
  [
    'softmax dim out of range',
    () => A.softmax(f([2, 3]), { dim: 2 }),
    RangeError,
    /^softmax: dim for input \[2, 3\]: dim 2 is out of range \[-2, 1\] for a tensor of rank 2$/,
  ],
  [
    'embedding index out of range',
    () => A.embedding([0, 7], f([4, 3])),
    RangeError,
    /^embedding: index 7 \(input position 1\) is out of range \[0, 4\) for input \[2\], weight \[4, 3\]$/,
  ],
  [
    'rand byte count overflows',
    () => A.rand(2 ** 20, 2 ** 20),
    RangeError,
    /^rand: size: shape \[1048576, 1048576\] has 1099511627776 elements, more than the 2\^29 a tensor may hold$/,
  ],
  [
    'randn beyond the wasm heap',
    () => A.randn(2 ** 16, 2 ** 14),
    RangeError,
    /^randn: size: shape \[65536, 16384\] has \d+ elements, more than the 2\^29/,
  ],
  [
    'zero-size tensor with a huge dim',
    () => A.softmax({ data: new Float32Array(0), shape: [0, 2 ** 53] }),
    RangeError,
    /^softmax: input: shape \[0, 9007199254740992\] has a dimension 9007199254740992 larger than the 2\^29/,
  ],
  [
    'matmul result beyond 2^29 elements',
    () => A.matmul(f([65536, 1]), f([1, 65536])),
    RangeError,
    /^matmul: result: shape \[65536, 65536\] has more than 536870912 elements$/,
  ],
  // Without weights the fused kernel needs only tiles (L = S = 65536 is fine); the weights need L x S.
  [
    'sdpa (L, S) weights beyond 2^29',
    () => A.scaledDotProductAttention(f([65536, 1]), f([65536, 1]), f([65536, 1]), { returnWeights: true }),
    RangeError,
    /^scaledDotProductAttention: weights: shape \[65536, 65536\] has more than 536870912 elements$/,
  ],
  [
    'sdpa dropoutP',
    () => A.scaledDotProductAttention(q, k, v, { dropoutP: 0.1 }),
    RangeError,
    /^scaledDotProductAttention: dropoutP must be 0/,
  ],
  ['manualSeed negative', () => A.manualSeed(-1), RangeError, /^manualSeed: seed must be in \[0, 2\^53\), got -1$/],
  // Error: shapes that do not fit
  [
    'matmul inner dims',
    () => A.matmul(f([3, 4]), f([3, 4])),
    Error,
    /^matmul: input \[3, 4\] and other \[3, 4\] cannot be multiplied \(inner dimensions 4 and 3 differ\)$/,
  ],
  [
    'matmul batch dims',
    () => A.matmul(f([2, 3, 4]), f([3, 4, 5])),
    Error,
    /^matmul: batch dims of input \[2, 3, 4\] and other \[3, 4, 5\]: shapes \[2\] and \[3\] are not broadcastable/,
  ],
  [
    'linear in_features',
    () => A.linear(f([2, 3]), f([4, 2])),
    Error,
    /^linear: input \[2, 3\], weight \[4, 2\]: input's last dimension 3 must equal weight's in_features 2$/,
  ],
  [
    'embedding 1-D weight',
    () => A.embedding([0], f([4])),
    Error,
    /^embedding: weight must be 2-D \(num_embeddings, embedding_dim\), got input \[1\], weight \[4\]$/,
  ],
  [
    'sdpa key E',
    () => A.scaledDotProductAttention(q, f([2, 5, 3]), v),
    Error,
    /^scaledDotProductAttention: key's last dimension must equal query's E = 4, got query \[2, 3, 4\], key \[2, 5, 3\], value \[2, 5, 6\]$/,
  ],
  [
    'sdpa mask does not broadcast',
    () => A.scaledDotProductAttention(q, k, v, { attnMask: { data: new Uint8Array(6), shape: [2, 3] } }),
    Error,
    /^scaledDotProductAttention: attnMask \[2, 3\] must broadcast to \(N\.\.\., L, S\) = \[2, 3, 5\]/,
  ],
  [
    'sdpa mask + causal',
    () => A.scaledDotProductAttention(q, k, v, { attnMask: f([3, 5]), isCausal: true }),
    Error,
    /^scaledDotProductAttention: attnMask and isCausal cannot both be set \(as in torch\)$/,
  ],
  [
    'sdpa Hq % H',
    () => A.scaledDotProductAttention(f([1, 4, 3, 8]), f([1, 3, 5, 8]), f([1, 3, 5, 8]), { enableGqa: true }),
    Error,
    /^scaledDotProductAttention: with enableGqa the query heads \(4\) must be a multiple of the key heads \(3\) and of the value heads \(3\), got query \[1, 4, 3, 8\], key \[1, 3, 5, 8\], value \[1, 3, 5, 8\]$/,
  ],
  [
    'sdpa heads without enableGqa',
    () => A.scaledDotProductAttention(f([4, 3, 8]), f([2, 5, 8]), f([2, 5, 8])),
    Error,
    /^scaledDotProductAttention: batch dims of query \[4, 3, 8\], key \[2, 5, 8\], value \[2, 5, 8\]/,
  ],
];

for (const [label, call, type, message] of cases) {
  test(`${label}: ${type.name}`, () => {
    // every typed array any argument could reach: q, k, v and a sentinel tensor
    const watched = [q, k, v];
    const snap = snapshot(watched);
    assert.throws(call, (e) => {
      assert.equal(e.constructor, type, `${e.constructor.name}: ${e.message}`);
      assert.match(e.message, message);
      return true;
    });
    assert.ok(sameBytes(watched, snap), "the caller's arrays changed");
    assert.ok(canary(A), 'the module computes wrongly afterwards');
  });
}

test("the caller's arrays are byte-identical after valid calls too (NaN payloads included)", () => {
  const x = f([3, 5]);
  x.data[1] = NaN;
  x.data[2] = -0;
  x.data[3] = -Infinity;
  new Uint32Array(x.data.buffer)[4] = 0x7fc00123; // a NaN with a payload
  const mask = { data: Uint8Array.from([1, 0, 1]), shape: [3] };
  const args = [x, mask];
  const snap = snapshot(args);
  A.softmax(x, { dim: 0 });
  A.matmul(x, f([5, 2]));
  A.scaledDotProductAttention(x, x, x, { attnMask: mask, returnIntermediates: true });
  assert.ok(sameBytes(args, snap));
});

test("zero-length dims give torch's results", () => {
  const mm = A.matmul(f([0, 3]), f([3, 4]));
  assert.deepEqual([mm.shape, mm.data.length], [[0, 4], 0]);
  const inner0 = A.matmul(f([2, 0]), f([0, 3])); // empty sum: zeros
  assert.deepEqual(
    [inner0.shape, Array.from(inner0.data)],
    [
      [2, 3],
      [0, 0, 0, 0, 0, 0],
    ],
  );
  const batch0 = A.matmul(f([0, 2, 3]), f([3, 4]));
  assert.deepEqual(batch0.shape, [0, 2, 4]);
  const lin = A.linear(f([2, 0]), f([3, 0]), f([3], 1.5)); // bias only
  assert.deepEqual(Array.from(lin.data), [1.5, 1.5, 1.5, 1.5, 1.5, 1.5]);
  assert.deepEqual(A.softmax(f([0, 3]), { dim: 1 }).shape, [0, 3]);
  assert.deepEqual(A.softmax(f([2, 0]), { dim: 1 }).shape, [2, 0]);
  assert.deepEqual(A.embedding([], f([4, 3])).shape, [0, 3]);
  assert.deepEqual(A.rand(0, 5).shape, [0, 5]);
  // SDPA with S = 0: nothing to attend to, zeros (torch >= 2.5)
  const s0 = A.scaledDotProductAttention(f([2, 3, 4]), f([2, 0, 4]), f([2, 0, 6]), { returnWeights: true });
  assert.deepEqual(
    [s0.output.shape, s0.weights.shape],
    [
      [2, 3, 6],
      [2, 3, 0],
    ],
  );
  assert.ok(s0.output.data.every((x) => x === 0));
  const l0 = A.scaledDotProductAttention(f([2, 0, 4]), f([2, 5, 4]), f([2, 5, 6]));
  assert.deepEqual(l0.output.shape, [2, 0, 6]);
  // E = 0: every score is 0, uniform weights, the mean of v (torch's math path)
  const e0 = A.scaledDotProductAttention(f([1, 0]), f([2, 0]), { data: Float32Array.from([1, 3]), shape: [2, 1] });
  assert.deepEqual(Array.from(e0.output.data), [2]);
  assert.ok(canary(A));
});

test('an allocation that fails inside the module becomes a RangeError and the module stays usable', () => {
  const before = A.memoryStats();
  // Passes every size check (each tensor <= 2^29 elements) but its intermediates need
  // 4 x 2 GiB: beyond the 4 GiB a wasm32 heap can reach.
  const L = 2 ** 15,
    S = 2 ** 14;
  assert.throws(
    () => A.scaledDotProductAttention(f([L, 1]), f([S, 1]), f([S, 1]), { returnIntermediates: true }),
    (e) => {
      assert.equal(e.constructor, RangeError, e.message);
      assert.match(
        e.message,
        /^scaledDotProductAttention: (scores|scaled|masked|weights): out of memory allocating a tensor of shape \[32768, 16384\]$/,
      );
      return true;
    },
  );
  assert.ok(canary(A), 'the module computes wrongly after running out of memory');
  // what was allocated before the failure was freed
  assert.equal(A.memoryStats().allocatedBytes, before.allocatedBytes);
  // and large work still succeeds afterwards
  const out = A.scaledDotProductAttention(f([64, 8]), f([64, 8]), f([64, 8], 2));
  assert.ok(out.output.data.every((x) => Math.abs(x - 2) < 1e-6));
});

test('positional arguments passed where options go: the error says to pass them by name, and which', () => {
  const x = new Tensor(new Float32Array(24).fill(0.5), [2, 3, 4]),
    mask = new Tensor(new Float32Array(9), [3, 3]);
  const byName = (names) => `: positional arguments go in the options object, by name ({ ${names} })`;
  assert.throws(() => A.scaledDotProductAttention(x, x, x, mask), {
    name: 'TypeError',
    message: `scaledDotProductAttention: options must be an object, got a tensor (Tensor of shape [3, 3])${byName('attnMask')}`,
  });
  assert.throws(() => A.layerNorm(x, [4], { data: new Float32Array(4), shape: [4] }), {
    name: 'TypeError',
    message: `layerNorm: options must be an object, got a tensor (Object of shape [4])${byName('weight, bias')}`,
  });
  assert.throws(() => A.softmax(x, -1), {
    name: 'TypeError',
    message: `softmax: options must be an object, got number${byName('dim')}`,
  });
  assert.throws(() => A.softmax(x, 'dim'), {
    name: 'TypeError',
    message: 'softmax: options must be an object, got string',
  });
  // a tensor where no option takes one: no names (a model's mask goes in its input, not its options)
  assert.throws(() => A.softmax(x, mask), {
    name: 'TypeError',
    message: 'softmax: options must be an object, got a tensor (Tensor of shape [3, 3])',
  });
  // options that inherit data and shape are options (their own keys are what is read)
  const inherited = Object.assign(Object.create({ data: 1, shape: [1] }), { dim: 0 });
  assert.deepEqual(A.softmax(x, inherited).shape, [2, 3, 4]);
  assert.deepEqual(A.softmax(x, { dim: -1 }).shape, [2, 3, 4]); // and the module answers
});
