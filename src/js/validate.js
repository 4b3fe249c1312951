// The boundary between the JS API and the bindings, shared by every public function: arguments
// are read and type-checked here (Embind would coerce silently), shapes are checked by the C++
// API, and call() runs a binding and turns its answer into Tensors or a thrown Error. Messages
// name the function, the argument and the shapes.
//
// A caller's tensor is read once: its `data` and `shape` properties once each, the shape's
// length and dims once each (a getter or a Proxy that answers differently on each read cannot
// make the checks and the copy see different tensors), and its data must be a genuine typed
// array (brand-checked; a Proxy is not one). The bindings check all of it again
// (src/bindings/js_interop.hpp).
import {
  Tensor,
  checkShape,
  describe,
  isOptionsObject,
  shapeString,
  typedArrayTag,
  typedArrayLength,
} from './tensor.js';

export { checkShape, describe, shapeString };

const ERRORS = { TypeError, RangeError, Error };
const MAX_RANK = 64;

/** A tensor argument as read once: its data and its shape (dims, and a Float64Array for the binding). */
export class TensorArg {
  constructor(data, dims) {
    this.data = data;
    this.shape = dims; // number[]
    this.dims = Float64Array.from(dims);
  }
}

/** Tensor arguments of one call, in the order the binding documents (null: an absent optional one). */
class TensorArgs {
  constructor(args) {
    this.flat = [];
    for (const t of args) this.flat.push(t?.data ?? null, t?.dims ?? null);
  }
}
export const tensorArgs = (...args) => new TensorArgs(args);

/** Throws the JS error a binding reported, else returns its value. */
export function unwrap(result) {
  if (result && typeof result === 'object' && typeof result.error === 'string') {
    throw new (ERRORS[result.kind] ?? Error)(result.error);
  }
  return result;
}

export function toTensor(raw) {
  return new Tensor(raw.data, raw.shape);
}

/** A binding's result with every {data, shape} in it a Tensor ({output, weights}, arrays of them, ...). */
function toTensors(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toTensors);
  if (typedArrayTag(value.data) && Array.isArray(value.shape)) return toTensor(value);
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, toTensors(v)]));
}

/**
 * Calls binding `name` of lib's module (lib.raw) with `args`, tensorArgs(...) among them going as
 * the one array of (data, shape) pairs the binding takes; throws the error it reports, else
 * returns its result with Tensors for its {data, shape} objects.
 */
export function call(lib, name, ...args) {
  const wire = args.map((a) => (a instanceof TensorArgs ? a.flat : a));
  return toTensors(unwrap(lib.raw[name](...wire)));
}

/** The dims of a caller's shape, read once (its length, then each dim), checked; `where` names it. */
function readShape(shape, where) {
  if (!Array.isArray(shape))
    throw new TypeError(`${where}: shape must be an array of integers, got ${describe(shape)}`);
  const rank = shape.length;
  if (!(rank <= MAX_RANK)) throw new RangeError(`${where}: shape has ${rank} dims, more than ${MAX_RANK}`);
  const dims = new Array(rank);
  for (let i = 0; i < rank; i++) dims[i] = shape[i];
  return { dims, numel: checkShape(dims, where) };
}

/** What to do with plain JS arrays where a tensor of `kinds` is expected. */
function fromArrayHint(kinds) {
  return kinds.includes('Uint8Array')
    ? 'make one from nested arrays with Tensor.fromArray(rows) (float, added to the scores) or new Tensor(Uint8Array.from(rows.flat()), shape) (boolean)'
    : kinds.includes('Float32Array')
      ? 'make one from nested arrays with Tensor.fromArray(rows)'
      : `make one as { data: ${kinds[0]}.from(values), shape }`;
}

/**
 * A tensor argument of one of the typed array kinds `kinds` ("Float32Array", ...), read once.
 * `withShape`: a message about the data's type shows the shape too.
 */
function tensorArg(value, where, kinds, expected, withShape = false) {
  if (Array.isArray(value))
    throw new TypeError(
      `${where} must have ${expected} data, got ${describe(value)}, not a tensor: ${fromArrayHint(kinds)}`,
    );
  if (value === null || typeof value !== 'object') {
    throw new TypeError(`${where} must be a Tensor ({data: ${expected}, shape}), got ${describe(value)}`);
  }
  if (value.dtype === 'q8' && typeof value.dequantize === 'function') {
    throw new TypeError(
      `${where} must have ${expected} data, got an int8 QuantizedTensor ${shapeString(value.shape)}: only a linear ` +
        "layer's weight takes one (A.linear, Linear.weight); its dequantize() gives the float32 weight",
    );
  }
  const data = value.data,
    shape = value.shape;
  if (!kinds.includes(typedArrayTag(data))) {
    throw new TypeError(
      `${where} must have ${expected} data, got ${describe(data)}` +
        (withShape && Array.isArray(shape) ? ` with shape ${shapeString(shape)}` : '') +
        (Array.isArray(data) ? `: ${fromArrayHint(kinds)}` : ''),
    );
  }
  const { dims, numel } = readShape(shape, where);
  const length = typedArrayLength(data);
  if (numel !== length) {
    throw new RangeError(`${where} has shape ${shapeString(dims)} (${numel} elements) but its data has ${length}`);
  }
  return new TensorArg(data, dims);
}

/** A {data: Float32Array, shape} argument, read once and checked; `where` is "fn: argName". */
export function floatArg(value, where) {
  return tensorArg(value, where, ['Float32Array'], 'Float32Array', true);
}

/** The same for an optional argument: null when undefined or null. */
export function optionalFloatArg(value, where) {
  return value === undefined || value === null ? null : floatArg(value, where);
}

/** An optional mask: Uint8Array data (boolean) or Float32Array data (additive); null when absent. */
export function maskArg(value, where) {
  if (value === undefined || value === null) return null;
  return tensorArg(value, where, ['Uint8Array', 'Float32Array'], 'Uint8Array (boolean) or Float32Array (additive)');
}

/**
 * A tensor of any element type the library holds: float32 (Float32Array data), bool (Uint8Array)
 * or int32 (Int32Array), read once; for the functions that only move data (transpose, select, ...).
 */
export function anyTensorArg(value, where) {
  return tensorArg(
    value,
    where,
    ['Float32Array', 'Uint8Array', 'Int32Array'],
    'Float32Array, Uint8Array (bool) or Int32Array (int32)',
    true,
  );
}

/**
 * A dim of a tensor of shape `shape`: an integer in [-rank, rank) (a 0-d tensor takes -1 or 0, as
 * torch), returned in [0, rank) (0 for a 0-d tensor); `where` names it ("transpose: dim0").
 */
export function dimArg(dim, shape, where) {
  integerArg(dim, where);
  const rank = Math.max(shape.length, 1);
  if (dim < -rank || dim >= rank) {
    throw new RangeError(`${where} ${dim} is out of range [${-rank}, ${rank - 1}] for input ${shapeString(shape)}`);
  }
  return dim < 0 ? dim + rank : dim;
}

/** Ids: {data: Int32Array, shape}, read once. */
export function idsArg(value, where) {
  return tensorArg(value, where, ['Int32Array'], 'Int32Array');
}

/** A size argument (an array of dims, e.g. rand's), read once and checked: a Float64Array for the binding. */
export function shapeArg(shape, where) {
  return Float64Array.from(readShape(shape, where).dims);
}

/**
 * Checks an options object against the allowed keys; returns a copy of it (or {}), each option
 * read once.
 */
export function optionsArg(options, allowed, fn) {
  if (options === undefined || options === null) return {};
  // a positional argument (torch's mask or dim, transformers' skip_special_tokens) where this API
  // takes it by name: which names it could be
  const byName = (names) =>
    names.length ? `: positional arguments go in the options object, by name ({ ${names.join(', ')} })` : '';
  if (!isOptionsObject(options)) {
    const hint = typeof options === 'number' || typeof options === 'boolean' ? byName(allowed) : '';
    throw new TypeError(`${fn}: options must be an object, got ${describe(options)}${hint}`);
  }
  if (!allowed.includes('data') && Object.hasOwn(options, 'data') && Object.hasOwn(options, 'shape')) {
    // a tensor: only the options that take one are named (a model's mask goes in its input instead)
    const shape = options.shape;
    throw new TypeError(
      `${fn}: options must be an object, got a tensor (${describe(options)} of shape ${shapeString(shape)})${byName(allowed.filter((k) => /(^m|M)ask$|^weight$|^bias$/.test(k)))}`,
    );
  }
  const copy = {};
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new TypeError(`${fn}: unknown option '${key}' (allowed: ${allowed.join(', ')})`);
    }
    copy[key] = options[key];
  }
  return copy;
}

export function boolOption(value, where, fallback = false) {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new TypeError(`${where} must be a boolean, got ${describe(value)}`);
  return value;
}

export function numberOption(value, where) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') throw new TypeError(`${where} must be a number, got ${describe(value)}`);
  if (Number.isNaN(value)) throw new RangeError(`${where} must not be NaN`);
  return value;
}

/**
 * A count or a size: a positive safe integer; left out (undefined), the fallback when there is one.
 * Not a number is a TypeError, a number that is not a positive integer a RangeError.
 */
export function positiveIntegerOption(value, where, fallback) {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${where} must be a positive integer, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${where} must be a positive integer, got ${value}`);
  if (!Number.isSafeInteger(value))
    throw new RangeError(`${where} must be a positive integer below 2^53, got ${value}`);
  return value;
}

/** A number that is a safe integer (so it converts to int64 exactly). */
export function integerArg(value, where) {
  if (typeof value !== 'number') throw new TypeError(`${where} must be an integer, got ${describe(value)}`);
  if (!Number.isInteger(value)) throw new RangeError(`${where} must be an integer, got ${value}`);
  if (!Number.isSafeInteger(value)) throw new RangeError(`${where} must be an integer in (-2^53, 2^53), got ${value}`);
  return value;
}

/** rand(2, 3) and rand([2, 3]) both mean shape [2, 3]: a Float64Array for the binding. */
export function sizeArgs(args, fn) {
  return shapeArg(args.length === 1 && Array.isArray(args[0]) ? args[0] : args, `${fn}: size`);
}
