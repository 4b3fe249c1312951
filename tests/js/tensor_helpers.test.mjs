// The tensor helpers (A.transpose, permute, select, narrow, topk, cosineSimilarity) on cases
// taken from torch's documentation of each (its examples, negative dims, ties in topk, zero
// vectors in cosine similarity, 0-d and 1-d inputs, empty dims), against the float64 references
// of reference.mjs; every error message, exactly. (The fuzz, error and leak tests drive them
// through the table in cases.mjs too.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import * as ref from './reference/index.mjs';
import { assertNear, makeRandom } from './reference/index.mjs';
import { canary } from './cases.mjs';

const A = await library();
const r = makeRandom(2606);
const f = (nested) => Tensor.fromArray(nested);
const rand = (...shape) => new Tensor(r.tensor(shape).data, shape);
/** A result as nested arrays with its shape, for deepEqual. */
const view = (t) => ({ shape: t.shape, values: t.toArray() });
const same = (got, want, label) => {
  assert.deepEqual(got.shape, want.shape, `${label}: shape`);
  assert.equal(got.data.constructor, want.data.constructor, `${label}: kind of data`);
  assert.ok(
    Array.from(want.data).every((w, i) => Object.is(got.data[i], w)),
    `${label}: elements differ`,
  );
};

test('transpose: torch.transpose(x, 0, 1) of a (2, 3) matrix; negative dims; 0-d and 1-d; masks and indices', () => {
  const x = f([
    [1, 2, 3],
    [4, 5, 6],
  ]);
  const xt = A.transpose(x, 0, 1);
  assert.deepEqual(view(xt), {
    shape: [3, 2],
    values: [
      [1, 4],
      [2, 5],
      [3, 6],
    ],
  });
  same(A.transpose(x, -1, -2), xt, 'dims -1, -2');
  same(A.transpose(x, 1, 0), xt, 'dims 1, 0');
  same(A.transpose(x, 0, 0), x, 'the same dim twice: a copy');
  // (2, 3, 4): swapping 0 and 2 as torch, against the float64 reference
  const y = rand(2, 3, 4);
  same(
    A.transpose(y, 0, -1),
    { ...ref.transpose(y, 0, 2), data: Float32Array.from(ref.transpose(y, 0, 2).data) },
    '3-D',
  );
  // a 0-d tensor takes dims -1 and 0 (torch's wrap_dim for scalars)
  assert.deepEqual(view(A.transpose(new Tensor(Float32Array.of(7), []), 0, -1)), { shape: [], values: 7 });
  assert.deepEqual(view(A.transpose(f([1, 2, 3]), 0, -1)), { shape: [3], values: [1, 2, 3] });
  // any element type: a boolean mask stays a mask, int32 indices stay int32
  const mask = new Tensor(Uint8Array.from([1, 0, 0, 1, 1, 0]), [2, 3]);
  const maskT = A.transpose(mask, 0, 1);
  assert.equal(maskT.dtype, 'bool');
  assert.deepEqual(maskT.toArray(), [
    [true, true],
    [false, true],
    [false, false],
  ]);
  const ids = new Tensor(Int32Array.from([3, -1, 2 ** 31 - 1, 0]), [2, 2]);
  assert.deepEqual(Array.from(A.transpose(ids, 0, 1).data), [3, 2 ** 31 - 1, -1, 0]);
  // empty dims
  assert.deepEqual(A.transpose(new Tensor(new Float32Array(0), [0, 3]), 0, 1).shape, [3, 0]);
  // the result is a copy: writing into it leaves x alone
  xt.data[0] = 100;
  assert.equal(x.get(0, 0), 1);
});

test("permute: torch's example torch.permute(x, (2, 0, 1)) of a (2, 3, 5) tensor is (5, 2, 3); negative dims", () => {
  const x = rand(2, 3, 5);
  const p = A.permute(x, [2, 0, 1]);
  assert.deepEqual(p.shape, [5, 2, 3]);
  for (let i = 0; i < 2; i++)
    for (let j = 0; j < 3; j++) for (let k = 0; k < 5; k++) assert.equal(p.get(k, i, j), x.get(i, j, k));
  same(A.permute(x, [-1, 0, -2]), p, 'negative dims');
  const want = ref.permute(x, [1, 2, 0]);
  same(A.permute(x, [1, 2, 0]), { shape: want.shape, data: Float32Array.from(want.data) }, 'float64 reference');
  // the document's multihead_keys.permute(0, 2, 1): the last two dims swapped, as transpose(-2, -1)
  same(A.permute(x, [0, 2, 1]), A.transpose(x, -2, -1), 'permute(0, 2, 1) = transpose(-2, -1)');
  assert.deepEqual(view(A.permute(new Tensor(Float32Array.of(2), []), [])), { shape: [], values: 2 });
  assert.deepEqual(A.permute(new Tensor(new Float32Array(0), [2, 0, 3]), [2, 1, 0]).shape, [3, 0, 2]);
});

test('select: tensor.select(0, i) is tensor[i], select(2, i) is tensor[:, :, i] (torch docs); negative indices', () => {
  const x = rand(2, 3, 4);
  for (let i = 0; i < 2; i++) {
    const row = A.select(x, 0, i);
    assert.deepEqual(row.shape, [3, 4]);
    assert.deepEqual(Array.from(row.data), Array.from(x.data.subarray(i * 12, (i + 1) * 12)));
  }
  const last = A.select(x, 2, -1); // tensor[:, :, -1]
  assert.deepEqual(last.shape, [2, 3]);
  for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) assert.equal(last.get(i, j), x.get(i, j, 3));
  same(A.select(x, -1, 3), last, 'dim -1');
  // a 1-D input gives a 0-d tensor
  assert.deepEqual(view(A.select(f([5, 6, 7]), 0, -2)), { shape: [], values: 6 });
  // one head's [L, L] weights out of [1, heads, L, L]
  const weights = rand(1, 3, 4, 4);
  const head2 = A.select(A.select(weights, 0, 0), 0, 2);
  assert.deepEqual(head2.shape, [4, 4]);
  assert.deepEqual(Array.from(head2.data), Array.from(weights.data.subarray(32, 48)));
  assert.deepEqual(A.select(new Tensor(new Float32Array(0), [2, 0]), 0, 1).shape, [0]);
});

test("narrow: torch's examples narrow(x, 0, 0, 2), narrow(x, 1, 1, 2), narrow(x, -1, -1, 1); length 0 at the end", () => {
  const x = f([
    [1, 2, 3],
    [4, 5, 6],
    [7, 8, 9],
  ]);
  assert.deepEqual(A.narrow(x, 0, 0, 2).toArray(), [
    [1, 2, 3],
    [4, 5, 6],
  ]);
  assert.deepEqual(A.narrow(x, 1, 1, 2).toArray(), [
    [2, 3],
    [5, 6],
    [8, 9],
  ]);
  assert.deepEqual(A.narrow(x, -1, -1, 1).toArray(), [[3], [6], [9]]);
  // start may equal the size when length is 0 (torch: start in [-size, size])
  assert.deepEqual(A.narrow(x, 1, 3, 0).shape, [3, 0]);
  assert.deepEqual(A.narrow(x, 0, -3, 0).shape, [0, 3]);
  const y = rand(2, 5, 3);
  const want = ref.narrow(y, 1, -4, 3);
  same(A.narrow(y, 1, -4, 3), { shape: want.shape, data: Float32Array.from(want.data) }, 'float64 reference');
});

test("topk: torch's example topk(arange(1., 6.), 3) gives values [5, 4, 3] at indices [4, 3, 2]", () => {
  const { values, indices } = A.topk(f([1, 2, 3, 4, 5]), 3);
  assert.deepEqual(view(values), { shape: [3], values: [5, 4, 3] });
  assert.deepEqual(view(indices), { shape: [3], values: [4, 3, 2] });
  assert.equal(indices.dtype, 'int32');
  assert.equal(String(indices), 'tensor([4, 3, 2], dtype=torch.int32)');
  const smallest = A.topk(f([1, 2, 3, 4, 5]), 2, { largest: false });
  assert.deepEqual(
    [smallest.values.toArray(), smallest.indices.toArray()],
    [
      [1, 2],
      [0, 1],
    ],
  );
});

test('topk: ties by ascending index (one order torch may return), NaN above every number, 0 and -0 equal', () => {
  const top = (values, k, options) => {
    const out = A.topk(new Tensor(Float32Array.from(values)), k, options);
    return [Array.from(out.values.data), Array.from(out.indices.data)];
  };
  assert.deepEqual(top([1, 3, 3, 2, 3], 2), [
    [3, 3],
    [1, 2],
  ]);
  assert.deepEqual(top([1, 3, 3, 2, 3], 4), [
    [3, 3, 3, 2],
    [1, 2, 4, 3],
  ]);
  assert.deepEqual(top([2, 1, 2, 2], 2), [
    [2, 2],
    [0, 2],
  ]);
  assert.deepEqual(top([1, 0, 0, 5], 2, { largest: false }), [
    [0, 0],
    [1, 2],
  ]);
  // NaN counts as the largest value (torch: "we want nan to be sorted as top")
  assert.deepEqual(top([1, NaN, 3, NaN], 3), [
    [NaN, NaN, 3],
    [1, 3, 2],
  ]);
  assert.deepEqual(top([1, NaN, 3], 3, { largest: false }), [
    [1, 3, NaN],
    [0, 2, 1],
  ]);
  const zeros = A.topk(new Tensor(Float32Array.from([-0, 0, -1])), 2);
  assert.deepEqual(Array.from(zeros.indices.data), [0, 1]);
  assert.ok(Object.is(zeros.values.data[0], -0), 'the value as it was, -0');
  // sorted: false gives the same k elements by index
  assert.deepEqual(top([1, 5, 3, 4, 2], 3, { sorted: false }), [
    [5, 3, 4],
    [1, 2, 3],
  ]);
  // long slices with many ties, through both selections (a buffer of k; a full sort for large k)
  const n = 700;
  const x = { data: Float32Array.from({ length: 2 * n }, () => r.int(-3, 3)), shape: [2, n] };
  for (const k of [1, 10, 64, 65, 300, n]) {
    for (const largest of [true, false]) {
      const got = A.topk(x, k, { largest });
      const want = ref.topk(x, k, { largest });
      assert.deepEqual(Array.from(got.values.data), want.values.data, `k ${k} largest ${largest}: values`);
      assert.deepEqual(Array.from(got.indices.data), want.indices.data, `k ${k} largest ${largest}: indices`);
    }
  }
});

test('topk: along any dim (negative too), k 0, empty dims, a 0-d input (its own top value, index 0)', () => {
  const x = f([
    [1, 9, 3],
    [7, 2, 8],
  ]);
  const cols = A.topk(x, 1, { dim: 0 });
  assert.deepEqual(view(cols.values), { shape: [1, 3], values: [[7, 9, 8]] });
  assert.deepEqual(cols.indices.toArray(), [[1, 0, 1]]);
  const rows = A.topk(x, 2, { dim: -1 });
  assert.deepEqual(rows.values.toArray(), [
    [9, 3],
    [8, 7],
  ]);
  assert.deepEqual(rows.indices.toArray(), [
    [1, 2],
    [2, 0],
  ]);
  assert.deepEqual(A.topk(x, 0).values.shape, [2, 0]);
  assert.deepEqual(A.topk(new Tensor(new Float32Array(0), [3, 0]), 0).indices.shape, [3, 0]);
  assert.deepEqual(A.topk(new Tensor(new Float32Array(0), [0, 4]), 2).values.shape, [0, 2]);
  for (const k of [0, 1]) {
    const scalar = A.topk(new Tensor(Float32Array.of(-2.5), []), k);
    assert.deepEqual(
      [view(scalar.values), view(scalar.indices)],
      [
        { shape: [], values: -2.5 },
        { shape: [], values: 0 },
      ],
    );
  }
  // indices are ids: the top tokens' embeddings in one call
  const table = rand(3, 4);
  assert.deepEqual(Array.from(A.embedding(rows.indices, table).data).length, 2 * 2 * 4);
});

test("cosineSimilarity: torch's example, two (100, 128) inputs along dim 1, against float64", () => {
  const x1 = rand(100, 128),
    x2 = rand(100, 128);
  const out = A.cosineSimilarity(x1, x2);
  assert.deepEqual(out.shape, [100]);
  assertNear(out, ref.cosineSimilarity(x1, x2), 'cosine_similarity(input1, input2)');
});

test('cosineSimilarity: zero vectors give 0, parallel ones 1, a norm below eps is eps; broadcasting; dims', () => {
  const x = f([
    [3, 4],
    [0, 0],
    [-6, -8],
  ]);
  const y = f([[6, 8]]); // (1, 2): broadcast over the rows
  assertNear(A.cosineSimilarity(x, y), { data: [1, 0, -1], shape: [3] }, 'rows against one vector');
  assert.equal(A.cosineSimilarity(f([0, 0, 0]), f([0, 0, 0]), { dim: 0 }).get(), 0);
  // (|x| = 5e-9 < eps 1e-8: x / 1e-8 = (0.3, 0.4)) . (3, 4) / 5 = 0.5
  assertNear(A.cosineSimilarity(f([3e-9, 4e-9]), f([3, 4]), { dim: 0 }), { data: [0.5], shape: [] }, 'eps');
  assertNear(A.cosineSimilarity(f([3e-9, 4e-9]), f([3, 4]), { dim: 0, eps: 0 }), { data: [1], shape: [] }, 'eps 0');
  // eps 0 and a zero vector: 0 / 0, as torch
  assert.ok(Number.isNaN(A.cosineSimilarity(f([0, 0]), f([3, 4]), { dim: -1, eps: 0 }).get()));
  // two vectors: dim 0 or -1 (the default 1 is out of range for them, as in torch)
  const a = rand(16),
    b = rand(16);
  const pair = A.cosineSimilarity(a, b, { dim: -1 });
  assert.deepEqual(pair.shape, []);
  assertNear(pair, ref.cosineSimilarity(a, b, { dim: 0 }), 'two vectors');
  // (2, 3, 4) along each dim, negative too; a (3, 1) against (2, 3, 4) stretches its last dim
  const p = rand(2, 3, 4),
    q = rand(2, 3, 4),
    col = rand(3, 1);
  for (const dim of [0, 1, 2, -1, -2, -3]) {
    assertNear(A.cosineSimilarity(p, q, { dim }), ref.cosineSimilarity(p, q, { dim }), `dim ${dim}`);
    assertNear(
      A.cosineSimilarity(col, q, { dim }),
      ref.cosineSimilarity(col, q, { dim }),
      `(3, 1) x (2, 3, 4) dim ${dim}`,
    );
  }
  // 0-d inputs: dims -1 and 0, the product of the signs
  assert.equal(
    A.cosineSimilarity(new Tensor(Float32Array.of(-2), []), new Tensor(Float32Array.of(3), []), { dim: 0 }).get(),
    -1,
  );
  // empty dims: empty vectors give 0 (sums of nothing); no vectors, no result
  assert.deepEqual(
    view(A.cosineSimilarity(new Tensor(new Float32Array(0), [2, 0]), new Tensor(new Float32Array(0), [2, 0]))),
    {
      shape: [2],
      values: [0, 0],
    },
  );
  assert.deepEqual(A.cosineSimilarity(new Tensor(new Float32Array(0), [0, 5]), rand(5), { dim: -1 }).shape, [0]);
  // one tensor as both arguments
  assertNear(A.cosineSimilarity(p, p, { dim: -1 }), ref.cosineSimilarity(p, p, { dim: -1 }), 'x with itself');
});

test('every error message of the helpers, exactly; the module works afterwards and inputs are untouched', () => {
  const x = f([
    [1, 2, 3],
    [4, 5, 6],
  ]);
  const before = Buffer.from(x.data.buffer).toString('hex');
  const scalar = new Tensor(Float32Array.of(1), []);
  const cases = [
    [() => A.transpose(x, 2, 0), RangeError, 'transpose: dim0 2 is out of range [-2, 1] for input [2, 3]'],
    [() => A.transpose(x, 0, -3), RangeError, 'transpose: dim1 -3 is out of range [-2, 1] for input [2, 3]'],
    [() => A.transpose(scalar, 0, 1), RangeError, 'transpose: dim1 1 is out of range [-1, 0] for input []'],
    [() => A.transpose(x, '0', 1), TypeError, 'transpose: dim0 must be an integer, got string'],
    [() => A.transpose(x, 0, 1.5), RangeError, 'transpose: dim1 must be an integer, got 1.5'],
    [
      () => A.transpose(3, 0, 1),
      TypeError,
      'transpose: input must be a Tensor ({data: Float32Array, Uint8Array (bool) or Int32Array (int32), shape}), got number',
    ],
    [
      () => A.transpose({ data: new Float64Array(2), shape: [2] }, 0, 0),
      TypeError,
      'transpose: input must have Float32Array, Uint8Array (bool) or Int32Array (int32) data, got Float64Array(2) with shape [2]',
    ],
    [
      () => A.permute(x, [0]),
      RangeError,
      'permute: dims has 1 entries but input [2, 3] has 2 dims (dims orders all of them)',
    ],
    [
      () => A.permute(x, [1, -1]),
      RangeError,
      'permute: dims [1, -1] names dim 1 twice (negative dims count from the end); each dim of input [2, 3] must appear once',
    ],
    [() => A.permute(x, [0, 2]), RangeError, 'permute: dims[1] 2 is out of range [-2, 1] for input [2, 3]'],
    [() => A.permute(x, 1, 0), TypeError, 'permute: dims must be an array of 2 dims (a permutation), got number'],
    [() => A.select(x, 1, 3), RangeError, 'select: index 3 is out of range [-3, 2] for dim 1 (size 3) of input [2, 3]'],
    [
      () => A.select(x, 0, -3),
      RangeError,
      'select: index -3 is out of range [-2, 1] for dim 0 (size 2) of input [2, 3]',
    ],
    [
      () => A.select(new Tensor(new Float32Array(0), [2, 0]), 1, 0),
      RangeError,
      'select: index 0 is out of range for dim 1 (size 0) of input [2, 0]',
    ],
    [
      () => A.select(scalar, 0, 0),
      RangeError,
      'select: input is 0-d (shape []): it has no dim to select along (as in torch)',
    ],
    [() => A.select(x, 0, '1'), TypeError, 'select: index must be an integer, got string'],
    [
      () => A.narrow(x, 1, 4, 0),
      RangeError,
      'narrow: start 4 is out of range [-3, 3] for dim 1 (size 3) of input [2, 3]',
    ],
    [
      () => A.narrow(x, 1, 2, 2),
      RangeError,
      'narrow: start 2 + length 2 runs past the end of dim 1 (size 3) of input [2, 3]',
    ],
    [
      () => A.narrow(x, 1, -2, 3),
      RangeError,
      'narrow: start -2 (1) + length 3 runs past the end of dim 1 (size 3) of input [2, 3]',
    ],
    [() => A.narrow(x, 0, 0, -1), RangeError, 'narrow: length must be non-negative, got -1'],
    [
      () => A.narrow(scalar, 0, 0, 1),
      RangeError,
      'narrow: input is 0-d (shape []): it has no dim to narrow along (as in torch)',
    ],
    [() => A.narrow(x, 0, 0), TypeError, 'narrow: length must be an integer, got undefined'],
    [() => A.topk(x, 4), RangeError, 'topk: k 4 is out of range [0, 3] for dim 1 (size 3) of input [2, 3]'],
    [
      () => A.topk(x, -1, { dim: 0 }),
      RangeError,
      'topk: k -1 is out of range [0, 2] for dim 0 (size 2) of input [2, 3]',
    ],
    [() => A.topk(scalar, 2), RangeError, 'topk: k 2 is out of range [0, 1] for dim 0 (size 1) of input []'],
    [() => A.topk(x, 1, { dim: -3 }), RangeError, 'topk: dim -3 is out of range [-2, 1] for input [2, 3]'],
    [() => A.topk(x, '1'), TypeError, 'topk: k must be an integer, got string'],
    [() => A.topk(x, 1, { largest: 1 }), TypeError, 'topk: largest must be a boolean, got number'],
    [() => A.topk(x, 1, { k: 1 }), TypeError, "topk: unknown option 'k' (allowed: dim, largest, sorted)"],
    [
      () => A.topk(new Tensor(Int32Array.of(1, 2)), 1),
      TypeError,
      'topk: input must have Float32Array data, got Int32Array(2) with shape [2]',
    ],
    [
      () => A.cosineSimilarity(x, f([1, 2])),
      Error,
      'cosineSimilarity: x1 [2, 3] and x2 [2]: shapes [2, 3] and [2] are not broadcastable (dim 1: 3 vs 2)',
    ],
    [
      () => A.cosineSimilarity(f([1, 2]), f([3, 4])),
      RangeError,
      'cosineSimilarity: dim 1 is out of range [-1, 0] for x1 [2] and x2 [2] (broadcast to [2]); dim defaults to 1: for two vectors give dim -1',
    ],
    [
      () => A.cosineSimilarity(x, x, { dim: -3 }),
      RangeError,
      'cosineSimilarity: dim -3 is out of range [-2, 1] for x1 [2, 3] and x2 [2, 3] (broadcast to [2, 3])',
    ],
    [
      () => A.cosineSimilarity(x, x, { eps: -1e-8 }),
      RangeError,
      'cosineSimilarity: eps must be non-negative, got -1e-08 (x1 [2, 3] and x2 [2, 3])',
    ],
    [() => A.cosineSimilarity(x, x, { eps: NaN }), RangeError, 'cosineSimilarity: eps must not be NaN'],
    [() => A.cosineSimilarity(x, x, { dim: 0.5 }), RangeError, 'cosineSimilarity: dim must be an integer, got 0.5'],
    [
      () => A.cosineSimilarity(x, { data: new Uint8Array(6), shape: [2, 3] }),
      TypeError,
      'cosineSimilarity: x2 must have Float32Array data, got Uint8Array(6) with shape [2, 3]',
    ],
  ];
  for (const [run, type, message] of cases) {
    let error;
    try {
      run();
    } catch (e) {
      error = e;
    }
    assert.equal(error?.message, message);
    assert.equal(error.constructor, type, message);
    assert.ok(canary(A), `after: ${message}`);
  }
  assert.equal(Buffer.from(x.data.buffer).toString('hex'), before, "the caller's array was written to");
});

test('topk and permute read their options and dims before the input: a getter that shrinks its buffer is a RangeError, not garbage', () => {
  const shrinking = (bytes, values, shape) => {
    const buffer = new ArrayBuffer(bytes, { maxByteLength: 2 * bytes });
    const data = new Float32Array(buffer);
    data.set(values);
    return { buffer, x: { data, shape } };
  };
  const a = shrinking(24, [1, 2, 3, 4, 5, 6], [2, 3]);
  const options = {
    get dim() {
      a.buffer.resize(8);
      return 0;
    },
  };
  assert.throws(() => A.topk(a.x, 1, options), {
    name: 'RangeError',
    message: 'topk: input has shape [2, 3] (6 elements) but its data has 2',
  });
  const b = shrinking(
    96,
    Array.from({ length: 24 }, (_, i) => i),
    [2, 3, 4],
  );
  const dims = [2, 0, 1];
  Object.defineProperty(dims, 0, {
    get() {
      b.buffer.resize(16);
      return 2;
    },
  });
  // a dims array of the wrong length is refused before it is read (a sparse one of 2^32 - 1)
  assert.throws(() => A.permute(b.x, new Array(2 ** 32 - 1)), {
    name: 'RangeError',
    message: /^permute: dims has 4294967295 entries but input \[2, 3, 4\] has 3 dims/,
  });
  assert.throws(() => A.permute(b.x, dims), {
    name: 'RangeError',
    message: 'permute: input has shape [2, 3, 4] (24 elements) but its data has 4',
  });
});
