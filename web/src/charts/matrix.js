// The matrices the heat maps draw, and their pictures. A matrix is { data, offset, n, m }: n rows
// of m values read row-major from data[offset] (a Float32Array of attention weights, or any
// array), so that one head of a model's (layers, heads, L, L) attentions is drawn without a copy.
import { MASKED_PIXEL } from './colour.js';

/** A matrix from number[][] (rows) or from { data, offset = 0, n, m }. */
export function asMatrix(values) {
  if (!Array.isArray(values)) return { offset: 0, ...values };
  const n = values.length,
    m = values[0].length;
  const data = new Float64Array(n * m);
  values.forEach((row, i) => data.set(row, i * m));
  return { data, offset: 0, n, m };
}

/** The value at row i, column j. */
export const valueAt = (x, i, j) => x.data[x.offset + i * x.m + j];

/**
 * The matrix as a width x height RGBA picture in `scale`'s colours (a { width, height, data }
 * bitmap). At its own size (width m, height n) each cell is one pixel, a masked cell
 * (masked(i, j)) grey. Smaller, each pixel stands for a block of cells and shows the block's
 * peak (its largest weight; for a diverging scale the value furthest from the middle), so that a
 * sharp weight never vanishes from a thumbnail; masks are not shown then.
 */
export function matrixBitmap(x, scale, { width = x.m, height = x.n, masked } = {}) {
  const { data, offset, n, m } = x;
  const { pixels, index } = scale;
  const out = new Uint8ClampedArray(width * height * 4);
  const out32 = new Uint32Array(out.buffer); // one write per pixel
  if (width === m && height === n) {
    if (scale.diverging) for (let k = 0; k < n * m; k++) out32[k] = pixels[index(data[offset + k])];
    else {
      // scale.index written out: this loop runs once per cell of a 512 x 512 head
      const { lo, stepsPerUnit: f } = scale,
        top = pixels.length - 1;
      for (let k = 0; k < n * m; k++) {
        const t = (data[offset + k] - lo) * f;
        out32[k] = pixels[t > 0 ? (t < top ? (t + 0.5) | 0 : top) : 0];
      }
    }
    if (masked)
      for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) if (masked(i, j)) out32[i * m + j] = MASKED_PIXEL;
    return { width, height, data: out };
  }
  // the peak of each block, in one pass over the rows: the largest value for a sequential scale
  // (attention weights), the furthest from the middle for a diverging one (NaN: none yet)
  const peakOf = scale.diverging
    ? (a, b) => (Number.isNaN(a) ? b : scale.peak(a, b))
    : (a, b) => (b > a || Number.isNaN(a) ? b : a);
  const pixelOf = new Int32Array(m);
  for (let j = 0; j < m; j++) pixelOf[j] = Math.floor((j * width) / m);
  const peaks = new Float64Array(width);
  for (let r = 0, i = 0; r < height; r++) {
    peaks.fill(NaN);
    for (; i < n && Math.floor((i * height) / n) === r; i++) {
      const row = offset + i * m;
      for (let j = 0; j < m; j++) peaks[pixelOf[j]] = peakOf(peaks[pixelOf[j]], data[row + j]);
    }
    for (let c = 0; c < width; c++) out32[r * width + c] = pixels[index(peaks[c])];
  }
  return { width, height, data: out };
}

/** The strongest weight of a matrix: { i, j, value }. */
export function strongest(x) {
  const { data, offset, n, m } = x;
  let best = offset;
  for (let k = offset; k < offset + n * m; k++) if (data[k] > data[best]) best = k;
  return { i: Math.floor((best - offset) / m), j: (best - offset) % m, value: data[best] };
}
