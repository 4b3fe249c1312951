// Bad input to MultiheadAttention (and the SDPA traps it shares): each call throws the right
// error class with a message naming the argument and the shapes, and the module keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import { rng, randomTensor } from './reference/index.mjs';

const A = await library();
const r = rng(99);
const m = new A.MultiheadAttention({ embedDim: 8, numHeads: 2 });
const x = randomTensor([5, 3, 8], r); // (L, N, E)
const before = m.forward(x, x, x);

const throwsLike = (fn, cls, pattern) =>
  assert.throws(fn, (e) => {
    assert.equal(e.constructor, cls, `expected ${cls.name}, got ${e.constructor.name}: ${e.message}`);
    assert.match(e.message, pattern);
    return true;
  });

test('constructor: embedDim % numHeads, sizes, types, unknown options', () => {
  throwsLike(
    () => new A.MultiheadAttention({ embedDim: 10, numHeads: 3 }),
    RangeError,
    /embedDim 10 must be divisible by numHeads 3/,
  );
  throwsLike(
    () => new A.MultiheadAttention({ embedDim: 8, numHeads: 0 }),
    RangeError,
    /numHeads must be a positive integer, got 0/,
  );
  throwsLike(
    () => new A.MultiheadAttention({ embedDim: '8', numHeads: 2 }),
    TypeError,
    /embedDim must be a positive integer, got string/,
  );
  throwsLike(
    () => new A.MultiheadAttention({ embedDim: 8, numHeads: 2, kdim: 2.5 }),
    RangeError,
    /kdim must be a positive integer, got 2.5/,
  );
  throwsLike(
    () => new A.MultiheadAttention({ embedDim: 8, numHeads: 2, heads: 2 }),
    TypeError,
    /unknown option 'heads'/,
  );
  throwsLike(() => new A.MultiheadAttention(), TypeError, /options \{embedDim, numHeads\} are required/);
  throwsLike(
    () => new A.MultiheadAttention({ embedDim: 8, numHeads: 2, dropout: 1.5 }),
    RangeError,
    /dropout must be a probability in \[0, 1\], got 1.5/,
  );
  assert.equal(new A.MultiheadAttention({ embedDim: 8, numHeads: 2, dropout: 0.1 }).dropout, 0.1); // kept, never applied (eval mode)
  throwsLike(
    () => new A.MultiheadAttention({ embedDim: 8, numHeads: 2, batchFirst: 1 }),
    TypeError,
    /batchFirst must be a boolean/,
  );
});

test('Linear, LayerNorm and the settings: options checked as every function checks them, settings read-only', () => {
  throwsLike(() => new A.Linear(null), TypeError, /^Linear: options \{inFeatures, outFeatures\} are required$/);
  throwsLike(
    () => new A.Linear({ inFeatures: 2, outFeatures: 3, bais: false }),
    TypeError,
    /^Linear: unknown option 'bais' \(allowed: inFeatures, outFeatures, bias\)$/,
  );
  throwsLike(
    () => new A.Linear({ inFeatures: 2, outFeatures: 3, bias: 'no' }),
    TypeError,
    /^Linear: bias must be a boolean/,
  );
  throwsLike(
    () => new A.Linear({ inFeatures: 2 ** 15, outFeatures: 2 ** 15 }),
    RangeError,
    /^Linear: outFeatures 32768 and inFeatures 32768: a weight \[32768, 32768\] of more than 2\^29 floats$/,
  );
  throwsLike(
    () => new A.LayerNorm({ features: 4 }),
    TypeError,
    /^LayerNorm: unknown option 'features' \(allowed: normalizedShape, eps, elementwiseAffine, bias\)/,
  );
  for (const [shape, type, message] of [
    [
      [],
      TypeError,
      /^LayerNorm: normalizedShape must be a positive integer or a non-empty array of them, got Array\(0\)$/,
    ],
    [
      '4',
      TypeError,
      /^LayerNorm: normalizedShape must be a positive integer or a non-empty array of them, got string$/,
    ],
    [[4, 0], RangeError, /^LayerNorm: normalizedShape\[1\] must be a positive integer, got 0$/],
    [
      [2 ** 15, 2 ** 15],
      RangeError,
      /^LayerNorm: normalizedShape \[32768, 32768\]: a weight of more than 2\^29 floats$/,
    ],
  ])
    throwsLike(() => new A.LayerNorm({ normalizedShape: shape }), type, message);
  throwsLike(
    () => new A.LayerNorm({ normalizedShape: 4, eps: -1 }),
    RangeError,
    /^LayerNorm: eps must be non-negative, got -1$/,
  );
  // eps 0 as torch.nn.LayerNorm(4, eps=0) takes it: a constant row is 0 / 0
  const noEps = new A.LayerNorm({ normalizedShape: 2, eps: 0 });
  assert.deepEqual(Array.from(noEps.forward(new Tensor(Float32Array.of(1, 3, 2, 2), [2, 2])).data), [-1, 1, NaN, NaN]);
  throwsLike(
    () => new A.TransformerEncoderLayer({ dModel: 4, nhead: 2, layerNormEps: -1e-9 }),
    RangeError,
    /^TransformerEncoderLayer: layerNormEps must be non-negative, got -1e-9$/,
  );
  assert.equal(new A.TransformerEncoderLayer({ dModel: 4, nhead: 2, layerNormEps: 0 }).layerNormEps, 0);
  throwsLike(
    () => new A.LayerNorm({ normalizedShape: 4, bias: 'no' }),
    TypeError,
    /^LayerNorm: bias must be a boolean/,
  );
  throwsLike(
    () => new A.MultiheadAttention({ embedDim: 2 ** 20, numHeads: 1 }),
    RangeError,
    /^MultiheadAttention: embedDim 1048576: a weight \[3145728, 1048576\] of more than 2\^29 floats$/,
  );
  // q, k and v of their own sizes: each within the bound (the largest 1024 x 200000), built
  const apart = new A.MultiheadAttention({ embedDim: 8, numHeads: 2, kdim: 100000, vdim: 4 });
  assert.deepEqual([apart.kdim, apart.sameEmbedDim, m.sameEmbedDim], [100000, false, true]);
  throwsLike(
    () => new A.MultiheadAttention({ embedDim: 8, numHeads: 2, kdim: 2 ** 27 }),
    RangeError,
    /^MultiheadAttention: embedDim 8 and kdim 134217728: a weight \[8, 134217728\] of more than 2\^29 floats$/,
  );
  throwsLike(
    () => new A.TransformerEncoderLayer({ dModel: 14000, nhead: 2, dimFeedforward: 16 }),
    RangeError,
    /^TransformerEncoderLayer: dModel 14000: a weight \[42000, 14000\] of more than 2\^29 floats$/,
  );
  // the settings are the structure the parameters were built for: read-only, as index.d.ts says
  const layer = new A.TransformerEncoderLayer({ dModel: 8, nhead: 2, dimFeedforward: 16 });
  for (const [owner, name, value] of [
    [m, 'numHeads', 1.5],
    [m, 'batchFirst', 'yes'],
    [layer, 'activation', 'tanh'],
    [layer, 'layerNormEps', -1],
    [layer.norm1, 'eps', 1e-3],
    [layer.linear1, 'inFeatures', 4],
  ])
    throwsLike(
      () => {
        owner[name] = value;
      },
      TypeError,
      new RegExp(`Cannot assign to read only property '${name}'`),
    );
  assert.equal(m.numHeads, 2);
  assert.equal(layer.norm1.eps, 1e-5);
  // an options object that is a Map (or a Date...) is not one: its entries are not options
  throwsLike(() => A.softmax(x, new Map([['dim', 5]])), TypeError, /^softmax: options must be an object, got Map/);
  assert.deepEqual(Array.from(m.forward(x, x, x).output.data), Array.from(before.output.data));
});

test('parameters: wrong shape or dtype when set, and when changed in place before use', () => {
  throwsLike(
    () => {
      m.inProjWeight = randomTensor([8, 8], r);
    },
    Error,
    /inProjWeight \(in_proj_weight\) must have shape \[24, 8\], got \[8, 8\]/,
  );
  throwsLike(
    () => {
      m.outProjBias = randomTensor([7], r);
    },
    Error,
    /MultiheadAttention.outProj: bias must have shape \[8\], got \[7\]/,
  );
  throwsLike(
    () => {
      m.inProjWeight = { data: new Float64Array(192), shape: [24, 8] };
    },
    TypeError,
    /inProjWeight must have Float32Array data, got Float64Array\(192\)/,
  );
  throwsLike(
    () => {
      m.inProjWeight = null;
    },
    TypeError,
    /inProjWeight must be a Tensor/,
  );
  const cross = new A.MultiheadAttention({ embedDim: 8, numHeads: 2, kdim: 5 });
  throwsLike(
    () => {
      cross.kProjWeight = randomTensor([8, 8], r);
    },
    Error,
    /kProjWeight \(k_proj_weight\) must have shape \[8, 5\], got \[8, 8\]/,
  );
  // changed in place after being set: caught at use, before any copy into wasm memory
  const w = m.inProjWeight;
  const saved = w.shape;
  w.shape = [12, 16];
  throwsLike(
    () => m.forward(x, x, x),
    Error,
    /MultiheadAttention.forward: parameter in_proj_weight must have shape \[24, 8\], got \[12, 16\]/,
  );
  w.shape = [24, 9];
  throwsLike(
    () => m.forward(x, x, x),
    RangeError,
    /parameter in_proj_weight has shape \[24, 9\] \(216 elements\) but its data has 192/,
  );
  w.shape = saved;
});

test('forward: incompatible shapes name the argument and every shape', () => {
  throwsLike(
    () => m.forward(randomTensor([5, 3, 7], r), x, x),
    Error,
    /MultiheadAttention.forward: query's last dimension must be embedDim 8, got query \[5, 3, 7\], key \[5, 3, 8\], value \[5, 3, 8\]/,
  );
  throwsLike(
    () => m.forward(x, randomTensor([5, 2, 8], r), randomTensor([5, 2, 8], r)),
    Error,
    /same batch size N = 3 \(dim 1\), got query \[5, 3, 8\], key \[5, 2, 8\], value \[5, 2, 8\]/,
  );
  throwsLike(
    () => m.forward(x, randomTensor([4, 3, 8], r), x),
    Error,
    /key and value must have the same sequence length S = 4, got query \[5, 3, 8\], key \[4, 3, 8\], value \[5, 3, 8\]/,
  );
  throwsLike(
    () => m.forward(x, randomTensor([5, 8], r), randomTensor([5, 8], r)),
    Error,
    /all be batched \(3-D\) or all unbatched \(2-D\)/,
  );
  throwsLike(
    () => m.forward(randomTensor([1, 5, 3, 8], r), x, x),
    Error,
    /query must be \(L, E\) unbatched or \(L, N, E\)/,
  );
  throwsLike(() => m.forward(x, x, randomTensor([5, 3, 6], r)), Error, /value's last dimension must be vdim 8/);
  throwsLike(
    () => m.forward(x, x, { data: new Float32Array(3), shape: [5, 3, 8] }),
    RangeError,
    /value has shape \[5, 3, 8\] \(120 elements\) but its data has 3/,
  );
  throwsLike(() => m.forward(x, x, [1, 2]), TypeError, /value must have Float32Array data/);
});

test('forward: masks that do not fit, wrong mask dtype, bad options', () => {
  const bool = (shape) => new Tensor(new Uint8Array(shape.reduce((a, b) => a * b, 1)), shape);
  throwsLike(
    () => m.forward(x, x, x, { keyPaddingMask: bool([5, 3]) }),
    Error,
    /^MultiheadAttention\.forward: keyPaddingMask must have shape \(N, S\) = \[3, 5\], got \[5, 3\] for query \[5, 3, 8\]/,
  );
  throwsLike(
    () => m.forward(x, x, x, { attnMask: bool([5, 6]) }),
    Error,
    /^MultiheadAttention\.forward: attnMask must have shape \(L, S\) = \[5, 5\] or \(N\*numHeads, L, S\) = \[6, 5, 5\], got \[5, 6\]/,
  );
  throwsLike(
    () => m.forward(x, x, x, { attnMask: bool([3, 5, 5]) }),
    Error,
    /^MultiheadAttention\.forward: attnMask must have shape .* got \[3, 5, 5\]/,
  );
  throwsLike(
    () => m.forward(x, x, x, { attnMask: { data: new Int32Array(25), shape: [5, 5] } }),
    TypeError,
    /attnMask must have Uint8Array \(boolean\) or Float32Array \(additive\) data, got Int32Array\(25\)/,
  );
  throwsLike(() => m.forward(x, x, x, { keyPaddingMask: [[true]] }), TypeError, /keyPaddingMask must have Uint8Array/);
  throwsLike(() => m.forward(x, x, x, { needWeights: 'no' }), TypeError, /needWeights must be a boolean, got string/);
  throwsLike(() => m.forward(x, x, x, { key_padding_mask: null }), TypeError, /unknown option 'key_padding_mask'/);
});

test('SDPA traps: Hq % H != 0 with enableGqa, masks that do not broadcast', () => {
  const q = randomTensor([1, 6, 3, 4], r),
    k = randomTensor([1, 4, 5, 4], r);
  throwsLike(
    () => A.scaledDotProductAttention(q, k, k, { enableGqa: true }),
    Error,
    /query heads \(6\) must be a multiple of the key heads \(4\) and of the value heads \(4\), got query \[1, 6, 3, 4\], key \[1, 4, 5, 4\]/,
  );
  const k2 = randomTensor([1, 6, 5, 4], r);
  throwsLike(
    () => A.scaledDotProductAttention(q, k2, k2, { attnMask: randomTensor([3, 4], r) }),
    Error,
    /attnMask \[3, 4\] must broadcast to \(N\.\.\., L, S\) = \[1, 6, 3, 5\]/,
  );
});

test('the module keeps working after many errors, with the same result', () => {
  for (let i = 0; i < 2000; i++) {
    assert.throws(() => m.forward(x, x, x, { attnMask: new Tensor(new Uint8Array(30), [5, 6]) }), {
      name: 'Error',
      message: /^MultiheadAttention\.forward: attnMask must have shape \(L, S\) = \[5, 5\]/,
    });
  }
  const after = m.forward(x, x, x);
  assert.deepEqual(Array.from(after.output.data), Array.from(before.output.data));
  assert.deepEqual(Array.from(after.weights.data), Array.from(before.weights.data));
});
