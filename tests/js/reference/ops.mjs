// Float64 references for the library's functions, written from the definitions (torch's docs,
// the documents' code), never from or with the library's code: plain JS doubles. Tensors are
// {data, shape} in row-major order (any numeric array). The ops that sum (matmul, linear,
// softmax, embedding, sdpa) return {data: Float64Array, shape, mag}: `mag` holds, per element,
// the size of the terms that were summed (e.g. sum |a_ik b_kj| for a product), which the
// tolerance rule (tolerance.mjs) grades against.
import { numel, broadcastShapes, broadcastIndex, forEachIndex } from './tensor.mjs';

/** erf(x) in float64: Taylor series for |x| < 3, the continued fraction of erfc beyond. */
export function erf(x) {
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  if (ax < 3) {
    let term = x,
      sum = x;
    for (let n = 1; n < 100; n++) {
      term *= (-x * x) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  }
  if (!Number.isFinite(ax)) return Math.sign(x);
  // erfc(x) = exp(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))
  let t = ax;
  for (let k = 80; k >= 1; k--) t = ax + k / 2 / t;
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / t;
  return Math.sign(x) * (1 - erfc);
}

export const relu = (x) => (Number.isNaN(x) ? x : Math.max(x, 0));
/** GELU, exact: x * Phi(x) (torch's approximate='none', transformers' "gelu"). */
export const gelu = (x) => x * 0.5 * (1 + erf(x / Math.SQRT2));
/** GELU, tanh approximation (approximate='tanh', transformers' "gelu_new"). */
export const geluTanh = (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));

/** torch.matmul, 1-D operands and batch broadcasting included. */
export function matmul(a, b) {
  const A = a.shape.length === 1 ? [1, a.shape[0]] : a.shape;
  const B = b.shape.length === 1 ? [b.shape[0], 1] : b.shape;
  const [m, k] = A.slice(-2);
  const [k2, n] = B.slice(-2);
  if (k !== k2) throw new Error('reference matmul: inner dims differ');
  const batch = broadcastShapes(A.slice(0, -2), B.slice(0, -2));
  const outFull = [...batch, m, n];
  const data = new Float64Array(numel(outFull));
  const mag = new Float64Array(data.length);
  const aBatch = A.slice(0, -2),
    bBatch = B.slice(0, -2);
  forEachIndex(batch, (idx, c) => {
    const ao = broadcastIndex(aBatch, batch, idx) * m * k;
    const bo = broadcastIndex(bBatch, batch, idx) * k * n;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0,
          g = 0;
        for (let p = 0; p < k; p++) {
          const t = a.data[ao + i * k + p] * b.data[bo + p * n + j];
          s += t;
          g += Math.abs(t);
        }
        data[c * m * n + i * n + j] = s;
        mag[c * m * n + i * n + j] = g;
      }
    }
  });
  const shape = [...batch];
  if (a.shape.length > 1) shape.push(m);
  if (b.shape.length > 1) shape.push(n);
  return { data, shape, mag };
}

/** matmul of flat row-major (m, k) and (k, n) arrays: the (m, n) product's data. */
export const matmulFlat = (a, b, m, k, n) => matmul({ data: a, shape: [m, k] }, { data: b, shape: [k, n] }).data;

/**
 * F.linear (nn.Linear): y (..., n) = x (..., k) W^T (n, k) + bias (n), torch/nn/functional.py's
 * linear as aten runs it: a 1-D weight (k) gives y (...) (matmul's 1-D operand; the library takes
 * no bias with it), a bias [] is added to every output.
 */
export function linear(x, w, bias) {
  const vector = w.shape.length === 1;
  const [n, k] = vector ? [1, w.shape[0]] : w.shape;
  const rows = numel(x.shape) / (k || 1);
  const m = k === 0 ? numel(x.shape.slice(0, -1)) : rows;
  const data = new Float64Array(m * n);
  const mag = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = bias ? Number(bias.data[bias.shape.length ? j : 0]) : 0;
      let g = Math.abs(s);
      for (let p = 0; p < k; p++) {
        const t = x.data[i * k + p] * w.data[j * k + p];
        s += t;
        g += Math.abs(t);
      }
      data[i * n + j] = s;
      mag[i * n + j] = g;
    }
  }
  return { data, shape: vector ? x.shape.slice(0, -1) : [...x.shape.slice(0, -1), n], mag };
}

/**
 * Softmax of one slice (values read with get(i), written with set(i, y)), in float64.
 * A slice of only -inf gives zeros (the library's documented choice, torch >= 2.5's SDPA);
 * any NaN, or +inf, makes the slice NaN as in torch.
 */
export function softmaxSlice(n, get, set) {
  let max = -Infinity;
  let nan = false;
  for (let i = 0; i < n; i++) {
    const x = get(i);
    if (Number.isNaN(x)) nan = true;
    else if (x > max) max = x;
  }
  if (nan || max === Infinity) {
    for (let i = 0; i < n; i++) set(i, NaN);
    return;
  }
  if (max === -Infinity) {
    for (let i = 0; i < n; i++) set(i, 0);
    return;
  }
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(get(i) - max);
  for (let i = 0; i < n; i++) set(i, Math.exp(get(i) - max) / sum);
}

/** softmaxSlice of a plain array of doubles, as a new array. */
export function softmaxRow(row) {
  const out = new Array(row.length);
  softmaxSlice(
    row.length,
    (i) => row[i],
    (i, y) => {
      out[i] = y;
    },
  );
  return out;
}

/** torch.softmax(x, dim). */
export function softmax(x, dim) {
  const rank = x.shape.length;
  const d = dim < 0 ? dim + Math.max(rank, 1) : dim;
  const shape = rank === 0 ? [1] : x.shape;
  const n = shape[d],
    inner = numel(shape.slice(d + 1)),
    outer = numel(shape.slice(0, d));
  const data = new Float64Array(numel(shape));
  for (let o = 0; o < outer; o++) {
    for (let r = 0; r < inner; r++) {
      const base = o * n * inner + r;
      softmaxSlice(
        n,
        (i) => x.data[base + i * inner],
        (i, y) => {
          data[base + i * inner] = y;
        },
      );
    }
  }
  return { data, shape: [...x.shape], mag: data.map((y) => Math.abs(y) + 1) };
}

/** F.embedding: rows of weight. */
export function embedding(ids, weight) {
  const dim = weight.shape[1];
  const data = new Float64Array(ids.length * dim);
  ids.forEach((id, i) => {
    for (let j = 0; j < dim; j++) data[i * dim + j] = weight.data[id * dim + j];
  });
  return { data, mag: data.map(Math.abs) };
}

/**
 * F.layer_norm over the last `k` dims: (x - mean) / sqrt(var + eps) * weight + bias, biased
 * variance; weight and bias optional. mag: the row's largest |x| over its std (x - mean
 * cancels), times |weight|, plus |bias|.
 */
export function layerNorm(x, k, weight, bias, eps = 1e-5) {
  const n = numel(x.shape.slice(x.shape.length - k));
  const data = new Float64Array(x.data.length);
  const mag = new Float64Array(x.data.length);
  for (let r = 0; r * n < x.data.length; r++) {
    const row = Array.from(x.data.slice(r * n, r * n + n), Number);
    const mean = row.reduce((s, v) => s + v, 0) / n;
    const sd = Math.sqrt(row.reduce((s, v) => s + (v - mean) ** 2, 0) / n + eps);
    const big = Math.max(...row.map(Math.abs));
    row.forEach((v, i) => {
      const w = weight ? weight.data[i] : 1,
        b = bias ? bias.data[i] : 0;
      data[r * n + i] = ((v - mean) / sd) * w + b;
      mag[r * n + i] = (Math.abs(w) * big) / sd + Math.abs(b);
    });
  }
  return { data, shape: [...x.shape], mag };
}

/**
 * Sinusoidal positional encoding as document 004's generate_positional_encoding builds it
 * (without rounding): rows [sin, cos, sin, cos, ...] of pos / 10000^(2i / dModel); an odd dModel
 * drops the last column. Returns maxLength rows of dModel numbers.
 */
export function positionalEncoding(maxLength, dModel) {
  const out = [];
  for (let pos = 0; pos < maxLength; pos++) {
    const row = [];
    for (let evenI = 0; evenI < dModel; evenI += 2) {
      const denominator = 10000 ** (evenI / dModel);
      row.push(Math.sin(pos / denominator), Math.cos(pos / denominator));
    }
    out.push(row.slice(0, dModel)); // odd d_model: np.delete(..., -1, axis=1)
  }
  return out;
}

/**
 * F.scaled_dot_product_attention, as torch's math reference:
 *   out = softmax(scale * Q K^T + M) V, with M from a float mask (added), a bool mask
 *   (1 = takes part, 0 = -inf) or is_causal (tril(ones(L, S))); enable_gqa: query head h reads
 *   key/value head floor(h / (Hq / H)). A row with nothing to attend to gives zeros.
 * Returns {output: {data, shape, mag}, weights: {data, shape}}.
 */
export function sdpa(q, k, v, { attnMask = null, isCausal = false, scale, enableGqa = false } = {}) {
  const L = q.shape.at(-2),
    E = q.shape.at(-1),
    S = k.shape.at(-2),
    Ev = v.shape.at(-1);
  const qb = q.shape.slice(0, -2);
  let kb = k.shape.slice(0, -2),
    vb = v.shape.slice(0, -2);
  let group = 1;
  if (enableGqa) {
    group = qb.at(-1) / kb.at(-1);
    kb = [...kb.slice(0, -1), qb.at(-1)];
    vb = [...vb.slice(0, -1), qb.at(-1)];
  }
  const batch = broadcastShapes(broadcastShapes(qb, kb), vb);
  const sc = scale ?? (E > 0 ? 1 / Math.sqrt(E) : 1);
  const outShape = [...batch, L, Ev];
  const data = new Float64Array(numel(outShape));
  const mag = new Float64Array(data.length);
  const weights = new Float64Array(numel(batch) * L * S);
  const maskShape = attnMask?.shape;
  const planeTarget = [...batch, L, S];
  const kOrig = k.shape.slice(0, -2),
    vOrig = v.shape.slice(0, -2);
  forEachIndex(batch, (idx, c) => {
    const qo = broadcastIndex(qb, batch, idx) * L * E;
    // key/value: the GQA head index maps back to floor(h / group)
    const kvIdx = [...idx];
    if (group > 1) kvIdx[kvIdx.length - 1] = Math.floor(idx.at(-1) / group);
    const kvBatch = group > 1 ? [...batch.slice(0, -1), batch.at(-1) / group] : batch;
    const ko = broadcastIndex(kOrig, kvBatch, kvIdx) * S * E;
    const vo = broadcastIndex(vOrig, kvBatch, kvIdx) * S * Ev;
    for (let i = 0; i < L; i++) {
      const row = new Float64Array(S);
      for (let j = 0; j < S; j++) {
        let dot = 0;
        for (let e = 0; e < E; e++) dot += q.data[qo + i * E + e] * k.data[ko + j * E + e];
        let m = 0;
        if (attnMask) {
          const mv = attnMask.data[broadcastIndex(maskShape, planeTarget, [...idx, i, j])];
          m = attnMask.data instanceof Uint8Array ? (mv ? 0 : -Infinity) : mv;
        }
        if (isCausal && j > i) m = -Infinity;
        row[j] = sc * dot + m;
      }
      const w = new Float64Array(S);
      softmaxSlice(
        S,
        (j) => row[j],
        (j, y) => {
          w[j] = y;
        },
      );
      weights.set(w, (c * L + i) * S);
      for (let d = 0; d < Ev; d++) {
        let s = 0,
          g = 0;
        for (let j = 0; j < S; j++) {
          s += w[j] * v.data[vo + j * Ev + d];
          g += Math.abs(w[j] * v.data[vo + j * Ev + d]);
        }
        data[(c * L + i) * Ev + d] = s;
        mag[(c * L + i) * Ev + d] = g;
      }
    }
  });
  return { output: { data, shape: outShape, mag }, weights: { data: weights, shape: planeTarget } };
}
