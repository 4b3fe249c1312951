// Argument checking shared by every public function: types are checked here in JS (Embind
// would coerce silently), shapes by the C++ API. Messages name the function, the argument and
// the shapes.
import { Tensor, checkShape, describe, shapeString } from './tensor.js';

export { checkShape, describe, shapeString };

const ERRORS = { TypeError, RangeError, Error };

/**
 * Throws the JS error a binding reported, else returns its value. `names` renames the C++ API's
 * snake_case words in the message to the JS API's (e.g. attn_mask -> attnMask).
 */
export function unwrap(result, names) {
  if (result && typeof result === 'object' && typeof result.error === 'string') {
    let message = result.error;
    if (names) for (const [from, to] of Object.entries(names)) message = message.replaceAll(from, to);
    throw new (ERRORS[result.kind] ?? Error)(message);
  }
  return result;
}

export function toTensor(raw) {
  return new Tensor(raw.data, raw.shape);
}

/** A {data: Float32Array, shape} argument, checked; `where` is "fn: argName". */
export function floatArg(value, where) {
  if (value === null || typeof value !== 'object') {
    throw new TypeError(`${where} must be a Tensor ({data: Float32Array, shape}), got ${describe(value)}`);
  }
  if (!(value.data instanceof Float32Array)) {
    throw new TypeError(`${where} must have Float32Array data, got ${describe(value.data)}` +
      (value.shape ? ` with shape ${shapeString(value.shape)}` : ''));
  }
  checkTensorShape(value, where);
  return value;
}

/** A mask: Uint8Array data (boolean) or Float32Array data (additive). */
export function maskArg(value, where) {
  if (value === null || typeof value !== 'object') {
    throw new TypeError(`${where} must be a Tensor with Uint8Array (boolean) or Float32Array (additive) data, got ${describe(value)}`);
  }
  if (!(value.data instanceof Uint8Array) && !(value.data instanceof Float32Array)) {
    throw new TypeError(`${where} must have Uint8Array (boolean) or Float32Array (additive) data, got ${describe(value.data)}`);
  }
  checkTensorShape(value, where);
  return value;
}

export function checkTensorShape(value, where) {
  const numel = checkShape(value.shape, where);
  if (numel !== value.data.length) {
    throw new RangeError(`${where} has shape ${shapeString(value.shape)} (${numel} elements) but its data has ${value.data.length}`);
  }
}

/** Checks an options object against the allowed keys; returns it (or {}). */
export function optionsArg(options, allowed, fn) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${fn}: options must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new TypeError(`${fn}: unknown option '${key}' (allowed: ${allowed.join(', ')})`);
    }
  }
  return options;
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

/** A number that is a safe integer (so it converts to int64 exactly). */
export function integerArg(value, where) {
  if (typeof value !== 'number') throw new TypeError(`${where} must be an integer, got ${describe(value)}`);
  if (!Number.isInteger(value)) throw new RangeError(`${where} must be an integer, got ${value}`);
  if (!Number.isSafeInteger(value)) throw new RangeError(`${where} must be an integer in (-2^53, 2^53), got ${value}`);
  return value;
}

/** rand(2, 3) and rand([2, 3]) both mean shape [2, 3]. */
export function sizeArgs(args, fn) {
  const shape = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
  checkShape(shape, `${fn}: size`);
  return [...shape];
}

