// TransformerEncoderLayer against the float64 reference (post-norm and pre-norm, relu and gelu,
// every layout, masks), torch's parameter names, loadStateDict, bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import { assertNear, encoderLayer, rng, randomTensor } from './reference/index.mjs';

const A = await library();

/** A layer with random parameters (norm weights around 1) and the same parameters for the reference. */
function makeLayer(opts, random) {
  const layer = new A.TransformerEncoderLayer(opts);
  const E = opts.dModel,
    F = opts.dimFeedforward;
  const sd = {
    'self_attn.in_proj_weight': randomTensor([3 * E, E], random, 1 / Math.sqrt(E)),
    'self_attn.in_proj_bias': randomTensor([3 * E], random, 0.1),
    'self_attn.out_proj.weight': randomTensor([E, E], random, 1 / Math.sqrt(E)),
    'self_attn.out_proj.bias': randomTensor([E], random, 0.1),
    'linear1.weight': randomTensor([F, E], random, 1 / Math.sqrt(E)),
    'linear1.bias': randomTensor([F], random, 0.1),
    'linear2.weight': randomTensor([E, F], random, 1 / Math.sqrt(F)),
    'linear2.bias': randomTensor([E], random, 0.1),
    'norm1.weight': new Tensor(
      randomTensor([E], random, 0.2).data.map((v) => 1 + v),
      [E],
    ),
    'norm1.bias': randomTensor([E], random, 0.1),
    'norm2.weight': new Tensor(
      randomTensor([E], random, 0.2).data.map((v) => 1 + v),
      [E],
    ),
    'norm2.bias': randomTensor([E], random, 0.1),
  };
  layer.loadStateDict(sd);
  const p = {
    selfAttn: {
      inProjWeight: sd['self_attn.in_proj_weight'],
      inProjBias: sd['self_attn.in_proj_bias'],
      outProjWeight: sd['self_attn.out_proj.weight'],
      outProjBias: sd['self_attn.out_proj.bias'],
    },
    linear1Weight: sd['linear1.weight'],
    linear1Bias: sd['linear1.bias'],
    linear2Weight: sd['linear2.weight'],
    linear2Bias: sd['linear2.bias'],
    norm1Weight: sd['norm1.weight'],
    norm1Bias: sd['norm1.bias'],
    norm2Weight: sd['norm2.weight'],
    norm2Bias: sd['norm2.bias'],
  };
  return { layer, p };
}

test('torch parameter names, defaults and initialisation', () => {
  const layer = new A.TransformerEncoderLayer({ dModel: 8, nhead: 2 });
  assert.deepEqual(Object.keys(layer.stateDict()), [
    'self_attn.in_proj_weight',
    'self_attn.in_proj_bias',
    'self_attn.out_proj.weight',
    'self_attn.out_proj.bias',
    'linear1.weight',
    'linear1.bias',
    'linear2.weight',
    'linear2.bias',
    'norm1.weight',
    'norm1.bias',
    'norm2.weight',
    'norm2.bias',
  ]);
  assert.deepEqual(layer.linear1.weight.shape, [2048, 8]);
  assert.deepEqual(layer.linear2.weight.shape, [8, 2048]);
  assert.ok(layer.norm1.weight.data.every((v) => v === 1) && layer.norm1.bias.data.every((v) => v === 0));
  assert.equal(layer.selfAttn.numHeads, 2);
  assert.equal(layer.activation, 'relu');
  assert.equal(layer.layerNormEps, 1e-5);
  assert.ok(layer.linear1.weight.data.every((v) => Math.abs(v) <= 1 / Math.sqrt(8)));
});

test('forward agrees with float64: post-norm / pre-norm, relu / gelu, seq-first / batchFirst / unbatched, masks', () => {
  const r = rng(31);
  let trial = 0;
  for (const normFirst of [false, true]) {
    for (const activation of ['relu', 'gelu']) {
      for (const layout of ['seq', 'batch', 'unbatched']) {
        const E = [4, 6, 12][trial % 3],
          nhead = [1, 2, 3][trial % 3],
          F = [5, 17, 33][trial % 3],
          L = [3, 5, 7][trial % 3],
          N = 2;
        trial++;
        const batchFirst = layout === 'batch';
        const { layer, p } = makeLayer({ dModel: E, nhead, dimFeedforward: F, activation, normFirst, batchFirst }, r);
        const shape = layout === 'unbatched' ? [L, E] : batchFirst ? [N, L, E] : [L, N, E];
        const src = randomTensor(shape, r, 2);
        const opts = [
          {},
          { isCausal: true },
          { srcMask: randomTensor([L, L], r, 2) },
          {
            srcKeyPaddingMask: new Tensor(
              Uint8Array.from({ length: layout === 'unbatched' ? L : N * L }, (_, i) => (i % L === L - 1 ? 1 : 0)),
              layout === 'unbatched' ? [L] : [N, L],
            ),
          },
        ][trial % 4];
        const label = `normFirst=${normFirst} ${activation} ${layout} ${Object.keys(opts).join(',')}`;
        const got = layer.forward(src, opts);
        const ref = encoderLayer(src, p, { nhead, batchFirst, normFirst, activation, ...opts });
        assertNear(got, ref, label);
      }
    }
  }
});

test('loadStateDict copies the tensors given, as torch (param.copy_): changing them later changes nothing', () => {
  const source = new A.TransformerEncoderLayer({ dModel: 4, nhead: 2, dimFeedforward: 8 });
  const layer = new A.TransformerEncoderLayer({ dModel: 4, nhead: 2, dimFeedforward: 8 });
  const x = A.randn(1, 3, 4);
  const given = source.stateDict();
  layer.loadStateDict(given);
  const before = Array.from(layer.forward(x).data);
  assert.deepEqual(before, Array.from(source.forward(x).data));
  for (const t of Object.values(given)) t.data.fill(0);
  const plain = { data: new Float32Array(16).fill(0.5), shape: [4, 4] }; // a {data, shape} object too
  layer.selfAttn.outProj.loadStateDict({ weight: plain, bias: layer.selfAttn.outProj.bias });
  plain.data.fill(0);
  assert.notEqual(layer.selfAttn.outProj.weight.data, plain.data);
  assert.ok(layer.selfAttn.outProj.weight.data.every((v) => v === 0.5));
  layer.selfAttn.outProj.loadStateDict(source.selfAttn.outProj.stateDict()); // zeros now
  assert.ok(layer.selfAttn.outProj.weight.data.every((v) => v === 0));
  assert.ok(layer.linear1.weight.data.some((v) => v !== 0)); // loaded before the source was zeroed
});

test('loadStateDict: an absent parameter (bias: false, no elementwiseAffine) is no key, as torch skips None', () => {
  const linear = new A.Linear({ inFeatures: 2, outFeatures: 3, bias: false });
  const given = { weight: new Tensor(new Float32Array(6).fill(1), [3, 2]), bias: new Tensor(new Float32Array(3), [3]) };
  assert.throws(() => linear.loadStateDict(given), {
    name: 'Error',
    message: 'Linear.loadStateDict: unexpected key(s) "bias"',
  });
  assert.deepEqual(linear.loadStateDict(given, { strict: false }), { missingKeys: [], unexpectedKeys: ['bias'] });
  assert.deepEqual([linear.bias, Array.from(linear.weight.data)], [null, [1, 1, 1, 1, 1, 1]]);
  const norm = new A.LayerNorm({ normalizedShape: 3, elementwiseAffine: false });
  assert.deepEqual(norm.loadStateDict({ weight: new Tensor(new Float32Array(3).fill(2)) }, { strict: false }), {
    missingKeys: [],
    unexpectedKeys: ['weight'],
  });
  assert.equal(norm.weight, null);
});

test('loadStateDict by torch name; bad input names the argument and shapes', () => {
  const layer = new A.TransformerEncoderLayer({ dModel: 4, nhead: 2, dimFeedforward: 8 });
  const throwsLike = (fn, cls, pattern) =>
    assert.throws(fn, (e) => {
      assert.equal(e.constructor, cls, `${e.constructor.name}: ${e.message}`);
      assert.match(e.message, pattern);
      return true;
    });
  throwsLike(
    () => layer.loadStateDict({ ...layer.stateDict(), 'linear1.weight': new Tensor(new Float32Array(32), [4, 8]) }),
    Error,
    /size mismatch for linear1\.weight: copying a param with shape \[4, 8\], the shape in the current model is \[8, 4\]/,
  );
  throwsLike(
    () => {
      layer.norm2.bias = new Tensor(new Float32Array(3));
    },
    Error,
    /TransformerEncoderLayer\.norm2: bias must have shape \[4\], got \[3\]/,
  );
  throwsLike(
    () => new A.TransformerEncoderLayer({ dModel: 6, nhead: 4 }),
    RangeError,
    /dModel 6 must be divisible by nhead 4/,
  );
  throwsLike(
    () => new A.TransformerEncoderLayer({ dModel: 4, nhead: 2, activation: 'tanh' }),
    TypeError,
    /activation must be 'relu' or 'gelu', got 'tanh'/,
  );
  const src = randomTensor([3, 2, 4], rng(1));
  throwsLike(
    () => layer.forward(src, { srcMask: new Tensor(new Uint8Array(6), [3, 2]) }),
    Error,
    /^TransformerEncoderLayer\.forward: srcMask must have shape \(L, S\) = \[3, 3\].*got \[3, 2\]/,
  );
  throwsLike(
    () => layer.forward(src, { srcKeyPaddingMask: { data: new Int8Array(6), shape: [2, 3] } }),
    TypeError,
    /srcKeyPaddingMask must have Uint8Array/,
  );
  throwsLike(
    () => layer.forward(randomTensor([3, 2, 5], rng(2))),
    Error,
    /TransformerEncoderLayer.forward: src's last dimension must be dModel 4, got src \[3, 2, 5\]/,
  );
  throwsLike(() => layer.forward(src, { src_mask: null }), TypeError, /unknown option 'src_mask'/);
  assert.deepEqual(layer.forward(src).shape, [3, 2, 4]);
});
