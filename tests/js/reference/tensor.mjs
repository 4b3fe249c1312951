// Shapes and broadcasting for the float64 references: tensors are {data, shape} in row-major
// order (any numeric array).

export const numel = (shape) => shape.reduce((a, b) => a * b, 1);

/** Row-major strides of `shape`. */
export function strides(shape) {
  const s = new Array(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/** torch broadcasting of two shapes (align right, 1 stretches), or null if they do not broadcast. */
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
export function broadcastIndex(shape, target, idx) {
  const st = strides(shape);
  let off = 0;
  for (let i = 0; i < shape.length; i++) {
    const t = i + target.length - shape.length;
    if (shape[i] !== 1) off += idx[t] * st[i];
  }
  return off;
}

/** Calls f(idx, flat) for every multi-index of `shape` in row-major order. */
export function forEachIndex(shape, f) {
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

/** Elementwise f(x) of a tensor. */
export function map(t, f) {
  return { data: Float64Array.from(t.data, (x) => f(Number(x))), shape: [...t.shape] };
}

/** Elementwise f(a, b) with torch broadcasting. */
export function binary(a, b, f) {
  const shape = broadcastShapes(a.shape, b.shape);
  if (!shape) throw new Error(`not broadcastable: [${a.shape}] [${b.shape}]`);
  const data = new Float64Array(numel(shape));
  forEachIndex(shape, (idx, c) => {
    data[c] = f(
      Number(a.data[broadcastIndex(a.shape, shape, idx)]),
      Number(b.data[broadcastIndex(b.shape, shape, idx)]),
    );
  });
  return { data, shape };
}
