// Float64 references for the public functions and modules, written from the definitions (torch's
// docs), never from or with the library's code: plain JS doubles. Tensors are {data, shape} in
// row-major order (any numeric array). The op references (matmul, linear, softmax, embedding)
// return {data: Float64Array, shape, mag}: `mag` holds, per element, the size of the terms that
// were summed (e.g. sum |a_ik b_kj| for a product), so a float32 result can be graded as
// |got - want| <= rel * mag + abs, whatever the cancellation (compare); sdpa, multiheadAttention
// and encoderLayer return the library's result structure ({output, weights}, or a tensor).
// assertNear grades relative to the value alone: rel * |want| + abs.

import assert from 'node:assert/strict';
import { erf } from './nn_float64.mjs';

export const numel = (shape) => shape.reduce((a, b) => a * b, 1);

/** Row-major strides of `shape`. */
export function strides(shape) {
  const s = new Array(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/** torch broadcasting of two shapes, or null if they do not broadcast. */
export function broadcastShapes(a, b) {
  const rank = Math.max(a.length, b.length);
  const out = [];
  for (let i = 0; i < rank; i++) {
    const da = a[i - (rank - a.length)] ?? 1;
    const db = b[i - (rank - b.length)] ?? 1;
    if (da !== db && da !== 1 && db !== 1) return null;
    out.push(da === 1 ? db : da);
  }
  return out;
}

/** Flat index into `shape` (broadcast to `target`) of the multi-index `idx` of `target`. */
function broadcastIndex(shape, target, idx) {
  const st = strides(shape);
  let off = 0;
  for (let i = 0; i < shape.length; i++) {
    const t = i + target.length - shape.length;
    if (shape[i] !== 1) off += idx[t] * st[i];
  }
  return off;
}

/** Calls f(idx) for every multi-index of `shape` in row-major order. */
function forEachIndex(shape, f) {
  const n = numel(shape);
  const idx = new Array(shape.length).fill(0);
  for (let c = 0; c < n; c++) {
    f(idx, c);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

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

/** F.linear: input W^T + bias. */
export function linear(x, w, bias) {
  const [n, k] = w.shape;
  const rows = numel(x.shape) / (k || 1);
  const m = k === 0 ? numel(x.shape.slice(0, -1)) : rows;
  const data = new Float64Array(m * n);
  const mag = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = bias ? bias.data[bias.shape.length ? j : 0] : 0;
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
  return { data, shape: [...x.shape.slice(0, -1), n], mag };
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

/**
 * Largest violation of |got - want| <= rel * mag + abs (0 when every element passes); NaN must
 * meet NaN, and infinities must be equal.
 */
export function compare(got, want, { rel = 1e-5, abs = 1e-6 } = {}) {
  if (got.length !== want.data.length) return { ok: false, why: `length ${got.length} != ${want.data.length}` };
  for (let i = 0; i < got.length; i++) {
    const g = got[i],
      w = want.data[i];
    if (Number.isNaN(w) || Number.isNaN(g)) {
      if (Number.isNaN(w) !== Number.isNaN(g)) return { ok: false, why: `[${i}] ${g} vs ${w}` };
      continue;
    }
    if (!Number.isFinite(w) || !Number.isFinite(g)) {
      if (g !== w) return { ok: false, why: `[${i}] ${g} vs ${w}` };
      continue;
    }
    const tol = rel * Math.max(Math.abs(w), want.mag ? want.mag[i] : 0) + abs;
    if (Math.abs(g - w) > tol) return { ok: false, why: `[${i}] ${g} vs ${w} (tol ${tol.toExponential(2)})` };
  }
  return { ok: true };
}

/**
 * Asserts equal shapes and |actual - expected| <= rel * |expected| + abs elementwise (1e-5
 * relative, 1e-6 absolute near 0); `mag` is not used here. NaN must meet NaN.
 */
export function assertNear(actual, expected, label, rel = 1e-5, abs = 1e-6) {
  assert.deepEqual([...actual.shape], [...expected.shape], `${label}: shape`);
  const res = compare(actual.data, { data: expected.data }, { rel, abs });
  assert.ok(res.ok, `${label}: float64 reference ${res.why}`);
}

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
  const act = activation === 'gelu' ? (v) => v * 0.5 * (1 + erf(v / Math.SQRT2)) : (v) => Math.max(v, 0);
  const ff = (x) => {
    const h = linear({ data: x, shape: [rows, E] }, p.linear1Weight, p.linear1Bias ?? null).data.map(act);
    return linear({ data: h, shape: [rows, F] }, p.linear2Weight, p.linear2Bias ?? null).data;
  };
  const ln = (x, w, b) => {
    const y = new Float64Array(x.length);
    for (let r = 0; r < rows; r++) {
      const row = x.subarray(r * E, (r + 1) * E);
      const mean = row.reduce((a, v) => a + v, 0) / E;
      const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / E;
      for (let i = 0; i < E; i++)
        y[r * E + i] = ((row[i] - mean) / Math.sqrt(variance + eps)) * (w ? w.data[i] : 1) + (b ? b.data[i] : 0);
    }
    return y;
  };
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

// The tensor helpers (issue 26), each from torch's documentation of it: indices in, element out,
// one element at a time over the result's multi-indices (the library gathers whole rows instead).

/** Offset of multi-index idx in a row-major tensor of `shape`. */
const offsetOf = (shape, idx) => idx.reduce((off, i, d) => off * shape[d] + i, 0);

/** A result of `shape` whose element at idx is x's element at source(idx), in x's kind of array. */
function gathered(x, shape, source) {
  const data = new x.data.constructor(numel(shape));
  forEachIndex(shape, (idx, c) => {
    data[c] = x.data[offsetOf(x.shape, source(idx))];
  });
  return { data, shape };
}

const wrapDim = (dim, rank) => (dim < 0 ? dim + Math.max(rank, 1) : dim);

/** torch.permute(x, dims): result[i_0, ..., i_r-1] = x[j] with j[dims[k]] = i_k. */
export function permute(x, dims) {
  const order = dims.map((d) => wrapDim(d, x.shape.length));
  return gathered(
    x,
    order.map((d) => x.shape[d]),
    (idx) => {
      const j = new Array(order.length);
      order.forEach((d, k) => (j[d] = idx[k]));
      return j;
    },
  );
}

/** torch.transpose(x, dim0, dim1): dims dim0 and dim1 swapped. */
export function transpose(x, dim0, dim1) {
  const r = x.shape.length,
    a = wrapDim(dim0, r),
    b = wrapDim(dim1, r);
  return permute(
    x,
    x.shape.map((_, d) => (d === a ? b : d === b ? a : d)),
  );
}

/** torch.select(x, dim, index): x[..., index, ...] at dim, which the result drops. */
export function select(x, dim, index) {
  const d = wrapDim(dim, x.shape.length),
    i = index < 0 ? index + x.shape[d] : index;
  return gathered(
    x,
    x.shape.filter((_, k) => k !== d),
    (idx) => [...idx.slice(0, d), i, ...idx.slice(d)],
  );
}

/** torch.narrow(x, dim, start, length): x[..., start:start + length, ...] at dim. */
export function narrow(x, dim, start, length) {
  const d = wrapDim(dim, x.shape.length),
    s = start < 0 ? start + x.shape[d] : start;
  return gathered(
    x,
    x.shape.map((n, k) => (k === d ? length : n)),
    (idx) => idx.map((i, k) => (k === d ? i + s : i)),
  );
}

/**
 * torch.topk(x, k, dim, largest, sorted): per slice along dim, its k largest (or smallest) values
 * and their indices; NaN counts as larger than every number (torch's CPU and CUDA kernels), equal
 * values keep their order of index (a stable sort: the library's documented order among ties,
 * one of those torch may return); with sorted false, ordered by index. A 0-d x is its own top
 * value, index 0. Returns {values: {data, shape}, indices: {data: number[], shape}}.
 */
export function topk(x, k, { dim = -1, largest = true, sorted = true } = {}) {
  const rank = x.shape.length;
  if (rank === 0) return { values: { data: [x.data[0]], shape: [] }, indices: { data: [0], shape: [] } };
  const d = wrapDim(dim, rank),
    n = x.shape[d];
  const shape = x.shape.map((m, i) => (i === d ? k : m));
  const values = { data: new Array(numel(shape)), shape },
    indices = { data: new Array(numel(shape)), shape };
  // ascending order, NaN above +inf; 0 for equal values (-0 and 0 too) and for two NaN
  const cmp = (p, q) => {
    const a = p.value,
      b = q.value;
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) === Number.isNaN(b) ? 0 : Number.isNaN(a) ? 1 : -1;
    return a === b ? 0 : a < b ? -1 : 1;
  };
  forEachIndex(
    x.shape.map((m, i) => (i === d ? 1 : m)),
    (idx) => {
      const slice = Array.from({ length: n }, (_, j) => ({
        value:
          x.data[
            offsetOf(
              x.shape,
              idx.map((v, i) => (i === d ? j : v)),
            )
          ],
        index: j,
      }));
      const ordered = [...slice].sort((p, q) => (largest ? cmp(q, p) : cmp(p, q))); // stable
      const top = ordered.slice(0, k);
      if (!sorted) top.sort((p, q) => p.index - q.index);
      top.forEach((e, r) => {
        const at = offsetOf(
          shape,
          idx.map((v, i) => (i === d ? r : v)),
        );
        values.data[at] = e.value;
        indices.data[at] = e.index;
      });
    },
  );
  return { values, indices };
}

/**
 * F.cosine_similarity(x1, x2, dim, eps), torch's current formula: x1 and x2 broadcast, then along
 * dim sum_i (x1_i / max(||x1||, eps)) * (x2_i / max(||x2||, eps)), dim dropped. Returns
 * {data, shape, mag}, mag the sum of |terms| (<= 1).
 */
export function cosineSimilarity(x1, x2, { dim = 1, eps = 1e-8 } = {}) {
  const common = broadcastShapes(x1.shape, x2.shape);
  const rank = common.length,
    d = wrapDim(dim, rank);
  const full = rank === 0 ? [1] : common;
  const shape = common.filter((_, i) => i !== d),
    n = full[d];
  const data = new Float64Array(numel(shape)),
    mag = new Float64Array(data.length);
  const read = (x, idx) => x.data[rank === 0 ? 0 : broadcastIndex(x.shape, common, idx)];
  forEachIndex(shape, (idx, c) => {
    const at = (j) => (rank === 0 ? [] : [...idx.slice(0, d), j, ...idx.slice(d)]);
    let s1 = 0,
      s2 = 0;
    for (let j = 0; j < n; j++) {
      s1 += read(x1, at(j)) ** 2;
      s2 += read(x2, at(j)) ** 2;
    }
    const n1 = Math.max(Math.sqrt(s1), eps),
      n2 = Math.max(Math.sqrt(s2), eps);
    let sum = 0,
      size = 0;
    for (let j = 0; j < n; j++) {
      const term = (read(x1, at(j)) / n1) * (read(x2, at(j)) / n2);
      sum += term;
      size += Math.abs(term);
    }
    data[c] = sum;
    mag[c] = size;
  });
  return { data, shape, mag };
}
