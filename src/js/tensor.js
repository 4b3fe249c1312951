// Tensor: a plain JS-owned typed array plus a shape. Results of every function are Tensors whose
// data is a fresh Float32Array (never a view of the wasm heap), so there is nothing to free.

const DTYPES = new Map([
  [Float32Array, 'float32'],
  [Uint8Array, 'bool'],
]);

/** The most elements a tensor may hold (2 GiB of float32: it must fit the 4 GiB wasm heap). */
export const MAX_ELEMENTS = 2 ** 29;

// %TypedArray%.prototype's @@toStringTag and length getters, as functions of the array: what
// they report comes from a typed array's internal slots, which neither a Proxy nor a `length`
// property defined on the array can change. The tag is undefined for anything that is not a
// typed array (a Proxy of one included).
const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const getterOf = (key) => Function.prototype.call.bind(Object.getOwnPropertyDescriptor(typedArrayPrototype, key).get);
const tagGetter = getterOf(Symbol.toStringTag),
  lengthGetter = getterOf('length');

/** "Float32Array", "Uint8Array", ... for a genuine typed array; undefined for anything else. */
export const typedArrayTag = (value) => tagGetter(value);
/** A genuine typed array's element count (its internal length; call only when typedArrayTag is set). */
export const typedArrayLength = (value) => lengthGetter(value);

/** Describes a value for an error message: "Float32Array(6)", "Array(3)", "string", ... */
export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  const tag = typedArrayTag(value);
  if (tag) return `${tag}(${typedArrayLength(value)})`;
  if (typeof value === 'object' && value instanceof typedArrayPrototype.constructor) {
    return `an object posing as ${value.constructor?.name ?? 'a typed array'} (a Proxy?), not a typed array`;
  }
  if (Array.isArray(value)) return `Array(${value.length})`;
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}

/** "[2, 3]" */
export function shapeString(shape) {
  return Array.isArray(shape) ? `[${shape.join(', ')}]` : describe(shape);
}

/**
 * Checks a shape and returns its element count. `where` names the function and argument.
 * Throws TypeError for a non-array or non-number dims, RangeError for negative, fractional or
 * too large dims.
 */
export function checkShape(shape, where) {
  if (!Array.isArray(shape))
    throw new TypeError(`${where}: shape must be an array of integers, got ${describe(shape)}`);
  let numel = 1;
  for (const d of shape) {
    if (typeof d !== 'number') {
      throw new TypeError(`${where}: shape ${shapeString(shape)} must hold numbers, got ${describe(d)}`);
    }
    if (!Number.isInteger(d) || d < 0) {
      throw new RangeError(`${where}: shape ${shapeString(shape)} must hold non-negative integers, got ${d}`);
    }
    // Each dim on its own too: [0, 1e300] has 0 elements but no int64 holds 1e300.
    if (d > MAX_ELEMENTS) {
      throw new RangeError(
        `${where}: shape ${shapeString(shape)} has a dimension ${d} larger than the 2^29 a tensor may hold`,
      );
    }
    numel *= d;
  }
  if (numel > MAX_ELEMENTS) {
    throw new RangeError(
      `${where}: shape ${shapeString(shape)} has ${numel} elements, more than the 2^29 a tensor may hold`,
    );
  }
  return numel;
}

export class Tensor {
  /**
   * @param {Float32Array|Uint8Array} data row-major values (Uint8Array: a boolean mask)
   * @param {number[]} [shape] defaults to [data.length]
   */
  constructor(data, shape) {
    if (!DTYPES.has(data?.constructor)) {
      throw new TypeError(
        `Tensor: data must be a Float32Array (or a Uint8Array for a boolean mask), got ${describe(data)}`,
      );
    }
    shape ??= [data.length];
    const numel = checkShape(shape, 'Tensor');
    if (numel !== data.length) {
      throw new RangeError(`Tensor: shape ${shapeString(shape)} holds ${numel} elements but data has ${data.length}`);
    }
    /** @type {Float32Array|Uint8Array} */
    this.data = data;
    /** @type {number[]} */
    this.shape = [...shape];
  }

  /** Any {data, shape} object (or a Tensor) as a Tensor, checked. */
  static from(value) {
    if (value instanceof Tensor) return value;
    if (value === null || typeof value !== 'object') {
      throw new TypeError(`Tensor.from: expected a {data, shape} object, got ${describe(value)}`);
    }
    return new Tensor(value.data, value.shape);
  }

  /** A float32 tensor from nested arrays of numbers, e.g. Tensor.fromArray([[1, 0], [0, 1]]). */
  static fromArray(nested) {
    const shape = [];
    for (let level = nested; Array.isArray(level); level = level[0]) shape.push(level.length);
    const flat = shape.length ? nested.flat(shape.length - 1) : [nested];
    if (flat.length !== shape.reduce((a, b) => a * b, 1) || flat.some((x) => typeof x !== 'number')) {
      throw new TypeError(`Tensor.fromArray: expected a rectangular nested array of numbers`);
    }
    return new Tensor(Float32Array.from(flat), shape);
  }

  /** 'float32' or 'bool' */
  get dtype() {
    return DTYPES.get(this.data.constructor);
  }

  get ndim() {
    return this.shape.length;
  }

  /** Number of elements. */
  get size() {
    return this.data.length;
  }

  /** The element at a full index, e.g. t.get(1, 2); negative indices count from the end. */
  get(...index) {
    if (index.length !== this.shape.length) {
      throw new RangeError(
        `Tensor.get: expected ${this.shape.length} indices for shape ${shapeString(this.shape)}, got ${index.length}`,
      );
    }
    let offset = 0;
    for (let d = 0; d < index.length; d++) {
      const n = this.shape[d];
      const i = index[d] < 0 ? index[d] + n : index[d];
      if (!Number.isInteger(i) || i < 0 || i >= n) {
        throw new RangeError(
          `Tensor.get: index ${index[d]} is out of range for dim ${d} of shape ${shapeString(this.shape)}`,
        );
      }
      offset = offset * n + i;
    }
    return this.data[offset];
  }

  /** Nested JS arrays (a number for a 0-d tensor). */
  toArray() {
    const values = Array.from(this.data, this.dtype === 'bool' ? (x) => x !== 0 : (x) => x);
    const build = (dim, offset) => {
      if (dim === this.shape.length) return values[offset];
      const stride = this.shape.slice(dim + 1).reduce((a, b) => a * b, 1);
      return Array.from({ length: this.shape[dim] }, (_, i) => build(dim + 1, offset + i * stride));
    };
    return build(0, 0);
  }

  /** Printed like PyTorch's `print(t)` (4 decimals by default). */
  toString(options = {}) {
    return formatTensor(this, options);
  }
}

/**
 * Formats a tensor as torch prints it: `tensor([[ 0.3374, -0.1778], ...])` with a common width,
 * `precision` decimals (4, torch's default), rows wrapped at `lineWidth` (80) characters as
 * torch wraps them, and torch's integer style (`tensor([2., 4., 4.])`) when every value is whole.
 * A tensor of more than `threshold` (1000) elements is summarised as torch does: of every dim
 * longer than 2 * `edgeitems` (3) only the first and last `edgeitems` are shown, around `...`
 * (torch/_tensor_str.py: get_summarized_data, _vector_str, _tensor_str_with_formatter).
 * (torch's scientific notation for very large or small ranges is not reproduced.)
 */
export function formatTensor(t, { precision = 4, lineWidth = 80, threshold = 1000, edgeitems = 3 } = {}) {
  const summarize = t.data.length > threshold;
  const strides = t.shape.map((_, d) => t.shape.slice(d + 1).reduce((a, b) => a * b, 1));
  // per dim, the indices shown (null: the `...`)
  const shown = t.shape.map((n) =>
    summarize && n > 2 * edgeitems
      ? [
          ...Array.from({ length: edgeitems }, (_, i) => i),
          null,
          ...Array.from({ length: edgeitems }, (_, i) => n - edgeitems + i),
        ]
      : Array.from({ length: n }, (_, i) => i),
  );
  // the values printed decide the width and the integer style (torch formats the summarised data)
  const printed = [];
  const collect = (dim, offset) => {
    if (dim === t.shape.length) return printed.push(t.data[offset]);
    for (const i of shown[dim]) if (i !== null) collect(dim + 1, offset + i * strides[dim]);
  };
  if (t.data.length) collect(0, 0);
  const finite = printed.filter(Number.isFinite);
  const intMode = t.dtype !== 'bool' && finite.every(Number.isInteger);
  const fmt = (x) => {
    if (t.dtype === 'bool') return x ? 'True' : 'False';
    if (Number.isNaN(x)) return 'nan';
    if (x === Infinity) return 'inf';
    if (x === -Infinity) return '-inf';
    return intMode ? `${x.toFixed(0)}.` : x.toFixed(precision);
  };
  const width = printed.reduce((w, x) => Math.max(w, fmt(x).length), 0);
  const cell = (x) => fmt(x).padStart(width);
  const prefix = 'tensor(';
  if (t.shape.length === 0) return `${prefix}${cell(t.data[0])})`;
  // indent: the column after this bracket's "[" (torch's _tensor_str_with_formatter)
  const render = (dim, offset, indent) => {
    if (dim === t.shape.length - 1) {
      const row = shown[dim].map((i) => (i === null ? ' ...' : cell(t.data[offset + i])));
      const perLine = Math.max(1, Math.floor((lineWidth - indent) / (width + 2)));
      const lines = [];
      for (let i = 0; i < row.length; i += perLine) lines.push(row.slice(i, i + perLine).join(', '));
      return `[${lines.join(',\n' + ' '.repeat(indent + 1))}]`;
    }
    const parts = shown[dim].map((i) => (i === null ? '...' : render(dim + 1, offset + i * strides[dim], indent + 1)));
    const sep = ',' + '\n'.repeat(t.shape.length - 1 - dim) + ' '.repeat(indent + 1);
    return `[${parts.join(sep)}]`;
  };
  return `${prefix}${render(0, 0, prefix.length)})`;
}
