// The float64 references of the tensor helpers (A.transpose, permute, select, narrow, topk,
// cosineSimilarity), each from torch's documentation of it.
import { numel, broadcastShapes, broadcastIndex, forEachIndex } from './tensor.mjs';

// Indices in, element out, one element at a time over the result's multi-indices (the library
// gathers whole rows instead).

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
