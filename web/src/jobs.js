// The computations that run in the Web Worker (worker.js). Each takes the library and plain
// parameters and returns plain data (structured-clonable).
import { Tensor } from 'attention-wasm';
import { swap01, reshape } from './layout.js';

/**
 * The sinusoidal positional encoding of document 004 (A.positionalEncoding: PE[pos, 2i] =
 * sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...), the extra column dropped for odd d_model),
 * rounded to `rounding` decimals as the document's PositionalEncoder(rounding=...) does.
 */
export function positionalEncoding(A, { dModel, maxLength, rounding = 4 }) {
  const t = A.positionalEncoding(maxLength, dModel); // (max_length, d_model)
  const f = 10 ** rounding;
  return new Tensor(
    t.data.map((v) => Math.round(v * f) / f),
    t.shape,
  );
}

/** FNV-1a (32 bits) of a typed array's bytes, as 8 hex digits. */
function fnv1a(array) {
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  let h = 0x811c9dc5;
  for (const byte of bytes) h = Math.imul(h ^ byte, 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** Which build the worker loaded: buildInfo() (threaded or not), A.threads, and what chose it (isolation, cores). */
const build = (A) => ({
  ...A.buildInfo(),
  threads: A.threads,
  isolated: globalThis.crossOriginIsolated === true,
  cores: globalThis.navigator?.hardwareConcurrency ?? 1,
});

export const jobs = {
  build,

  pe(A, params) {
    const t = positionalEncoding(A, params);
    return { shape: t.shape, data: t.data };
  },

  /**
   * Multi-head self-attention as in 004 section 3.7: d_k = d_model / h; per-head Q, K, V from
   * slices of X W^Q, X W^K, X W^V; SDPA per head; heads concatenated and mixed by W^O.
   */
  multihead(A, { seed, heads, dModel, tokens }) {
    const L = tokens.length,
      dk = dModel / heads;
    A.manualSeed(seed);
    const X = A.randn(L, dModel);
    const init = () => {
      const w = A.randn(dModel, dModel);
      return new Tensor(
        w.data.map((v) => v / Math.sqrt(dModel)),
        w.shape,
      );
    };
    const WQ = init(),
      WK = init(),
      WV = init(),
      WO = init();
    const split = (t) => swap01(reshape(t, [L, heads, dk])); // (L, d_model) -> (h, L, d_k)
    const Q = split(A.linear(X, WQ)),
      K = split(A.linear(X, WK)),
      V = split(A.linear(X, WV));
    const r = A.scaledDotProductAttention(Q, K, V, { returnIntermediates: true });
    const concat = reshape(swap01(r.output), [L, dModel]); // (h, L, d_k) -> (L, h * d_k)
    const Y = A.linear(concat, WO);
    // The same computation through the library's torch.nn.MultiheadAttention module.
    const mha = new A.MultiheadAttention({ embedDim: dModel, numHeads: heads, bias: false });
    const inProj = new Float32Array(3 * dModel * dModel);
    inProj.set(WQ.data, 0);
    inProj.set(WK.data, dModel * dModel);
    inProj.set(WV.data, 2 * dModel * dModel);
    mha.inProjWeight = new Tensor(inProj, [3 * dModel, dModel]);
    mha.outProjWeight = WO;
    const out = mha.forward(X, X, X, { needWeights: false }).output;
    const moduleMaxDiff = out.data.reduce((m, v, i) => Math.max(m, Math.abs(v - Y.data[i])), 0);
    return {
      moduleMaxDiff,
      shapes: {
        X: X.shape,
        Q: Q.shape,
        K: K.shape,
        V: V.shape,
        heads: r.output.shape,
        concat: concat.shape,
        Y: Y.shape,
      },
      weights: r.weights.data,
      scores: r.scores.data,
      scaled: r.scaled.data,
      masked: r.masked.data,
      yRow: Array.from(Y.data.subarray((L - 1) * dModel, (L - 1) * dModel + 5)),
    };
  },

  /**
   * SDPA on (H, S, D) with S keys; returns the mean time per call after warm-up, and a checksum
   * of the output's bytes: large enough to be split over the threads, it must not depend on
   * their number (the page tests compare it with the single-thread build's).
   */
  bench(A, { H = 8, S = 512, D = 64, warmup = 2, reps = 10 }) {
    A.manualSeed(0);
    const q = A.randn(H, S, D),
      k = A.randn(H, S, D),
      v = A.randn(H, S, D);
    for (let i = 0; i < warmup; i++) A.scaledDotProductAttention(q, k, v);
    let output;
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) output = A.scaledDotProductAttention(q, k, v).output;
    const ms = (performance.now() - t0) / reps;
    return {
      H,
      S,
      D,
      reps,
      ms,
      gflops: (4 * S * S * D * H) / (ms * 1e6),
      build: build(A),
      checksum: fnv1a(output.data),
    };
  },
};
