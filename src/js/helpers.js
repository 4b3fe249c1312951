// The tensor helpers people reach for around attention, with torch's names and semantics:
// transpose, permute, select, narrow, topk and cosineSimilarity. Mixed into
// AttentionWasm.prototype by index.js; what each does: index.d.ts.
//
// Where each runs. transpose, permute, select and narrow only move data, and topk only compares
// and picks: they run here, in JS, for the three element types alike (float32, bool, int32; topk
// float32), with no copy of the input into the wasm heap nor of the result out of it. Measured
// with scripts/bench-helpers.mjs (AMD EPYC Zen 4, Node 20, a shared 2-core machine at load ~8):
// transposing the tutorials' (3, 24, 6) takes 6-8 us here against 17 us for the cheapest wasm
// call on it (A.mul(x, 1)); select, narrow and a permute that keeps the last dim copy whole rows
// with set() (0.4 ms for a (12, 128, 128) permute, under that wasm call's 0.6 ms); a transpose of
// the last dims gathers one element at a time, 1.4 ms for (12, 128, 128), so a wasm gather would
// win there (not done: one path per function, and the models transpose in C++). cosineSimilarity
// does arithmetic (two norms and a dot product per pair): a C++ op over an xsimd kernel with its
// scalar twin (src/ops/cosine_similarity, src/kernels/cosine_similarity), bound like the other ops.
//
// Every result is a fresh array. torch returns views for the first four (sharing the input's
// storage); here writing into a result never changes the input, nor the other way round.
import { Tensor, ARRAY_TYPES, typedArrayTag, typedArrayView } from './tensor.js';
import {
  call,
  tensorArgs,
  floatArg,
  anyTensorArg,
  dimArg,
  integerArg,
  optionsArg,
  boolOption,
  numberOption,
  describe,
  shapeString,
} from './validate.js';

const product = (dims) => dims.reduce((a, b) => a * b, 1);

/** An empty array of the kind of `x`'s data (Float32Array, Uint8Array or Int32Array). */
const arrayLike = (x, length) => new ARRAY_TYPES[typedArrayTag(x.data)](length);

/**
 * `x` with its dims in the order `order` (a permutation: result dim i is x's dim order[i]), into a
 * fresh array: a gather whose innermost loop walks x's stride of the result's last dim.
 */
function permuted(x, order) {
  const { data, shape } = x;
  const rank = shape.length;
  const stride = shape.map((_, d) => product(shape.slice(d + 1)));
  const outShape = order.map((d) => shape[d]);
  const step = order.map((d) => stride[d]); // x's step for one step along each result dim
  const out = arrayLike(x, data.length);
  if (rank === 0) out[0] = data[0];
  if (rank === 0 || out.length === 0) return new Tensor(out, outShape);
  const last = rank - 1,
    rowLength = outShape[last],
    rowStep = step[last];
  const index = new Array(rank).fill(0); // the result's multi-index of the current row
  let from = 0; // x's offset of that row's first element
  for (let o = 0; o < out.length; o += rowLength) {
    if (rowStep === 1)
      out.set(typedArrayView(data, from, rowLength), o); // the last dim stays last: a block copy
    else for (let j = 0, s = from; j < rowLength; j++, s += rowStep) out[o + j] = data[s];
    // next row: a row-major increment of the index over the dims before the last
    for (let d = last - 1; d >= 0; d--) {
      from += step[d];
      if (++index[d] < outShape[d]) break;
      from -= step[d] * outShape[d];
      index[d] = 0;
    }
  }
  return new Tensor(out, outShape);
}

/** Elements start .. start + length of dim d of x (the other dims whole), into a fresh array. */
function sliced(x, d, start, length) {
  const { data, shape } = x;
  const outer = product(shape.slice(0, d)),
    inner = product(shape.slice(d + 1)),
    size = shape[d];
  const block = length * inner; // one index of the dims before d: a contiguous run
  const out = arrayLike(x, outer * block);
  for (let o = 0; o < outer; o++) out.set(typedArrayView(data, (o * size + start) * inner, block), o * block);
  return new Tensor(
    out,
    shape.map((n, i) => (i === d ? length : n)),
  );
}

/** A 0-d input where a function needs a dim to work along. */
function needsDim(fn, x) {
  if (x.shape.length === 0) {
    throw new RangeError(`${fn}: input is 0-d (shape []): it has no dim to ${fn} along (as in torch)`);
  }
}

// topk's selection: more than this many kept, a full sort is cheaper than a sorted buffer of k
const TOPK_BUFFER_LIMIT = 64;

/**
 * The k positions of v[0 .. n) that come first in topk's order: NaN above every number (as torch,
 * aten/src/ATen/native/TopKImpl.h), then by value (descending for largest, ascending otherwise:
 * NaN last), equal values (0 and -0 too) by ascending position. Sorted in that order, or else by
 * position.
 */
function topPositions(v, n, k, largest, sorted) {
  const before = (a, b) => {
    const x = v[a],
      y = v[b];
    if (x !== y) {
      const xNaN = Number.isNaN(x),
        yNaN = Number.isNaN(y);
      if (xNaN !== yNaN) return largest ? xNaN : yNaN;
      if (!xNaN) return largest ? x > y : x < y;
    }
    return a < b;
  };
  let best;
  if (k === 0) best = [];
  else if (k <= TOPK_BUFFER_LIMIT) {
    // the k best so far, in order; a later position never passes an equal value
    best = new Array(k);
    let count = 0,
      worst = NaN; // the value of best[k - 1] once full: most values are rejected by one comparison
    for (let j = 0; j < n; j++) {
      if (count === k && (largest ? v[j] < worst : v[j] > worst)) continue;
      if (count === k && !before(j, best[k - 1])) continue;
      let lo = 0,
        hi = count;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (before(j, best[mid])) hi = mid;
        else lo = mid + 1;
      }
      for (let p = Math.min(count, k - 1); p > lo; p--) best[p] = best[p - 1];
      best[lo] = j;
      if (count < k) count++;
      if (count === k) worst = v[best[k - 1]];
    }
  } else {
    best = Array.from({ length: n }, (_, i) => i)
      .sort((a, b) => (before(a, b) ? -1 : 1))
      .slice(0, k);
  }
  return sorted ? best : best.sort((a, b) => a - b);
}

export const helperMethods = {
  transpose(input, dim0, dim1) {
    const x = anyTensorArg(input, 'transpose: input');
    const d0 = dimArg(dim0, x.shape, 'transpose: dim0'),
      d1 = dimArg(dim1, x.shape, 'transpose: dim1');
    return permuted(
      x,
      x.shape.map((_, d) => (d === d0 ? d1 : d === d1 ? d0 : d)),
    );
  },

  permute(input, dims) {
    const fn = 'permute';
    const { shape } = anyTensorArg(input, `${fn}: input`);
    const rank = shape.length;
    if (!Array.isArray(dims)) {
      throw new TypeError(`${fn}: dims must be an array of ${rank} dims (a permutation), got ${describe(dims)}`);
    }
    const count = dims.length;
    if (count !== rank) {
      throw new RangeError(
        `${fn}: dims has ${count} entries but input ${shapeString(shape)} has ${rank} dims (dims orders all of them)`,
      );
    }
    // each read once, then the input checked again: a getter among them runs before its data is read
    const given = Array.from({ length: count }, (_, i) => dims[i]);
    const x = anyTensorArg(input, `${fn}: input`);
    if (x.shape.length !== count)
      throw new RangeError(`${fn}: input changed to ${shapeString(x.shape)} while dims were read (${count} of them)`);
    const order = given.map((d, i) => dimArg(d, x.shape, `${fn}: dims[${i}]`));
    const twice = order.findIndex((d, i) => order.indexOf(d) !== i);
    if (twice >= 0) {
      throw new RangeError(
        `${fn}: dims [${given.join(', ')}] names dim ${order[twice]} twice (negative dims count from the end); ` +
          `each dim of input ${shapeString(x.shape)} must appear once`,
      );
    }
    return permuted(x, order);
  },

  select(input, dim, index) {
    const fn = 'select';
    const x = anyTensorArg(input, `${fn}: input`);
    needsDim(fn, x);
    const d = dimArg(dim, x.shape, `${fn}: dim`);
    integerArg(index, `${fn}: index`);
    const size = x.shape[d];
    if (index < -size || index >= size) {
      const range = size ? ` [${-size}, ${size - 1}]` : '';
      throw new RangeError(
        `${fn}: index ${index} is out of range${range} for dim ${d} (size ${size}) of input ${shapeString(x.shape)}`,
      );
    }
    const t = sliced(x, d, index < 0 ? index + size : index, 1);
    return new Tensor(
      t.data,
      x.shape.filter((_, i) => i !== d),
    );
  },

  narrow(input, dim, start, length) {
    const fn = 'narrow';
    const x = anyTensorArg(input, `${fn}: input`);
    needsDim(fn, x);
    const d = dimArg(dim, x.shape, `${fn}: dim`);
    integerArg(start, `${fn}: start`);
    integerArg(length, `${fn}: length`);
    const size = x.shape[d],
      where = `dim ${d} (size ${size}) of input ${shapeString(x.shape)}`;
    if (length < 0) throw new RangeError(`${fn}: length must be non-negative, got ${length}`);
    if (start < -size || start > size) {
      throw new RangeError(`${fn}: start ${start} is out of range [${-size}, ${size}] for ${where}`);
    }
    const first = start < 0 ? start + size : start;
    if (first + length > size) {
      const from = start < 0 ? `start ${start} (${first})` : `start ${start}`;
      throw new RangeError(`${fn}: ${from} + length ${length} runs past the end of ${where}`);
    }
    return sliced(x, d, first, length);
  },

  topk(input, k, options) {
    const fn = 'topk';
    // the options first: a getter among them runs before the input is checked and read
    const { dim = -1, largest, sorted } = optionsArg(options, ['dim', 'largest', 'sorted'], fn);
    const x = floatArg(input, `${fn}: input`);
    integerArg(k, `${fn}: k`);
    const d = dimArg(dim, x.shape, `${fn}: dim`);
    const wantLargest = boolOption(largest, `${fn}: largest`, true),
      wantSorted = boolOption(sorted, `${fn}: sorted`, true);
    const { data, shape } = x;
    const rank = shape.length,
      size = rank === 0 ? 1 : shape[d];
    if (k < 0 || k > size) {
      throw new RangeError(
        `${fn}: k ${k} is out of range [0, ${size}] for dim ${d} (size ${size}) of input ${shapeString(shape)}`,
      );
    }
    if (rank === 0) {
      // torch: a 0-d input is its own top value at index 0 (for k = 0 too)
      return { values: new Tensor(Float32Array.of(data[0]), []), indices: new Tensor(new Int32Array(1), []) };
    }
    const outShape = shape.map((n, i) => (i === d ? k : n));
    const outer = product(shape.slice(0, d)),
      inner = product(shape.slice(d + 1));
    const values = new Float32Array(outer * k * inner),
      indices = new Int32Array(values.length);
    const v = new Float32Array(size); // one slice along d
    for (let o = 0; o < outer; o++) {
      for (let i = 0; i < inner; i++) {
        const base = o * size * inner + i;
        if (inner === 1) v.set(typedArrayView(data, base, size));
        else for (let j = 0; j < size; j++) v[j] = data[base + j * inner];
        const top = topPositions(v, size, k, wantLargest, wantSorted);
        for (let r = 0; r < k; r++) {
          const at = (o * k + r) * inner + i;
          values[at] = v[top[r]];
          indices[at] = top[r];
        }
      }
    }
    return { values: new Tensor(values, outShape), indices: new Tensor(indices, outShape) };
  },

  cosineSimilarity(x1, x2, options) {
    const fn = 'cosineSimilarity';
    const a = floatArg(x1, `${fn}: x1`),
      b = x2 === x1 ? a : floatArg(x2, `${fn}: x2`);
    const { dim = 1, eps } = optionsArg(options, ['dim', 'eps'], fn);
    integerArg(dim, `${fn}: dim`);
    return call(this, '_cosineSimilarity', tensorArgs(a, b), dim, numberOption(eps, `${fn}: eps`) ?? 1e-8);
  },
};
