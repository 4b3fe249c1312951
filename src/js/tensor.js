// Tensor: a plain JS-owned typed array plus a shape. Results of every function are Tensors whose
// data is a fresh typed array (never a view of the wasm heap), so there is nothing to free.

// The element types: float32 data, boolean masks (1 = true) and int32 indices (topk's; what
// embedding takes as ids). torch's index tensors are int64: int32 holds every index a tensor of
// at most 2^29 elements has, and is what the bindings take.
const DTYPES = new Map([
  [Float32Array, 'float32'],
  [Uint8Array, 'bool'],
  [Int32Array, 'int32'],
]);

/** The typed array constructor of each element type, by the array's tag. */
export const ARRAY_TYPES = Object.freeze({ Float32Array, Uint8Array, Int32Array });

/** The most elements a tensor may hold (2 GiB of float32: it must fit the 4 GiB wasm heap). */
export const MAX_ELEMENTS = 2 ** 29;

// %TypedArray%.prototype's @@toStringTag and length getters, as functions of the array: what
// they report comes from a typed array's internal slots, which neither a Proxy nor a `length`
// property defined on the array can change. The tag is undefined for anything that is not a
// typed array (a Proxy of one included).
const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const getterOf = (key) => Function.prototype.call.bind(Object.getOwnPropertyDescriptor(typedArrayPrototype, key).get);
const tagGetter = getterOf(Symbol.toStringTag),
  lengthGetter = getterOf('length'),
  bufferGetter = getterOf('buffer'),
  byteOffsetGetter = getterOf('byteOffset');

/** "Float32Array", "Uint8Array", ... for a genuine typed array; undefined for anything else. */
export const typedArrayTag = (value) => tagGetter(value);
/** A genuine typed array's element count (its internal length; call only when typedArrayTag is set). */
export const typedArrayLength = (value) => lengthGetter(value);

/**
 * Elements start .. start + length of a genuine Float32Array, Uint8Array or Int32Array, as a view
 * of the same kind made from its internal buffer and offset (no property of the array is read, so
 * neither an own `buffer` nor a `constructor` with a species can redirect it): for copies with set().
 */
export function typedArrayView(value, start, length) {
  const type = ARRAY_TYPES[tagGetter(value)];
  return new type(bufferGetter(value), byteOffsetGetter(value) + start * type.BYTES_PER_ELEMENT, length);
}

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
   * @param {Float32Array|Uint8Array|Int32Array} data row-major values (Uint8Array: a boolean mask,
   *   Int32Array: indices)
   * @param {number[]} [shape] defaults to [data.length]
   */
  constructor(data, shape) {
    // a genuine typed array (a Proxy of one has no internal slots: describe names it)
    const type = ARRAY_TYPES[typedArrayTag(data)];
    if (!type) {
      throw new TypeError(
        `Tensor: data must be a Float32Array, a Uint8Array (a boolean mask) or an Int32Array (indices), got ${describe(data)}`,
      );
    }
    // a subclass (Node's Buffer is a Uint8Array) is held as a view of its own kind on the same
    // memory, as the ops take it: a subclass's slice() or constructor may not copy as theirs do
    if (data.constructor !== type) data = typedArrayView(data, 0, typedArrayLength(data));
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
    const flat = [];
    // every array at depth d has shape[d] elements (holes are not elements), numbers at the leaves
    const walk = (value, depth, at) => {
      if (depth === shape.length) {
        if (typeof value !== 'number')
          throw new TypeError(`Tensor.fromArray: element ${at || '[]'} is ${describe(value)}, not a number`);
        flat.push(value);
        return;
      }
      if (!Array.isArray(value) || value.length !== shape[depth])
        throw new TypeError(
          `Tensor.fromArray: expected a rectangular nested array of numbers: ${at || 'the array'} is ${Array.isArray(value) ? `an array of ${value.length}` : describe(value)}, where the first at its depth has ${shape[depth]} elements`,
        );
      for (let i = 0; i < value.length; i++) {
        if (!(i in value)) throw new TypeError(`Tensor.fromArray: ${at}[${i}] is a hole (an empty slot), not a number`);
        walk(value[i], depth + 1, `${at}[${i}]`);
      }
    };
    walk(nested, 0, '');
    return new Tensor(Float32Array.from(flat), shape);
  }

  /** 'float32', 'bool' or 'int32' */
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

  /**
   * The element at a full index, `t.get(i, j, ...)` (torch's `t[i, j, ...].item()`): one index per
   * dim (none for a 0-d tensor), each an integer in [-size, size) of its dim; a negative index
   * counts from the end. A number (true/false for a mask).
   */
  get(...index) {
    if (index.length !== this.shape.length) {
      throw new RangeError(
        `Tensor.get: expected ${this.shape.length} indices for shape ${shapeString(this.shape)}, got ${index.length}`,
      );
    }
    let offset = 0;
    for (let d = 0; d < index.length; d++) {
      const n = this.shape[d],
        i = index[d];
      if (typeof i !== 'number' || !Number.isInteger(i)) {
        const type = typeof i === 'number' ? RangeError : TypeError;
        throw new type(
          `Tensor.get: the index for dim ${d} must be an integer, got ${type === RangeError ? i : describe(i)}`,
        );
      }
      if (i < -n || i >= n) {
        const range = n ? ` [${-n}, ${n - 1}]` : '';
        throw new RangeError(
          `Tensor.get: index ${i} is out of range${range} for dim ${d} (size ${n}) of shape ${shapeString(this.shape)}`,
        );
      }
      offset = offset * n + (i < 0 ? i + n : i);
    }
    const value = this.data[offset];
    return this.dtype === 'bool' ? value !== 0 : value;
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
  toString(options) {
    return formatTensor(this, options);
  }
}

// Python's float formatting ('{:.4f}', '{:.4e}') as torch's printer uses it. JS's toFixed and
// toExponential round the same exact binary value, but an exact tie away from zero where Python
// rounds it to even (0.03125 -> '0.0313' in JS, '0.0312' in Python): such a tie is found from the
// value's exact digits and its last digit taken down by one. Both print a NaN as 'nan', an
// infinity as 'inf' / '-inf', and keep the sign of -0.

/** Whether the exact decimal digits of a >= 0 after position `at` of `digits` are 5 then zeros. */
function isTie(digits, at) {
  return /^50*$/.test(digits.slice(at));
}

/** `s` with its last digit one less (an odd last digit: no borrow). */
const oneLess = (s) => s.slice(0, -1) + String(Number(s.at(-1)) - 1);

function special(x) {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  return null;
}

const sign = (x) => (x < 0 || Object.is(x, -0) ? '-' : '');

/** Python's '{:.pf}'.format(x) (|x| < 1e21: JS's toFixed is exponential beyond). */
export function pythonFixed(x, p) {
  const other = special(x);
  if (other) return other;
  const a = Math.abs(x);
  let s = a.toFixed(p);
  if (Number(s.at(-1)) % 2 === 1) {
    // a float32 value >= 10^-p has at most ~40 digits after the point: 100 are exact
    const exact = a.toFixed(100);
    if (isTie(exact, exact.indexOf('.') + 1 + p)) s = oneLess(s);
  }
  return sign(x) + s;
}

/** Python's '{:.pe}'.format(x): '1.2346e-05', exponent signed, at least two digits. */
export function pythonExponential(x, p) {
  const other = special(x);
  if (other) return other;
  const a = Math.abs(x);
  let [mantissa, exponent] = a.toExponential(p).split('e');
  if (Number(mantissa.at(-1)) % 2 === 1) {
    const exact = a.toPrecision(100).split('e')[0].replace('.', '').replace(/^0+/, ''); // significant digits
    if (isTie(exact, p + 1)) mantissa = oneLess(mantissa);
  }
  const e = Number(exponent);
  return `${sign(x)}${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

/**
 * torch's _Formatter over the values printed: {cell: a value's padded text, width}.
 * float32: int mode (`2.`) when every non-zero finite value is whole; scientific notation
 * (`1.2346e-05`) when the non-zero finite magnitudes span more than 1000x, pass 1e8, or (not int
 * mode) go below 1e-4; the width from the non-zero finite values. bool: True / False. int32: the
 * integers.
 */
function formatter(values, dtype, precision) {
  let width = 1,
    text;
  if (dtype === 'bool') text = (x) => (x ? 'True' : 'False');
  else if (dtype === 'int32') text = String;
  if (text) {
    for (const x of values) width = Math.max(width, text(x).length);
  } else {
    let min = Infinity,
      max = 0,
      intMode = true,
      count = 0;
    for (const x of values) {
      if (!Number.isFinite(x) || x === 0) continue;
      const a = Math.abs(x);
      min = Math.min(min, a);
      max = Math.max(max, a);
      if (x !== Math.ceil(x)) intMode = false;
      count++;
    }
    const sci = count > 0 && (max / min > 1000 || max > 1e8 || (!intMode && min < 1e-4));
    text = sci
      ? (x) => pythonExponential(x, precision)
      : intMode
        ? (x) => pythonFixed(x, 0) + (Number.isFinite(x) ? '.' : '')
        : (x) => pythonFixed(x, precision);
    for (const x of values) if (Number.isFinite(x) && x !== 0) width = Math.max(width, text(x).length);
  }
  return { cell: (x) => text(x).padStart(width), width };
}

/** torch's _add_suffixes: `, dtype=...` after the values, on a new line when the line is full. */
function withSuffixes(text, suffixes, indent, lineWidth) {
  let out = text,
    last = text.length - text.lastIndexOf('\n') + 1;
  for (const suffix of suffixes) {
    if (last + suffix.length + 2 > lineWidth) {
      out += `,\n${' '.repeat(indent)}${suffix}`;
      last = indent + suffix.length;
    } else {
      out += `, ${suffix}`;
      last += suffix.length + 2;
    }
  }
  return `${out})`;
}

/**
 * Whether a value can be an options object: an object that is not an array, a typed array or a
 * Map, Set, Date, RegExp, ArrayBuffer or Promise (whose entries are not its keys: it would pass
 * with every option left out).
 */
export function isOptionsObject(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) return false;
  return ![Map, Set, WeakMap, Date, RegExp, ArrayBuffer, Promise].some((c) => value instanceof c);
}

// formatTensor's options: torch.set_printoptions' names, defaults and ranges (precision is what
// Number.prototype.toFixed takes)
const FORMAT_OPTIONS = {
  precision: { fallback: 4, min: 0, max: 100 },
  lineWidth: { fallback: 80, min: 1, max: Infinity },
  threshold: { fallback: 1000, min: 0, max: Infinity },
  edgeitems: { fallback: 3, min: 1, max: Infinity },
};

function formatOptions(options) {
  if (options === undefined || options === null) options = {};
  if (!isOptionsObject(options))
    throw new TypeError(`formatTensor: options must be an object, got ${describe(options)}`);
  const out = {};
  for (const key of Object.keys(options))
    if (!Object.hasOwn(FORMAT_OPTIONS, key))
      throw new TypeError(`formatTensor: unknown option '${key}' (allowed: ${Object.keys(FORMAT_OPTIONS).join(', ')})`);
  for (const [key, { fallback, min, max }] of Object.entries(FORMAT_OPTIONS)) {
    const value = (Object.hasOwn(options, key) ? options[key] : undefined) ?? fallback;
    if (!(Number.isInteger(value) || value === Infinity) || value < min || value > max)
      throw new RangeError(
        `formatTensor: ${key} must be an integer in [${min}, ${max === Infinity ? 'Infinity' : max}], got ${typeof value === 'number' ? value : describe(value)}`,
      );
    out[key] = value;
  }
  return out;
}

/**
 * Formats a tensor as torch prints it (torch/_tensor_str.py): `tensor([[ 0.3374, -0.1778], ...])`
 * with a common width, `precision` decimals (4, torch's default), rows wrapped at `lineWidth` (80)
 * characters as torch wraps them, torch's integer style (`tensor([2., 4., 4.])`) when every value
 * is whole and its scientific notation (`tensor([1.0000e-05, 2.5000e+00])`) when the magnitudes
 * span more than 1000x, pass 1e8 or go below 1e-4. A tensor of more than `threshold` (1000)
 * elements is summarised as torch does: of every dim longer than 2 * `edgeitems` (3) only the
 * first and last `edgeitems` are shown, around `...` (get_summarized_data, _vector_str,
 * _tensor_str_with_formatter). A bool tensor prints True / False; an int32 tensor its integers
 * and `dtype=torch.int32`, as torch prints a tensor of that dtype; an empty one `tensor([])`, with
 * its `size=(...)` unless it is 1-D (and its dtype unless float32).
 */
export function formatTensor(tensor, options) {
  const t = Tensor.from(tensor);
  const { precision, lineWidth, threshold, edgeitems } = formatOptions(options);
  const prefix = 'tensor(',
    indent = prefix.length;
  const dtype = t.dtype,
    rank = t.shape.length;
  const dtypeSuffix = { bool: 'dtype=torch.bool', int32: 'dtype=torch.int32' }[dtype];
  if (t.data.length === 0) {
    const suffixes = rank === 1 ? [] : [`size=(${t.shape.join(', ')})`];
    if (dtypeSuffix) suffixes.push(dtypeSuffix);
    return withSuffixes(`${prefix}[]`, suffixes, indent, lineWidth);
  }
  // torch prints the dtype unless it is a default one (float32, int64, bool)
  const suffixes = dtype === 'int32' ? [dtypeSuffix] : [];
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
  // the values printed decide the width and the style (torch formats the summarised data)
  const printed = [];
  const collect = (dim, offset) => {
    if (dim === rank) return printed.push(t.data[offset]);
    for (const i of shown[dim]) if (i !== null) collect(dim + 1, offset + i * strides[dim]);
  };
  collect(0, 0);
  const { cell, width } = formatter(printed, dtype, precision);
  if (rank === 0) return withSuffixes(`${prefix}${cell(t.data[0])}`, suffixes, indent, lineWidth);
  // indent: the column after this bracket's "[" (torch's _tensor_str_with_formatter)
  const render = (dim, offset, indent) => {
    if (dim === rank - 1) {
      const row = shown[dim].map((i) => (i === null ? ' ...' : cell(t.data[offset + i])));
      const perLine = Math.max(1, Math.floor((lineWidth - indent) / (width + 2)));
      const lines = [];
      for (let i = 0; i < row.length; i += perLine) lines.push(row.slice(i, i + perLine).join(', '));
      return `[${lines.join(',\n' + ' '.repeat(indent + 1))}]`;
    }
    const parts = shown[dim].map((i) => (i === null ? '...' : render(dim + 1, offset + i * strides[dim], indent + 1)));
    const sep = ',' + '\n'.repeat(rank - 1 - dim) + ' '.repeat(indent + 1);
    return `[${parts.join(sep)}]`;
  };
  return withSuffixes(`${prefix}${render(0, 0, indent)}`, suffixes, indent, lineWidth);
}
