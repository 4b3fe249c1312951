// Plain JS reshuffles of row-major data (no arithmetic): transpose and slicing, so that the
// library does every computation while the page only moves numbers around.
import { Tensor } from 'attention-wasm';

/** (..., m, n) -> (..., n, m). */
export function transposeLast(t) {
  const [m, n] = t.shape.slice(-2);
  const batch = t.data.length / (m * n);
  const out = new Float32Array(t.data.length);
  for (let b = 0; b < batch; b++)
    for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) out[b * m * n + j * m + i] = t.data[b * m * n + i * n + j];
  return new Tensor(out, [...t.shape.slice(0, -2), n, m]);
}

/** t[i] along the first dimension. */
export function row(t, i) {
  const n = t.data.length / t.shape[0];
  return new Tensor(t.data.slice(i * n, (i + 1) * n), t.shape.slice(1));
}

/** A tensor with the same data and another shape (torch's view/reshape of a contiguous tensor). */
export const reshape = (t, shape) => new Tensor(t.data, shape);

/** (a, b, c) -> (b, a, c): e.g. (L, h, d_k) tokens-by-heads to (h, L, d_k) heads-by-tokens. */
export function swap01(t) {
  const [a, b, c] = t.shape;
  const out = new Float32Array(t.data.length);
  for (let i = 0; i < a; i++)
    for (let j = 0; j < b; j++) out.set(t.data.subarray((i * b + j) * c, (i * b + j + 1) * c), (j * a + i) * c);
  return new Tensor(out, [b, a, c]);
}

/** A boolean mask tensor (1 = takes part, torch SDPA polarity) from a predicate. */
export function boolMask(n, m, keep) {
  const d = new Uint8Array(n * m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) d[i * m + j] = keep(i, j) ? 1 : 0;
  return new Tensor(d, [n, m]);
}
