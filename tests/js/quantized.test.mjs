// Int8 ("q8") weights: A.quantize and the QuantizedTensor's life (dispose, the instance it belongs
// to), the int8 linear layer byte for byte against its definition (quantized_reference.mjs) in the
// relaxed-SIMD, SIMD128 and threaded builds alike, A.Linear with an int8 weight inside
// MultiheadAttention and TransformerEncoderLayer, and its accuracy against float32.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init, QuantizedTensor, Tensor } from 'attention-wasm';
import { relaxedSimdSupported } from '../../dist/builds.js';
import { library } from './helpers.mjs';
import * as ref from './reference/index.mjs';

const { rng } = ref;
const q8 = ref; // the int8 layer's definition (reference/quantized.mjs)

const A = await library();

function randomTensor(next, shape, scale = 1) {
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) data[i] = (next() * 2 - 1) * scale;
  return new Tensor(data, shape);
}

test('quantize: a q8 weight in wasm memory, dequantize within half a step, dispose frees it', () => {
  const next = rng(1);
  const w = randomTensor(next, [24, 40], 0.1);
  const before = A.memoryStats().allocatedBytes;
  const wq = A.quantize(w);
  assert.ok(wq instanceof QuantizedTensor);
  assert.equal(wq.dtype, 'q8');
  assert.deepEqual(wq.shape, [24, 40]);
  assert.equal(wq.residentBytes, 24 * 40 + 24 * 8); // values + a scale and a sum per channel
  assert.ok(A.memoryStats().allocatedBytes > before);
  const back = wq.dequantize();
  const { q, scales } = q8.quantizeWeight(w);
  for (let j = 0; j < 24; j++)
    for (let p = 0; p < 40; p++) {
      assert.equal(back.data[j * 40 + p], Math.fround(scales[j] * q[j * 40 + p]));
      assert.ok(Math.abs(back.data[j * 40 + p] - w.data[j * 40 + p]) <= scales[j] / 2 + 1e-9);
    }
  wq.dispose();
  wq.dispose(); // idempotent
  assert.equal(wq.disposed, true);
  assert.equal(wq.residentBytes, 0);
  assert.equal(A.memoryStats().allocatedBytes, before);
  assert.throws(() => wq.dequantize(), /^Error: dequantize: the quantized weight \[24, 40\] has been disposed/);
});

test('linear with a q8 weight: byte for byte the definition, in every build of this engine, 1 and 2 threads', async () => {
  const next = rng(2);
  const x = randomTensor(next, [3, 37, 70], 2),
    w = randomTensor(next, [45, 70], 0.2),
    bias = randomTensor(next, [45]);
  const want = q8.quantizedLinear(x, q8.quantizeWeight(w), bias).data;
  const builds = [{ simd: 'simd128' }, { simd: 'simd128', threads: 2 }];
  if (relaxedSimdSupported()) builds.push({ simd: 'relaxed' }, { simd: 'relaxed', threads: 2 });
  for (const options of builds) {
    const B = await init(options);
    const wq = B.quantize(w);
    const y = B.linear(x, wq, bias);
    assert.deepEqual(y.shape, [3, 37, 45]);
    const i = q8.firstDifference(y.data, want);
    assert.equal(
      i,
      -1,
      `${JSON.stringify(options)} ${B.buildInfo().int8Product}: element ${i}: ${y.data[i]} != ${want[i]}`,
    );
    wq.dispose();
    B.dispose();
  }
});

test("linear with a q8 weight at float32's extremes: finite where float32 is, byte for byte the definition", async () => {
  // rows whose 127 / range overflows (under ~3.7e-37: an activation after a ReLU, a pruned weight
  // row), a range hi - lo that overflows, weights whose quad sums overflow (quantize.hpp)
  const cases = [
    { x: [[1e-37, 0, 0, 0]], w: [[3e37, 1e37, 1e37, 0]] },
    {
      x: [[1e-37, 0, 0, 0]],
      w: [
        [1, 2, 3, 4],
        [-1, 0.5, 0.25, 0],
      ],
    },
    { x: [[2e38, -2e38, 0, 0]], w: [[1e-30, 0, 0, 0]] },
    { x: [[1e-30, 0, 0, 0, 0, 0, 0, 0]], w: [[2e38, 2e38, 0, 0, 0, 0, 0, 0]] },
    { x: [[1, 1, 1, 1]], w: [[1e-37, 0, 0, 0]] },
  ];
  const builds = [{ simd: 'simd128' }];
  if (relaxedSimdSupported()) builds.push({ simd: 'relaxed' });
  for (const options of builds) {
    const B = await init(options);
    for (const { x, w } of cases) {
      for (const wide of [false, true]) {
        // the same values at k = 4 or 8 and repeated along k = 40 (the vector loops and a tail)
        const widen = (rows) => rows.map((r) => (wide ? Array.from({ length: 40 }, (_, p) => r[p % r.length]) : r));
        const xt = Tensor.fromArray(widen(x)),
          wt = Tensor.fromArray(widen(w));
        const wq = B.quantize(wt);
        const y = B.linear(xt, wq).data,
          exact = B.linear(xt, wt).data;
        const want = q8.quantizedLinear(xt, q8.quantizeWeight(wt)).data;
        const label = `${JSON.stringify(options)} x ${JSON.stringify(x)} w ${JSON.stringify(w)} k ${xt.shape[1]}`;
        assert.equal(q8.firstDifference(y, want), -1, `${label}: ${y} != ${want}`);
        for (let j = 0; j < y.length; j++) {
          assert.ok(Number.isFinite(y[j]), `${label}: output ${j} is ${y[j]} where float32 gives ${exact[j]}`);
          // the sign of float32's result (or 0: a row under 1 / FLT_MAX quantizes to zeros)
          assert.ok(Math.sign(y[j]) === Math.sign(exact[j]) || y[j] === 0, `${label}: ${y[j]} against ${exact[j]}`);
        }
        const back = wq.dequantize().data;
        for (let p = 0; p < back.length; p++)
          if (wt.data[p] === 0) assert.equal(back[p], 0, `${label}: a zero weight dequantizes to ${back[p]}`);
        wq.dispose();
      }
    }
    B.dispose();
  }
});

test('a q8 weight belongs to the instance that made it', async () => {
  const B = await init();
  const wq = B.quantize(A.rand(4, 3));
  assert.throws(
    () => A.linear(A.rand(2, 3), wq),
    /^Error: linear: weight: the quantized weight \[4, 3\] belongs to another instance/,
  );
  const lin = new A.Linear({ inFeatures: 3, outFeatures: 4 });
  assert.throws(
    () => (lin.weight = wq),
    /^Error: Linear: weight: the quantized weight \[4, 3\] belongs to another instance/,
  );
  assert.throws(() => A.quantize(wq), /^Error: quantize: weight: the quantized weight \[4, 3\] belongs to another/);
  assert.equal(B.quantize(wq), wq); // already int8: itself, as torch's tensor.to(dtype)
  wq.dispose();
  assert.throws(() => B.quantize(wq), /^Error: quantize: weight: the quantized weight \[4, 3\] has been disposed/);
  // made by quantize alone: a forged one could alias another weight's memory
  assert.throws(
    () => new QuantizedTensor(B, { handle: 1, shape: [4, 3], residentBytes: 12 }),
    /^TypeError: QuantizedTensor: made by A\.quantize/,
  );
  // where only float32 is taken, the message says what the argument is
  const other = A.quantize(A.rand(4, 3));
  assert.throws(
    () => A.matmul(other, A.rand(3, 2)),
    /^TypeError: matmul: input must have Float32Array data, got an int8 QuantizedTensor \[4, 3\]: only a linear layer's weight/,
  );
  assert.throws(
    () => A.linear(A.rand(2, 3), A.rand(4, 3), other),
    /^TypeError: linear: bias must have Float32Array data, got an int8 QuantizedTensor/,
  );
  other.dispose();
});

test('Linear with a q8 weight: forward, shape checks, stateDict / loadStateDict', () => {
  const lin = new A.Linear({ inFeatures: 6, outFeatures: 5 });
  const x = A.randn(4, 6);
  const wq = A.quantize(lin.weight);
  lin.weight = wq;
  assert.equal(lin.weight, wq);
  assert.deepEqual(lin.forward(x).data, A.linear(x, wq, lin.bias).data);
  assert.equal(lin.stateDict().weight, wq);
  assert.throws(
    () => (lin.weight = A.quantize(A.rand(5, 7))),
    /^Error: Linear: weight must have shape \[5, 6\], got \[5, 7\] \(int8\)/,
  );
  const other = new A.Linear({ inFeatures: 6, outFeatures: 5 });
  other.loadStateDict({ weight: wq, bias: lin.bias });
  assert.equal(other.weight, wq);
  assert.throws(
    () => other.loadStateDict({ weight: A.quantize(A.rand(6, 6)), bias: lin.bias }),
    /^Error: Linear.loadStateDict: size mismatch for weight: copying a param with shape \[6, 6\]/,
  );
  wq.dispose();
  assert.throws(() => lin.forward(x), /^Error: linear: weight: the quantized weight \[5, 6\] has been disposed/);
});

test('MultiheadAttention and TransformerEncoderLayer run their int8 Linear layers', () => {
  A.manualSeed(3);
  const layer = new A.TransformerEncoderLayer({ dModel: 32, nhead: 4, dimFeedforward: 64, activation: 'gelu' });
  const src = A.randn(6, 2, 32);
  const f32 = layer.forward(src);
  const mhaF32 = layer.selfAttn.forward(src, src, src).output;
  for (const lin of [layer.linear1, layer.linear2, layer.selfAttn.outProj]) lin.weight = A.quantize(lin.weight);
  const int8 = layer.forward(src);
  const mhaInt8 = layer.selfAttn.forward(src, src, src).output;
  assert.deepEqual(int8.shape, f32.shape);
  assert.ok(ref.cosine(int8.data, f32.data) > 0.9999, `layer cosine ${ref.cosine(int8.data, f32.data)}`);
  assert.ok(ref.cosine(mhaInt8.data, mhaF32.data) > 0.999, `attention cosine ${ref.cosine(mhaInt8.data, mhaF32.data)}`);
  assert.notDeepEqual(int8.data, f32.data); // the int8 layers did run
  // the attention's out projection is the int8 linear on its merged heads: the same as running
  // the float32 module without out_proj and applying A.linear with the int8 weight
  const plain = new A.MultiheadAttention({ embedDim: 32, numHeads: 4 });
  plain.inProjWeight = layer.selfAttn.inProjWeight;
  plain.inProjBias = layer.selfAttn.inProjBias;
  plain.outProjWeight = new Tensor(
    Float32Array.from({ length: 32 * 32 }, (_, i) => (i % 33 === 0 ? 1 : 0)),
    [32, 32],
  ); // identity
  plain.outProjBias = null;
  const merged = plain.forward(src, src, src).output;
  const viaLinear = A.linear(merged, layer.selfAttn.outProjWeight, layer.selfAttn.outProjBias);
  assert.equal(q8.firstDifference(mhaInt8.data, viaLinear.data), -1);
  for (const lin of [layer.linear1, layer.linear2, layer.selfAttn.outProj]) lin.weight.dispose();
  assert.throws(
    () => layer.forward(src),
    /^Error: TransformerEncoderLayer.forward: parameter self_attn.out_proj.weight: the quantized weight \[32, 32\] has been disposed/,
  );
});

test('accuracy: q8 linear on DistilBERT-base shapes against float64', () => {
  const next = rng(4);
  // LayerNorm-like activations (mean 0, unit variance) and U(-0.05, 0.05) weights, as the benchmark's model
  const x = randomTensor(next, [16, 768], Math.sqrt(3)),
    w = randomTensor(next, [3072, 768], 0.05),
    bias = randomTensor(next, [3072], 0.01);
  const wq = A.quantize(w);
  const y = A.linear(x, wq, bias);
  wq.dispose();
  const want = ref.linear(x, w, bias).data;
  for (let i = 0; i < 16; i++) {
    const row = (a) => a.subarray(i * 3072, (i + 1) * 3072);
    const c = ref.cosine(row(y.data), row(Float64Array.from(want)));
    assert.ok(c > 0.9999, `row ${i}: cosine ${c}`);
  }
});
