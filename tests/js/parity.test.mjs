// Parity of scaledDotProductAttention and MultiheadAttention with an independent float64
// reference (tests/js/reference/: plain JS doubles, never the library), covering the traps
// where a port usually goes wrong, then seeded random shapes through every SIMD tail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import { rng, randomTensor, sdpa, multiheadAttention, assertNear } from './reference/index.mjs';

const A = await library();

const boolMask = (shape, random, pTrue = 0.5) => {
  const n = shape.reduce((a, b) => a * b, 1);
  return new Tensor(
    Uint8Array.from({ length: n }, () => (random() < pTrue ? 1 : 0)),
    shape,
  );
};
const notMask = (m) =>
  new Tensor(
    m.data.map((x) => (x ? 0 : 1)),
    m.shape,
  );
const asAdditive = (m, trueMeans) =>
  new Tensor(
    Float32Array.from(m.data, (x) => ((x === 1) === (trueMeans === 'keep') ? 0 : -Infinity)),
    m.shape,
  );

/** Parameters shaped as torch's MHA, small values so float32 stays well conditioned. */
function mhaParams(random, E, kdim = E, vdim = E, bias = true) {
  const scale = 1 / Math.sqrt(E);
  const p = {};
  if (kdim === E && vdim === E) p.inProjWeight = randomTensor([3 * E, E], random, scale);
  else {
    p.qProjWeight = randomTensor([E, E], random, scale);
    p.kProjWeight = randomTensor([E, kdim], random, 1 / Math.sqrt(kdim));
    p.vProjWeight = randomTensor([E, vdim], random, 1 / Math.sqrt(vdim));
  }
  p.inProjBias = bias ? randomTensor([3 * E], random, 0.1) : null;
  p.outProjWeight = randomTensor([E, E], random, scale);
  p.outProjBias = bias ? randomTensor([E], random, 0.1) : null;
  return p;
}

function makeMha({ E, H, kdim, vdim, bias = true, batchFirst = false }, random) {
  const m = new A.MultiheadAttention({ embedDim: E, numHeads: H, kdim, vdim, bias, batchFirst });
  const p = mhaParams(random, E, kdim ?? E, vdim ?? E, bias);
  for (const [k, v] of Object.entries(p)) m[k] = v;
  return { m, p };
}

// ---- scaledDotProductAttention ---------------------------------------------------------------

test('SDPA boolean mask: 1 = takes part (torch SDPA polarity); equals the additive 0/-inf mask', () => {
  const r = rng(1);
  const q = randomTensor([2, 5, 7], r),
    k = randomTensor([2, 6, 7], r),
    v = randomTensor([2, 6, 3], r);
  const m = boolMask([5, 6], r, 0.7);
  for (let i = 0; i < 6; i++) m.data[i] = 1; // row 0 has keys
  const got = A.scaledDotProductAttention(q, k, v, { attnMask: m, returnWeights: true });
  const ref = sdpa(q, k, v, { attnMask: m });
  assertNear(got.output, ref.output, 'output');
  assertNear(got.weights, ref.weights, 'weights');
  for (let i = 0; i < m.data.length; i++)
    if (!m.data[i]) assert.equal(got.weights.data[i], 0, 'a 0 in the mask gets no weight');
  const additive = A.scaledDotProductAttention(q, k, v, { attnMask: asAdditive(m, 'keep'), returnWeights: true });
  assertNear(additive.output, ref.output, 'float 0/-inf mask');
  // The inverted mask is a different computation (the polarity matters).
  const inverted = A.scaledDotProductAttention(q, k, v, { attnMask: notMask(m) });
  assert.ok(inverted.output.data.some((x, i) => Math.abs(x - got.output.data[i]) > 1e-3));
});

test('SDPA float mask is added to the scaled scores', () => {
  const r = rng(2);
  const q = randomTensor([3, 4, 5], r),
    k = randomTensor([3, 7, 5], r),
    v = randomTensor([3, 7, 5], r);
  const m = randomTensor([3, 1, 7], r, 2); // broadcast over L
  assertNear(
    A.scaledDotProductAttention(q, k, v, { attnMask: m }).output,
    sdpa(q, k, v, { attnMask: m }).output,
    'output',
  );
});

test('SDPA isCausal is upper-left tril(ones(L, S)) when L != S', () => {
  const r = rng(3);
  for (const [L, S] of [
    [3, 5],
    [5, 3],
    [4, 4],
    [1, 7],
  ]) {
    const q = randomTensor([2, L, 4], r),
      k = randomTensor([2, S, 4], r),
      v = randomTensor([2, S, 6], r);
    const got = A.scaledDotProductAttention(q, k, v, { isCausal: true, returnWeights: true });
    const ref = sdpa(q, k, v, { isCausal: true });
    assertNear(got.output, ref.output, `output L=${L} S=${S}`);
    assertNear(got.weights, ref.weights, `weights L=${L} S=${S}`);
    // Row 0 attends to key 0 only (upper-left), whatever S is.
    assert.equal(got.weights.data[0], 1);
  }
});

test('SDPA fully masked rows give zeros, not NaN', () => {
  const r = rng(4);
  const q = randomTensor([3, 4], r),
    k = randomTensor([5, 4], r),
    v = randomTensor([5, 2], r);
  const m = new Tensor(new Uint8Array(15).fill(1), [3, 5]);
  m.data.fill(0, 5, 10); // row 1: nothing takes part
  const got = A.scaledDotProductAttention(q, k, v, { attnMask: m, returnWeights: true });
  assert.deepEqual(Array.from(got.output.data.slice(2, 4)), [0, 0]);
  assert.deepEqual(Array.from(got.weights.data.slice(5, 10)), [0, 0, 0, 0, 0]);
  assertNear(got.output, sdpa(q, k, v, { attnMask: m }).output, 'output');
});

test('SDPA grouped-query attention (enableGqa) and Ev != E', () => {
  const r = rng(5);
  const q = randomTensor([2, 6, 3, 5], r),
    k = randomTensor([2, 2, 4, 5], r),
    v = randomTensor([2, 2, 4, 9], r);
  const got = A.scaledDotProductAttention(q, k, v, { enableGqa: true, returnWeights: true });
  const ref = sdpa(q, k, v, { enableGqa: true });
  assertNear(got.output, ref.output, 'output');
  assertNear(got.weights, ref.weights, 'weights');
  assert.deepEqual(got.output.shape, [2, 6, 3, 9]);
});

// ---- MultiheadAttention ----------------------------------------------------------------------

test('MHA keyPaddingMask: boolean true = ignore (torch MHA polarity); float masks are added', () => {
  const r = rng(10);
  const { m, p } = makeMha({ E: 8, H: 2 }, r);
  const x = randomTensor([5, 3, 8], r); // (L, N, E)
  const kpm = boolMask([3, 5], r, 0.4);
  for (let n = 0; n < 3; n++) kpm.data[n * 5] = 0; // every batch keeps key 0
  const got = m.forward(x, x, x, { keyPaddingMask: kpm });
  const ref = multiheadAttention(x, x, x, p, { numHeads: 2, keyPaddingMask: kpm });
  assertNear(got.output, ref.output, 'output');
  assertNear(got.weights, ref.weights, 'weights');
  // a padded key gets weight 0 in every row of its batch
  for (let n = 0; n < 3; n++)
    for (let j = 0; j < 5; j++)
      if (kpm.data[n * 5 + j]) for (let i = 0; i < 5; i++) assert.equal(got.weights.get(n, i, j), 0);
  const additive = m.forward(x, x, x, { keyPaddingMask: asAdditive(kpm, 'ignore') });
  assertNear(additive.output, ref.output, 'float -inf where padded');
  const floatKpm = randomTensor([3, 5], r, 3);
  assertNear(
    m.forward(x, x, x, { keyPaddingMask: floatKpm }).output,
    multiheadAttention(x, x, x, p, { numHeads: 2, keyPaddingMask: floatKpm }).output,
    'float key padding mask',
  );
});

test('MHA attnMask: boolean true = not allowed, (L, S) and (N*numHeads, L, S), float added, combined with keyPaddingMask', () => {
  const r = rng(11);
  const { m, p } = makeMha({ E: 12, H: 3 }, r);
  const q = randomTensor([4, 2, 12], r),
    kv = randomTensor([6, 2, 12], r);
  const am2 = boolMask([4, 6], r, 0.3);
  for (let i = 0; i < 4; i++) am2.data[i * 6 + 5] = 0;
  const am3 = randomTensor([6, 4, 6], r, 2);
  const kpm = new Tensor(Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0]), [2, 6]);
  for (const [name, opts] of [
    ['bool (L, S)', { attnMask: am2 }],
    ['float (N*H, L, S)', { attnMask: am3 }],
    ['bool (L, S) + kpm', { attnMask: am2, keyPaddingMask: kpm }],
    ['float 3-D + kpm', { attnMask: am3, keyPaddingMask: kpm }],
  ]) {
    const got = m.forward(q, kv, kv, opts);
    const ref = multiheadAttention(q, kv, kv, p, { numHeads: 3, ...opts });
    assertNear(got.output, ref.output, `${name}: output`);
    assertNear(got.weights, ref.weights, `${name}: weights`);
  }
  // bool attn mask == additive -inf where true
  assertNear(
    m.forward(q, kv, kv, { attnMask: asAdditive(am2, 'ignore') }).output,
    multiheadAttention(q, kv, kv, p, { numHeads: 3, attnMask: am2 }).output,
    'float -inf where true',
  );
});

test('MHA fully masked rows: output is out_proj.bias (attention gives zeros), weights 0', () => {
  const r = rng(12);
  const { m, p } = makeMha({ E: 4, H: 2 }, r);
  const x = randomTensor([3, 4], r); // unbatched (L, E)
  const am = new Tensor(new Uint8Array(9), [3, 3]);
  am.data.fill(1, 3, 6); // row 1 may attend to nothing
  const got = m.forward(x, x, x, { attnMask: am });
  assertNear(
    { data: got.output.data.slice(4, 8), shape: [4] },
    { data: p.outProjBias.data, shape: [4] },
    'row 1 = bias',
  );
  assert.deepEqual(Array.from(got.weights.data.slice(3, 6)), [0, 0, 0]);
  assert.ok(got.output.data.every(Number.isFinite));
  assertNear(got.output, multiheadAttention(x, x, x, p, { numHeads: 2, attnMask: am }).output, 'output');
});

test('MHA isCausal (upper-left) and kdim/vdim != embedDim (cross-attention, L != S)', () => {
  const r = rng(13);
  const { m, p } = makeMha({ E: 6, H: 3, kdim: 5, vdim: 7 }, r);
  assert.equal(m.inProjWeight, undefined);
  assert.deepEqual(m.kProjWeight.shape, [6, 5]);
  assert.deepEqual(m.vProjWeight.shape, [6, 7]);
  const q = randomTensor([4, 2, 6], r),
    k = randomTensor([7, 2, 5], r),
    v = randomTensor([7, 2, 7], r);
  for (const isCausal of [false, true]) {
    const got = m.forward(q, k, v, { isCausal });
    const ref = multiheadAttention(q, k, v, p, { numHeads: 3, isCausal });
    assertNear(got.output, ref.output, `output causal=${isCausal}`);
    assertNear(got.weights, ref.weights, `weights causal=${isCausal}`);
  }
});

test('MHA batchFirst (N, L, E) and unbatched (L, E) agree with the (L, N, E) layout', () => {
  const r = rng(14);
  const { m, p } = makeMha({ E: 8, H: 4, batchFirst: true }, r);
  const N = 3,
    L = 5,
    S = 4,
    E = 8;
  const q = randomTensor([N, L, E], r),
    kv = randomTensor([N, S, E], r);
  const got = m.forward(q, kv, kv);
  const ref = multiheadAttention(q, kv, kv, p, { numHeads: 4, batchFirst: true });
  assertNear(got.output, ref.output, 'batch_first output');
  assert.deepEqual(got.output.shape, [N, L, E]);
  assert.deepEqual(got.weights.shape, [N, L, S]);
  // The same numbers through a seq-first module and through unbatched calls.
  const seqFirst = new A.MultiheadAttention({ embedDim: E, numHeads: 4 });
  seqFirst.loadStateDict(m.stateDict());
  const transpose = (t, a, b) => {
    // (a, b, E) -> (b, a, E)
    const out = new Float32Array(t.data.length);
    for (let i = 0; i < a; i++)
      for (let j = 0; j < b; j++) out.set(t.data.subarray((i * b + j) * E, (i * b + j + 1) * E), (j * a + i) * E);
    return new Tensor(out, [b, a, E]);
  };
  const sf = seqFirst.forward(transpose(q, N, L), transpose(kv, N, S), transpose(kv, N, S));
  assertNear(transpose(sf.output, L, N), ref.output, 'seq-first output');
  for (let n = 0; n < N; n++) {
    const qn = new Tensor(q.data.slice(n * L * E, (n + 1) * L * E), [L, E]);
    const kn = new Tensor(kv.data.slice(n * S * E, (n + 1) * S * E), [S, E]);
    const un = m.forward(qn, kn, kn);
    assert.deepEqual(un.output.shape, [L, E]);
    assert.deepEqual(un.weights.shape, [L, S]);
    assertNear(un.output, { data: ref.output.data.slice(n * L * E, (n + 1) * L * E), shape: [L, E] }, `unbatched ${n}`);
  }
});

test('MHA averageAttnWeights true/false and needWeights false', () => {
  const r = rng(15);
  const { m, p } = makeMha({ E: 6, H: 2 }, r);
  const x = randomTensor([3, 2, 6], r);
  const perHead = m.forward(x, x, x, { averageAttnWeights: false });
  assert.deepEqual(perHead.weights.shape, [2, 2, 3, 3]);
  assertNear(
    perHead.weights,
    multiheadAttention(x, x, x, p, { numHeads: 2, averageAttnWeights: false }).weights,
    'per-head weights',
  );
  const avg = m.forward(x, x, x);
  assert.deepEqual(avg.weights.shape, [2, 3, 3]);
  assertNear(avg.weights, multiheadAttention(x, x, x, p, { numHeads: 2 }).weights, 'averaged weights');
  const none = m.forward(x, x, x, { needWeights: false });
  assert.equal(none.weights, null);
  // without weights the fused kernel runs (with them the materialised one): the same to rounding
  assertNear(none.output, multiheadAttention(x, x, x, p, { numHeads: 2 }).output, 'needWeights false output');
  const unbatched = m.forward(
    new Tensor(x.data.slice(0, 6), [1, 6]),
    new Tensor(x.data.slice(0, 6), [1, 6]),
    new Tensor(x.data.slice(0, 6), [1, 6]),
    { averageAttnWeights: false },
  );
  assert.deepEqual(unbatched.weights.shape, [2, 1, 1]);
});

test('MHA bias=false has no biases; parameters are initialised as torch (xavier in_proj, zero biases)', () => {
  const m = new A.MultiheadAttention({ embedDim: 16, numHeads: 4, bias: false });
  assert.equal(m.inProjBias, null);
  assert.equal(m.outProjBias, null);
  assert.deepEqual(Object.keys(m.stateDict()).sort(), ['in_proj_weight', 'out_proj.weight']);
  const b = new A.MultiheadAttention({ embedDim: 16, numHeads: 4 });
  assert.ok(b.inProjBias.data.every((x) => x === 0) && b.outProjBias.data.every((x) => x === 0));
  const bound = Math.sqrt(6 / (48 + 16));
  assert.ok(b.inProjWeight.data.every((x) => Math.abs(x) <= bound));
  assert.ok(b.outProjWeight.data.every((x) => Math.abs(x) <= 1 / 4));
  // Reproducible from the library's generator.
  A.manualSeed(7);
  const c1 = new A.MultiheadAttention({ embedDim: 16, numHeads: 4 });
  A.manualSeed(7);
  const c2 = new A.MultiheadAttention({ embedDim: 16, numHeads: 4 });
  assert.deepEqual(Array.from(c1.inProjWeight.data), Array.from(c2.inProjWeight.data));
  const r = rng(16);
  const x = randomTensor([2, 16], r);
  const p = { inProjWeight: m.inProjWeight, outProjWeight: m.outProjWeight };
  assertNear(m.forward(x, x, x).output, multiheadAttention(x, x, x, p, { numHeads: 4 }).output, 'bias=false output');
});

// ---- seeded random shapes through every SIMD tail -------------------------------------------

const SIZES = [1, 3, 4, 5, 7, 17, 33];

test('property: SDPA over random shapes, masks and options agrees with float64', () => {
  const r = rng(2024);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  for (let trial = 0; trial < 60; trial++) {
    const L = pick(SIZES),
      S = pick(SIZES),
      E = pick(SIZES),
      Ev = pick(SIZES);
    const H = pick([1, 2, 3]),
      group = pick([1, 2]);
    const gqa = group > 1;
    const Hq = H * group,
      B = pick([1, 2]);
    const q = randomTensor([B, Hq, L, E], r),
      k = randomTensor([B, H, S, E], r),
      v = randomTensor([B, H, S, Ev], r);
    const kind = pick(['none', 'bool', 'float', 'causal']);
    const opts = { enableGqa: gqa };
    if (kind === 'bool') opts.attnMask = boolMask(pick([[L, S], [B, 1, L, S], [S]]), r, 0.7);
    if (kind === 'float')
      opts.attnMask = randomTensor(
        pick([
          [L, S],
          [B, Hq, L, S],
          [1, S],
        ]),
        r,
        2,
      );
    if (kind === 'causal') opts.isCausal = true;
    if (r() < 0.3) opts.scale = 0.5;
    const label = `trial ${trial}: L=${L} S=${S} E=${E} Ev=${Ev} Hq=${Hq} H=${H} ${kind}`;
    const got = A.scaledDotProductAttention(q, k, v, { ...opts, returnWeights: true });
    const ref = sdpa(q, k, v, opts);
    assertNear(got.output, ref.output, `${label} output`);
    assertNear(got.weights, ref.weights, `${label} weights`);
  }
});

test('property: MultiheadAttention over random shapes, layouts and masks agrees with float64', () => {
  const r = rng(4242);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  for (let trial = 0; trial < 40; trial++) {
    const H = pick([1, 2, 3]),
      Dh = pick(SIZES.filter((d) => d <= 17)),
      E = H * Dh;
    const L = pick(SIZES),
      S = pick(SIZES),
      N = pick([1, 2, 3]);
    const cross = r() < 0.3;
    const kdim = cross ? pick(SIZES) : E,
      vdim = cross ? pick(SIZES) : E;
    const batchFirst = r() < 0.5,
      unbatched = r() < 0.2,
      bias = r() < 0.8;
    const { m, p } = makeMha({ E, H, kdim, vdim, bias, batchFirst }, r);
    const shape3 = (len, F) => (unbatched ? [len, F] : batchFirst ? [N, len, F] : [len, N, F]);
    const q = randomTensor(shape3(L, E), r),
      k = randomTensor(shape3(S, kdim), r),
      v = randomTensor(shape3(S, vdim), r);
    const Nb = unbatched ? 1 : N;
    const opts = { averageAttnWeights: r() < 0.5 };
    if (r() < 0.4)
      opts.keyPaddingMask =
        r() < 0.5 ? boolMask(unbatched ? [S] : [N, S], r, 0.3) : randomTensor(unbatched ? [S] : [N, S], r, 2);
    const amKind = pick(['none', 'bool2', 'float3', 'causal']);
    if (amKind === 'bool2') opts.attnMask = boolMask([L, S], r, 0.3);
    if (amKind === 'float3') opts.attnMask = randomTensor([Nb * H, L, S], r, 2);
    if (amKind === 'causal') opts.isCausal = true;
    const label = `trial ${trial}: E=${E} H=${H} L=${L} S=${S} N=${N} kdim=${kdim} vdim=${vdim} bf=${batchFirst} unbatched=${unbatched} ${amKind}`;
    const got = m.forward(q, k, v, opts);
    const ref = multiheadAttention(q, k, v, p, { numHeads: H, batchFirst, ...opts });
    assertNear(got.output, ref.output, `${label} output`);
    assertNear(got.weights, ref.weights, `${label} weights`);
  }
});
