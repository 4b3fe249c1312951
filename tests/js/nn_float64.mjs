// Float64 references for the nn tests, written from the formulas (not from the library):
// erf, GELU (exact and tanh), layer norm, positional encoding, broadcasting, linear, softmax attention.
// Tensors here are {data: number[] | Float32Array, shape}; results are {data: number[], shape}.

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
export const gelu = (x) => x * 0.5 * (1 + erf(x / Math.SQRT2));
export const geluTanh = (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));

export function map(t, f) {
  return { data: Array.from(t.data, f), shape: [...t.shape] };
}

/** torch broadcasting of two shapes (align right, 1 stretches). */
export function broadcastShape(a, b) {
  const rank = Math.max(a.length, b.length);
  const out = [];
  for (let i = 0; i < rank; i++) {
    const da = a[i - (rank - a.length)] ?? 1,
      db = b[i - (rank - b.length)] ?? 1;
    if (da !== db && da !== 1 && db !== 1) throw new Error(`not broadcastable: [${a}] [${b}]`);
    out.push(da === 1 ? db : da);
  }
  return out;
}

/** Elementwise f(a, b) with broadcasting. */
export function binary(a, b, f) {
  const shape = broadcastShape(a.shape, b.shape);
  const n = shape.reduce((p, d) => p * d, 1);
  const index = (t, flat) => {
    // flat index in `shape` -> flat index in t (broadcast)
    let off = 0,
      stride = 1,
      rest = flat;
    const coords = [];
    for (let i = shape.length - 1; i >= 0; i--) {
      coords[i] = rest % shape[i];
      rest = Math.floor(rest / shape[i]);
    }
    for (let i = t.shape.length - 1; i >= 0; i--) {
      const c = coords[i + shape.length - t.shape.length];
      off += (t.shape[i] === 1 ? 0 : c) * stride;
      stride *= t.shape[i];
    }
    return off;
  };
  const data = [];
  for (let i = 0; i < n; i++) data.push(f(Number(a.data[index(a, i)]), Number(b.data[index(b, i)])));
  return { data, shape };
}

/** F.layer_norm over the last `k` dims: (x - mean) / sqrt(var + eps) * w + b, biased var. */
export function layerNorm(x, k, weight, bias, eps = 1e-5) {
  const n = x.shape.slice(x.shape.length - k).reduce((p, d) => p * d, 1);
  const data = [];
  for (let r = 0; r * n < x.data.length; r++) {
    const row = Array.from(x.data.slice(r * n, r * n + n), Number);
    const mean = row.reduce((s, v) => s + v, 0) / n;
    const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / n;
    row.forEach((v, i) =>
      data.push(((v - mean) / Math.sqrt(variance + eps)) * (weight ? weight.data[i] : 1) + (bias ? bias.data[i] : 0)),
    );
  }
  return { data, shape: [...x.shape] };
}

/** x (m, k) W^T (n, k) + b (n). */
export function linear(x, w, b) {
  const [m, k] = x.shape,
    n = w.shape[0];
  const data = [];
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = b ? Number(b.data[j]) : 0;
      for (let p = 0; p < k; p++) s += x.data[i * k + p] * w.data[j * k + p];
      data.push(s);
    }
  }
  return { data, shape: [m, n] };
}

/** softmax(q k^T / sqrt(E)) v for q (L, E), k (S, E), v (S, Ev). */
export function attention(q, k, v) {
  const [L, E] = q.shape,
    S = k.shape[0],
    Ev = v.shape[1];
  const data = [];
  for (let i = 0; i < L; i++) {
    const scores = [];
    for (let j = 0; j < S; j++) {
      let s = 0;
      for (let p = 0; p < E; p++) s += q.data[i * E + p] * k.data[j * E + p];
      scores.push(s / Math.sqrt(E));
    }
    const max = Math.max(...scores);
    const e = scores.map((s) => Math.exp(s - max));
    const z = e.reduce((a, b) => a + b, 0);
    for (let c = 0; c < Ev; c++) data.push(e.reduce((s, w, j) => s + (w / z) * v.data[j * Ev + c], 0));
  }
  return { data, shape: [L, Ev] };
}

/**
 * Sinusoidal positional encoding as document 004's generate_positional_encoding builds it (without
 * rounding): rows [sin, cos, sin, cos, ...] of pos / 10000^(2i / dModel); an odd dModel drops the
 * last column. Returns maxLength rows of dModel numbers.
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
