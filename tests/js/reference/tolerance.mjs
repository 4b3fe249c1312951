// The one tolerance rule of the JS tests. An element `got` of a float32 result passes against its
// float64 reference `want` when
//     |got - want| <= rel * max(|want|, mag, floor) + abs
// where `mag` (given by the reference ops: the size of the terms that were summed, e.g.
// sum |a_ik b_kj| for a product) grades a result whatever the cancellation, and `floor` 1 makes
// `rel` relative to max(1, |want|). NaN passes only against NaN, an infinity only against itself.
// Results rounded per row (the int8 layers: each row of activations quantized on its own) are
// graded instead by the cosine of each row with its reference (cosine, worstRowCosine).
import assert from 'node:assert/strict';

const values = (x) => {
  const v = x?.data ?? x;
  return Array.isArray(v) ? v.flat(Infinity) : v;
};

/**
 * got (array-like) against want ({data, mag?}, or an array, nested arrays flattened):
 * {ok, why (the first failure), worst (the largest |got - want| / max(|want|, mag, floor))}.
 * @param {{rel?: number, abs?: number, floor?: number}} [tolerance] default 1e-5 relative, 1e-6 absolute
 */
export function compare(got, want, { rel = 1e-5, abs = 1e-6, floor = 0 } = {}) {
  const g = values(got),
    w = values(want),
    mag = want?.mag;
  if (g.length !== w.length) return { ok: false, why: `length ${g.length} != ${w.length}`, worst: Infinity };
  let worst = 0;
  for (let i = 0; i < w.length; i++) {
    const a = Number(g[i]),
      b = Number(w[i]);
    if (Number.isNaN(a) || Number.isNaN(b) || !Number.isFinite(a) || !Number.isFinite(b)) {
      if (!Object.is(a, b)) return { ok: false, why: `[${i}] ${a} vs ${b}`, worst: Infinity };
      continue;
    }
    const scale = Math.max(Math.abs(b), mag ? mag[i] : 0, floor);
    const err = Math.abs(a - b);
    if (!(err <= rel * scale + abs))
      return { ok: false, why: `[${i}] ${a} vs ${b} (tol ${(rel * scale + abs).toExponential(2)})`, worst: Infinity };
    if (scale > 0) worst = Math.max(worst, err / scale);
  }
  return { ok: true, worst };
}

/**
 * Asserts `actual` matches `expected` by the rule; a number `tolerance` is absolute
 * ({rel: 0, abs: tolerance}). Returns the worst relative error (compare).
 */
export function assertClose(actual, expected, tolerance, label = '') {
  const t = typeof tolerance === 'number' ? { rel: 0, abs: tolerance } : tolerance;
  const res = compare(actual, expected, t);
  assert.ok(res.ok, `${label}: float64 reference ${res.why}`);
  return res.worst;
}

/** Equal shapes, and 1e-5 relative, 1e-6 absolute near 0 (compare's default; `mag` is not used). */
export function assertNear(actual, expected, label, rel = 1e-5, abs = 1e-6) {
  assert.deepEqual([...actual.shape], [...expected.shape], `${label}: shape`);
  assertClose(actual.data, expected.data, { rel, abs }, label);
}

/** The document prints `decimals` decimals: equal after rounding, allowing float32 noise at the boundary. */
export function assertPrinted(actual, expected, decimals, label = '') {
  assertClose(actual, expected, 0.5 * 10 ** -decimals + 1e-6, label);
}

/** cos(a, b) = a . b / sqrt(|a|^2 |b|^2), summed in float64, over array-likes of equal length. */
export function cosine(a, b) {
  let ab = 0,
    aa = 0,
    bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return ab / Math.sqrt(aa * bb);
}

/**
 * The smallest cosine over the rows of `width` values of a and b (array-likes of equal length),
 * among the rows r where keep(r) holds: a per-row tolerance for results whose rounding is not
 * elementwise (int8 layers).
 */
export function worstRowCosine(a, b, width, keep = () => true) {
  let worst = 1;
  for (let r = 0; r * width < a.length; r++)
    if (keep(r))
      worst = Math.min(worst, cosine(a.slice(r * width, (r + 1) * width), b.slice(r * width, (r + 1) * width)));
  return worst;
}
