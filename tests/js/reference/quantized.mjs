// The int8 ("q8") linear layer written from its definition (src/kernels/quantize.hpp,
// src/kernels/quantized_matmul.hpp) in plain JS, float32 step by step with Math.fround (not a
// float64 reference: the library's results must equal it byte for byte, in every build and engine).
//   weights, per row:      scale = max(max|w| / 127, Q / 256), q = clamp(round(w * inv), -127, 127)
//                          with inv = 256 / Q where Q / 256 is the larger, else 127 / max|w|; Q the
//                          largest quad sum: in each block of 8 values, (|w0| + |w4|) + (|w1| + |w5|)
//                          and (|w2| + |w6|) + (|w3| + |w7|) (zeros beyond the row)
//   activations, per row:  lo = min(x, 0), hi = max(x, 0), r = hi - lo, inv = 127 / r,
//                          zp = clamp(round(-lo * inv), 0, 127), scale = r / 127,
//                          q = clamp(round(x * inv) + zp, 0, 127)
//   y[i, j] = float(sum_p (qx - zp) qw) * (sx * sw) + bias[j]
// round() is round-half-to-even; a row with NaN or an infinity has scale NaN. At float32's
// extremes (quantize.hpp): an inverse over FLT_MAX is held at FLT_MAX (scale 1 / FLT_MAX); a range
// hi - lo that overflows gives scale hi / 127 - lo / 127; a quad sum that overflows, max|w| / 64.
const f = Math.fround;
const FLT_MAX = f(3.4028234663852886e38);

/** {scale, inverse} with the inverse held at FLT_MAX where it overflowed. */
const finiteInverse = (scale, inverse) =>
  inverse <= FLT_MAX ? { scale, inverse } : { scale: f(1 / FLT_MAX), inverse: FLT_MAX };

/** Round half to even (f32x4.nearest, std::nearbyint). */
export function roundHalfEven(x) {
  const r = Math.round(x); // half up
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

const clamp = (t, lo, hi) => (t > lo ? (t < hi ? t : hi) : lo); // NaN -> lo

/** {scale, inverse} of a weight row. */
function weightRow(w) {
  let maxAbs = 0,
    finite = true;
  for (const v of w) {
    finite &&= Number.isFinite(v);
    if (Math.abs(v) > maxAbs) maxAbs = Math.abs(v);
  }
  if (!finite) return { scale: NaN, inverse: 0 };
  if (maxAbs === 0) return { scale: 0, inverse: 0 };
  let maxQuad = 0;
  const at = (p) => (p < w.length ? Math.abs(w[p]) : 0);
  for (let b = 0; b < w.length; b += 8)
    for (const first of [b, b + 2]) {
      const sum = f(f(at(first) + at(first + 4)) + f(at(first + 1) + at(first + 5)));
      if (sum > maxQuad) maxQuad = sum;
    }
  if (maxQuad > FLT_MAX) return { scale: f(maxAbs / 64), inverse: f(64 / maxAbs) };
  const byValue = f(maxAbs / 127),
    byQuad = f(maxQuad / 256);
  return byQuad > byValue ? finiteInverse(byQuad, f(256 / maxQuad)) : finiteInverse(byValue, f(127 / maxAbs));
}

/** W (n, k) -> {q: Int8Array (n, k), scales: Float32Array (n)} */
export function quantizeWeight(w) {
  const [n, k] = w.shape;
  const q = new Int8Array(n * k),
    scales = new Float32Array(n);
  for (let j = 0; j < n; j++) {
    const row = w.data.subarray(j * k, (j + 1) * k);
    const { scale, inverse } = weightRow(row);
    scales[j] = scale;
    for (let p = 0; p < k; p++) q[j * k + p] = clamp(roundHalfEven(f(row[p] * inverse)), -127, 127);
  }
  return { q, scales, shape: [n, k] };
}

/** One activation row -> {q: Uint8Array, scale, zeroPoint}. */
export function quantizeActivationRow(x) {
  let lo = 0,
    hi = 0,
    finite = true;
  for (const v of x) {
    finite &&= Number.isFinite(v);
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const q = new Uint8Array(x.length);
  let scale, inverse, zeroPoint;
  if (!finite) [scale, inverse, zeroPoint] = [NaN, 0, 0];
  else if (f(hi - lo) === 0) [scale, inverse, zeroPoint] = [0, 0, 0];
  else {
    const range = f(hi - lo);
    const overflowed = f(f(hi / 127) - f(lo / 127));
    ({ scale, inverse } =
      range > FLT_MAX
        ? { scale: overflowed, inverse: f(1 / overflowed) }
        : finiteInverse(f(range / 127), f(127 / range)));
    zeroPoint = clamp(roundHalfEven(f(-lo * inverse)), 0, 127);
  }
  for (let p = 0; p < x.length; p++) q[p] = clamp(roundHalfEven(f(x[p] * inverse)) + zeroPoint, 0, 127);
  return { q, scale, zeroPoint };
}

/** y = x W^T + bias with W quantized ({q, scales, shape}), x {data, shape (..., k)}: {data, shape}. */
export function quantizedLinear(x, wq, bias) {
  const [n, k] = wq.shape;
  const m = x.shape.slice(0, -1).reduce((a, b) => a * b, 1);
  const out = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    const a = quantizeActivationRow(x.data.subarray(i * k, (i + 1) * k));
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += (a.q[p] - a.zeroPoint) * wq.q[j * k + p];
      const value = f(f(sum) * f(a.scale * wq.scales[j]));
      out[i * n + j] = bias ? f(value + bias.data[j]) : value;
    }
  }
  return { data: out, shape: [...x.shape.slice(0, -1), n] };
}

/** Index of the first element where a and b differ as float32 bytes (NaN == NaN), or -1. */
export function firstDifference(a, b) {
  if (a.length !== b.length) return 0;
  for (let i = 0; i < a.length; i++)
    if (!(Object.is(a[i], b[i]) || (Number.isNaN(a[i]) && Number.isNaN(b[i])))) return i;
  return -1;
}
