// Float64 references for the modules (torch.nn.MultiheadAttention, TransformerEncoderLayer),
// written from torch's docs and functional code, built from the ops of ops.mjs. They return the
// library's result structure ({output, weights}, or a tensor).
import { linear, softmaxRow, layerNorm, gelu, relu } from './ops.mjs';

/**
 * torch.nn.MultiheadAttention.forward, torch's MHA mask polarity (boolean true = ignore; float
 * added). params: {inProjWeight | qProjWeight, kProjWeight, vProjWeight, inProjBias?,
 * outProjWeight, outProjBias?} as {data, shape}. Fully masked rows give zeros.
 */
export function multiheadAttention(
  query,
  key,
  value,
  params,
  {
    numHeads,
    batchFirst = false,
    keyPaddingMask = null,
    attnMask = null,
    isCausal = false,
    needWeights = true,
    averageAttnWeights = true,
  } = {},
) {
  const batched = query.shape.length === 3;
  const E = params.outProjWeight.shape[0],
    H = numHeads,
    Dh = E / H;
  const kdim = key.shape.at(-1),
    vdim = value.shape.at(-1);
  const [L, N] = !batched
    ? [query.shape[0], 1]
    : batchFirst
      ? [query.shape[1], query.shape[0]]
      : [query.shape[0], query.shape[1]];
  const S = !batched ? key.shape[0] : batchFirst ? key.shape[1] : key.shape[0];
  const row = (n, l, len) => (!batched ? l : batchFirst ? n * len + l : l * N + n);
  // Projections of every row in the input's own layout: block p (q, k, v) of in_proj_weight
  // (3E, E), or the separate (E, kdim / vdim) weight, and block p of in_proj_bias (3E).
  const project = (x, features, p, separate) => {
    const inW = params.inProjWeight;
    const weight = inW ? { data: inW.data.subarray(p * E * E, (p + 1) * E * E), shape: [E, E] } : separate;
    const bias = params.inProjBias ? { data: params.inProjBias.data.subarray(p * E, (p + 1) * E), shape: [E] } : null;
    return linear({ data: x.data, shape: [x.data.length / features, features] }, weight, bias).data;
  };
  const Q = project(query, E, 0, params.qProjWeight);
  const K = project(key, kdim, 1, params.kProjWeight);
  const V = project(value, vdim, 2, params.vProjWeight);
  const merged = new Float64Array(N * L * E);
  const weights = new Float64Array(N * (averageAttnWeights ? 1 : H) * L * S);
  for (let n = 0; n < N; n++) {
    for (let h = 0; h < H; h++) {
      for (let i = 0; i < L; i++) {
        const scores = [];
        for (let j = 0; j < S; j++) {
          let s = 0;
          for (let d = 0; d < Dh; d++) s += Q[row(n, i, L) * E + h * Dh + d] * K[row(n, j, S) * E + h * Dh + d];
          s /= Math.sqrt(Dh);
          if (attnMask) {
            const off = attnMask.shape.length === 3 ? ((n * H + h) * L + i) * S + j : i * S + j;
            const m = attnMask.data[off];
            if (attnMask.data instanceof Uint8Array) {
              if (m) s = -Infinity;
            } else s += m;
          }
          if (keyPaddingMask) {
            const m = keyPaddingMask.data[n * S + j];
            if (keyPaddingMask.data instanceof Uint8Array) {
              if (m) s = -Infinity;
            } else s += m;
          }
          if (isCausal && j > i) s = -Infinity;
          scores.push(s);
        }
        const w = softmaxRow(scores);
        for (let j = 0; j < S; j++) {
          if (averageAttnWeights) weights[(n * L + i) * S + j] += w[j] / H;
          else weights[((n * H + h) * L + i) * S + j] = w[j];
        }
        for (let d = 0; d < Dh; d++) {
          let acc = 0;
          for (let j = 0; j < S; j++) acc += w[j] * V[row(n, j, S) * E + h * Dh + d];
          merged[row(n, i, L) * E + h * Dh + d] = acc;
        }
      }
    }
  }
  const out = linear({ data: merged, shape: [N * L, E] }, params.outProjWeight, params.outProjBias ?? null).data;
  const wShape = [...(batched ? [N] : []), ...(averageAttnWeights ? [] : [H]), L, S];
  return {
    output: { data: out, shape: [...query.shape] },
    weights: needWeights ? { data: weights, shape: wShape } : null,
  };
}

/**
 * torch.nn.TransformerEncoderLayer.forward (eval). p: {selfAttn: multiheadAttention params,
 * linear1Weight, linear1Bias, linear2Weight, linear2Bias, norm1Weight, norm1Bias, norm2Weight,
 * norm2Bias}; options: {nhead, batchFirst, normFirst, activation, eps, srcMask,
 * srcKeyPaddingMask, isCausal}.
 */
export function encoderLayer(
  src,
  p,
  {
    nhead,
    batchFirst = false,
    normFirst = false,
    activation = 'relu',
    eps = 1e-5,
    srcMask = null,
    srcKeyPaddingMask = null,
    isCausal = false,
  },
) {
  const E = src.shape.at(-1),
    rows = src.data.length / E,
    F = p.linear1Weight.shape[0];
  const sa = (x) =>
    multiheadAttention(
      { data: x, shape: src.shape },
      { data: x, shape: src.shape },
      { data: x, shape: src.shape },
      p.selfAttn,
      {
        numHeads: nhead,
        batchFirst,
        keyPaddingMask: srcKeyPaddingMask,
        attnMask: srcMask,
        isCausal,
        needWeights: false,
      },
    ).output.data;
  const act = activation === 'gelu' ? gelu : relu;
  const ff = (x) => {
    const h = linear({ data: x, shape: [rows, E] }, p.linear1Weight, p.linear1Bias ?? null).data.map(act);
    return linear({ data: h, shape: [rows, F] }, p.linear2Weight, p.linear2Bias ?? null).data;
  };
  const ln = (x, w, b) => layerNorm({ data: x, shape: [rows, E] }, 1, w, b, eps).data;
  const add = (a, b) => a.map((v, i) => v + b[i]);
  let x = Float64Array.from(src.data);
  if (normFirst) {
    x = add(x, sa(ln(x, p.norm1Weight, p.norm1Bias)));
    x = add(x, ff(ln(x, p.norm2Weight, p.norm2Bias)));
  } else {
    x = ln(add(x, sa(x)), p.norm1Weight, p.norm1Bias);
    x = ln(add(x, ff(x)), p.norm2Weight, p.norm2Bias);
  }
  return { data: x, shape: [...src.shape] };
}
