// Independent float64 references for the attention tests: plain JS doubles, written from the
// equations and torch's documentation, never calling the library. Tensors are {data, shape}
// (any numeric array); results are {data: Float64Array, shape}.

import assert from 'node:assert/strict';

/** |actual - expected| <= rel * |expected| + abs elementwise (1e-5 relative, 1e-6 absolute near 0). */
export function assertNear(actual, expected, label, rel = 1e-5, abs = 1e-6) {
  assert.deepEqual([...actual.shape], [...expected.shape], `${label}: shape`);
  for (let i = 0; i < expected.data.length; i++) {
    const a = actual.data[i], e = expected.data[i];
    assert.ok(Math.abs(a - e) <= rel * Math.abs(e) + abs, `${label}[${i}]: ${a} vs float64 ${e}`);
  }
}

const numel = (shape) => shape.reduce((a, b) => a * b, 1);
const stridesOf = (shape) => {
  const s = new Array(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) s[i] = s[i + 1] * shape[i + 1];
  return s;
};

/** torch broadcasting of two shapes (throws if they do not broadcast). */
export function broadcastShapes(a, b) {
  const n = Math.max(a.length, b.length);
  const out = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1, y = b[b.length - n + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) throw new Error(`shapes [${a}] and [${b}] do not broadcast`);
    out.push(x === 1 ? y : x);
  }
  return out;
}

/** Flat offset in `shape` of the element at multi-index `idx` of `target` (right-aligned broadcast). */
function broadcastOffset(shape, idx) {
  const st = stridesOf(shape);
  let off = 0;
  for (let i = 0; i < shape.length; i++) {
    const j = idx[idx.length - shape.length + i];
    off += (shape[i] === 1 ? 0 : j) * st[i];
  }
  return off;
}

function unravel(flat, shape) {
  const idx = new Array(shape.length);
  for (let i = shape.length - 1; i >= 0; i--) {
    idx[i] = flat % shape[i];
    flat = Math.floor(flat / shape[i]);
  }
  return idx;
}

/** softmax of a row of doubles; a row that is all -inf gives zeros (torch >= 2.5 SDPA). */
export function softmaxRow(row) {
  const m = Math.max(...row);
  if (m === -Infinity) return row.map(() => 0);
  const e = row.map((x) => Math.exp(x - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / z);
}

/**
 * F.scaled_dot_product_attention in float64. query (B..., Hq, L, E), key (B..., H, S, E),
 * value (B..., H, S, Ev); mask broadcastable to (B..., Hq, L, S): Uint8Array = boolean with
 * 1 = takes part, otherwise added. isCausal: upper-left tril(ones(L, S)). enableGqa: query head
 * h reads key/value head floor(h / (Hq / H)).
 */
export function sdpa64(query, key, value, { attnMask = null, isCausal = false, scale, enableGqa = false } = {}) {
  const q = query.shape, k = key.shape, v = value.shape;
  const L = q.at(-2), E = q.at(-1), S = k.at(-2), Ev = v.at(-1);
  const sc = scale ?? 1 / Math.sqrt(E);
  let qb = q.slice(0, -2), kb = k.slice(0, -2), vb = v.slice(0, -2);
  let group = 1;
  if (enableGqa) {
    group = qb.at(-1) / kb.at(-1);
    kb = [...kb.slice(0, -1), qb.at(-1)];
    vb = [...vb.slice(0, -1), qb.at(-1)];
  }
  const batch = broadcastShapes(broadcastShapes(qb, kb), vb);
  const out = new Float64Array(numel(batch) * L * Ev);
  const weights = new Float64Array(numel(batch) * L * S);
  const kbReal = k.slice(0, -2), vbReal = v.slice(0, -2);
  for (let b = 0; b < numel(batch); b++) {
    const idx = unravel(b, batch);
    const kidx = [...idx];
    if (enableGqa) kidx[kidx.length - 1] = Math.floor(idx.at(-1) / group);
    const qo = broadcastOffset(qb, idx) * L * E;
    const ko = broadcastOffset(kbReal, kidx) * S * E;
    const vo = broadcastOffset(vbReal, kidx) * S * Ev;
    for (let i = 0; i < L; i++) {
      const row = [];
      for (let j = 0; j < S; j++) {
        let s = 0;
        for (let e = 0; e < E; e++) s += query.data[qo + i * E + e] * key.data[ko + j * E + e];
        s *= sc;
        if (attnMask) {
          const m = attnMask.data[broadcastOffset(attnMask.shape, [...idx, i, j])];
          if (attnMask.data instanceof Uint8Array) { if (!m) s = -Infinity; } else s += m;
        }
        if (isCausal && j > i) s = -Infinity;
        row.push(s);
      }
      const w = softmaxRow(row);
      for (let j = 0; j < S; j++) weights[(b * L + i) * S + j] = w[j];
      for (let d = 0; d < Ev; d++) {
        let acc = 0;
        for (let j = 0; j < S; j++) acc += w[j] * value.data[vo + j * Ev + d];
        out[(b * L + i) * Ev + d] = acc;
      }
    }
  }
  return { output: { data: out, shape: [...batch, L, Ev] }, weights: { data: weights, shape: [...batch, L, S] } };
}

/** x (rows, in) W^T (out, in) + b, in float64; w given as a flat array with a row offset. */
function linear64(x, rows, inF, w, wRow0, outF, b, bOff) {
  const y = new Float64Array(rows * outF);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < outF; j++) {
      let s = b ? b[bOff + j] : 0;
      for (let p = 0; p < inF; p++) s += x[r * inF + p] * w[(wRow0 + j) * inF + p];
      y[r * outF + j] = s;
    }
  }
  return y;
}

/**
 * torch.nn.MultiheadAttention.forward in float64, torch's MHA mask polarity (boolean true =
 * ignore; float added). params: {inProjWeight | qProjWeight, kProjWeight, vProjWeight,
 * inProjBias?, outProjWeight, outProjBias?} as {data, shape}. Fully masked rows give zeros.
 */
export function mha64(query, key, value, params, {
  numHeads, batchFirst = false, keyPaddingMask = null, attnMask = null, isCausal = false,
  needWeights = true, averageAttnWeights = true,
} = {}) {
  const batched = query.shape.length === 3;
  const E = params.outProjWeight.shape[0], H = numHeads, Dh = E / H;
  const kdim = key.shape.at(-1), vdim = value.shape.at(-1);
  const [L, N] = !batched ? [query.shape[0], 1] : batchFirst ? [query.shape[1], query.shape[0]] : [query.shape[0], query.shape[1]];
  const S = !batched ? key.shape[0] : batchFirst ? key.shape[1] : key.shape[0];
  const row = (n, l, len) => (!batched ? l : batchFirst ? n * len + l : l * N + n);
  const inW = params.inProjWeight;
  const bias = params.inProjBias?.data;
  // Projections of every row in the input's own layout.
  const Q = linear64(query.data, N * L, E, inW ? inW.data : params.qProjWeight.data, 0, E, bias, 0);
  const K = linear64(key.data, N * S, kdim, inW ? inW.data : params.kProjWeight.data, inW ? E : 0, E, bias, E);
  const V = linear64(value.data, N * S, vdim, inW ? inW.data : params.vProjWeight.data, inW ? 2 * E : 0, E, bias, 2 * E);
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
            if (attnMask.data instanceof Uint8Array) { if (m) s = -Infinity; } else s += m;
          }
          if (keyPaddingMask) {
            const m = keyPaddingMask.data[n * S + j];
            if (keyPaddingMask.data instanceof Uint8Array) { if (m) s = -Infinity; } else s += m;
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
  const out = linear64(merged, N * L, E, params.outProjWeight.data, 0, E, params.outProjBias?.data, 0);
  const wShape = [...(batched ? [N] : []), ...(averageAttnWeights ? [] : [H]), L, S];
  return {
    output: { data: out, shape: [...query.shape] },
    weights: needWeights ? { data: weights, shape: wShape } : null,
  };
}

/** Matrix product of row-major (m, k) and (k, n) arrays in float64. */
export function matmul64(a, b, m, k, n) {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = s;
    }
  return c;
}
