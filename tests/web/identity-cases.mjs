// The outputs that must come out the same in every engine (identity.test.mjs): one table, run in
// Node (20 with the flag, 22, 24, 24 without FMA3, 24 for arm64 under qemu-aarch64), Chromium and
// Firefox on each SIMD build. This file imports nothing, so the same module runs in Node
// (identity-node.mjs) and in the page identity.test.mjs serves.
//
// A row: { name, run(A, fixtures) -> Float32Array | Int8Array | ... , relaxed }
//   run      computes the output with the library `A` (init()'s result, one build) on inputs made
//            here (inputs(): exact float32 values, no engine's Math involved) or on a fixture
//            folder (`fixtures[name]`: { 'config.json': Uint8Array, ... }, one of FIXTURES made
//            by scripts/make-fixtures.mjs: a tiny DistilBERT, a tiny Llama). It may be async.
//   relaxed  what holds for the relaxed-SIMD build across engines: 'bytes' (the same bytes
//            everywhere) or { relative: r } (within r * (1 + |x|) of the other engines' values:
//            f32x4.relaxed_madd is fused or not as each engine and CPU lowers it). The SIMD128
//            build must give the same bytes everywhere, in every row.
// To add a row, append it to CASES; identity.test.mjs runs every row in every engine. The int8
// (q8) rows promise relaxed: 'bytes' (their integer dots are exact on every lowering). An output
// of another typed array than Float32Array (Int8Array, Int32Array) is compared byte for byte too.

/** `n` float32 values in [-1, 1), exactly representable, from an integer generator (xorshift32). */
export function inputs(n, seed) {
  const out = new Float32Array(n);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = (x >>> 8) / 8388608 - 1; // 24 bits: exact in float32
  }
  return out;
}

/** A tensor-like of `shape` filled by inputs(). */
const t = (shape, seed) => ({
  data: inputs(
    shape.reduce((a, b) => a * b, 1),
    seed,
  ),
  shape,
});

/** f(the int8 form of `weight`), the int8 weight freed afterwards. */
function q8(A, weight, f) {
  const w = A.quantize(weight);
  try {
    return f(w);
  } finally {
    w.dispose();
  }
}

/**
 * What the relaxed build promises across engines for float32 outputs: f32x4.relaxed_madd may be
 * fused on one engine or CPU and a multiply then an add on another (the relaxed-SIMD proposal
 * leaves it to them), so the kernels' tolerance against their references (tests/kernels, and
 * the two builds against each other in tests/js/builds.test.mjs): 1e-5 * (1 + |x|). Measured
 * on AMD EPYC (Zen 4, with FMA3) the five engines gave the same bytes (docs/testing.md).
 */
const FUSED_OR_NOT = { relative: 1e-5 };

/** The fixture folders the rows read (scripts/make-fixtures.mjs's names). */
export const FIXTURES = ['distilbert-f32', 'llama-tiny'];

/** Float32Arrays one after the other, in one. */
function concat(parts) {
  const all = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (all.set(p, at), at + p.length), 0);
  return all;
}

/**
 * A causal LM's logits on its KV cache, as generation runs it: the prompt's forward, then two
 * forwards of one token each (the decoding steps: products of one row), concatenated.
 */
async function causalLogits(A, folder, options) {
  const lm = await A.loadPretrained(folder, options);
  const cache = lm.createCache();
  try {
    return concat([[3, 17, 42, 8, 29], [11], [5]].map((ids) => lm.forward(ids, { cache }).logits.data));
  } finally {
    cache.dispose();
    lm.dispose();
  }
}

export const CASES = [
  {
    name: 'scaledDotProductAttention, fused (no weights): (2, 3, 37, 40) x (2, 3, 45, 40) -> Ev 24',
    run: (A) =>
      A.scaledDotProductAttention(t([2, 3, 37, 40], 1), t([2, 3, 45, 40], 2), t([2, 3, 45, 24], 3)).output.data,
    relaxed: FUSED_OR_NOT,
  },
  {
    name: 'scaledDotProductAttention, causal, with its weights: output',
    run: (A) =>
      A.scaledDotProductAttention(t([3, 29, 33], 4), t([3, 29, 33], 5), t([3, 29, 17], 6), {
        isCausal: true,
        returnWeights: true,
      }).output.data,
    relaxed: FUSED_OR_NOT,
  },
  {
    name: 'scaledDotProductAttention, causal, with its weights: weights',
    run: (A) =>
      A.scaledDotProductAttention(t([3, 29, 33], 4), t([3, 29, 33], 5), t([3, 29, 17], 6), {
        isCausal: true,
        returnWeights: true,
      }).weights.data,
    relaxed: FUSED_OR_NOT,
  },
  {
    name: 'matmul (67, 45) x (45, 38)',
    run: (A) => A.matmul(t([67, 45], 7), t([45, 38], 8)).data,
    relaxed: FUSED_OR_NOT,
  },
  {
    name: 'linear, 13 rows (unpacked): (13, 50) x (30, 50)^T + bias',
    run: (A) => A.linear(t([13, 50], 9), t([30, 50], 10), t([30], 11)).data,
    relaxed: FUSED_OR_NOT,
  },
  {
    name: 'linear, 100 rows (W packed block by block): (100, 96) x (70, 96)^T + bias',
    run: (A) => A.linear(t([100, 96], 12), t([70, 96], 13), t([70], 14)).data,
    relaxed: FUSED_OR_NOT,
  },
  // The int8 (q8) layer: the weight quantized per row, each input row to 7 bits, int32 sums that
  // are exact on every lowering of the relaxed dot (its i7 operand kept in [0, 127]), then a
  // float32 epilogue without relaxed_madd: the same bytes in every engine, relaxed build too.
  {
    name: 'quantize (q8) then dequantize: (70, 96)',
    run: (A) => q8(A, t([70, 96], 21), (w) => w.dequantize().data),
    relaxed: 'bytes',
  },
  {
    name: 'linear, int8 weights (q8), tails of every tile: (11, 37) x (13, 37)^T + bias',
    run: (A) => q8(A, t([13, 37], 22), (w) => A.linear(A.mul(t([11, 37], 23), 3), w, t([13], 24)).data),
    relaxed: 'bytes',
  },
  {
    name: 'linear, int8 weights (q8): (40, 768) x (96, 768)^T + bias',
    run: (A) => q8(A, t([96, 768], 25), (w) => A.linear(t([40, 768], 26), w, t([96], 27)).data),
    relaxed: 'bytes',
  },
  {
    name: 'linear, int8 weights (q8), no bias: (5, 3072) x (24, 3072)^T',
    run: (A) => q8(A, t([24, 3072], 28), (w) => A.linear(A.mul(t([5, 3072], 29), 8), w).data),
    relaxed: 'bytes',
  },
  {
    name: 'layerNorm (9, 77) over 77, weight and bias',
    run: (A) => A.layerNorm(t([9, 77], 15), [77], { weight: t([77], 16), bias: t([77], 17) }).data,
    relaxed: FUSED_OR_NOT,
  },
  {
    name: 'softmax (7, 131) over the last dim',
    run: (A) => A.softmax(t([7, 131], 18), { dim: -1 }).data,
    relaxed: FUSED_OR_NOT,
  },
  {
    name: 'gelu (erf) of 1001 values in [-4, 4)',
    run: (A) => A.gelu(A.mul(t([1001], 19), 4)).data,
    relaxed: FUSED_OR_NOT,
  },
  {
    name: 'gelu (tanh) of 1001 values in [-4, 4)',
    run: (A) => A.gelu(A.mul(t([1001], 20), 4), { approximate: 'tanh' }).data,
    relaxed: FUSED_OR_NOT,
  },
  {
    name: "the fixture DistilBERT's forward: last hidden state and every layer's attentions",
    async run(A, fixtures) {
      const model = await A.loadPretrained(fixtures['distilbert-f32']);
      try {
        const ids = model.tokenizer.encode('Write a poem about a man fishing on a river bank.').inputIds;
        const { lastHiddenState, attentions } = model.forward(ids, { outputAttentions: true });
        return concat([lastHiddenState.data, ...attentions.map((a) => a.data)]);
      } finally {
        model.dispose();
      }
    },
    relaxed: FUSED_OR_NOT,
  },
  {
    name: "the fixture DistilBERT's forward in q8 (int8 linear layers and word embeddings): last hidden state",
    async run(A, fixtures) {
      const model = await A.loadPretrained(fixtures['distilbert-f32'], { dtype: 'q8' });
      try {
        return model.forward(model.tokenizer.encode('Write a poem about a man fishing on a river bank.').inputIds)
          .lastHiddenState.data;
      } finally {
        model.dispose();
      }
    },
    // the int8 products are exact everywhere; the attention, norms and GELU around them are float32
    relaxed: FUSED_OR_NOT,
  },
  {
    // RoPE, RMSNorm, grouped-query attention, SwiGLU, the causal mask and the KV cache
    name: "the fixture Llama's logits: a prompt of 5 tokens, then 2 decoding steps on its KV cache",
    run: (A, fixtures) => causalLogits(A, fixtures['llama-tiny']),
    relaxed: FUSED_OR_NOT,
  },
  {
    name: "the fixture Llama's logits in q8: a prompt of 5 tokens, then 2 decoding steps on its KV cache",
    run: (A, fixtures) => causalLogits(A, fixtures['llama-tiny'], { dtype: 'q8' }),
    relaxed: FUSED_OR_NOT,
  },
];

/** What one engine reports for one build: its buildInfo().simd and every row's output bytes (base64). */
export async function computeAll(A, fixtures) {
  const rows = {};
  for (const c of CASES) {
    const v = await c.run(A, fixtures);
    const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    rows[c.name] = { type: v.constructor.name, base64: btoa(s) };
  }
  const { simd, int8Product, relaxedDotLowering } = A.buildInfo();
  return { simd, int8Product, relaxedDotLowering, rows };
}
