// Reading the safetensors format (https://github.com/huggingface/safetensors):
//   8 bytes   N, the header length, unsigned little-endian 64-bit
//   N bytes   UTF-8 JSON header {name: {dtype, shape, data_offsets: [begin, end]}, __metadata__?: {string: string}}
//   rest      the tensors' bytes; data_offsets are relative to the start of this part
//
// Files are untrusted input and are validated as the format's reference implementation does,
// huggingface/safetensors safetensors/src/tensor.rs (commit 24b0b2857fef, 0.8.0-dev):
//   read_metadata   fewer than 8 bytes: HeaderTooSmall; N > MAX_HEADER_SIZE (100,000,000):
//                   HeaderTooLarge; 8 + N past the end: InvalidHeaderLength; not UTF-8:
//                   InvalidHeader; not JSON of that schema (dtype one of Dtype's names, shape
//                   and offsets unsigned integers, __metadata__ a map of strings):
//                   InvalidHeaderDeserialization
//   Metadata::validate, tensors sorted by data_offsets: each must begin where the previous one
//                   ended (a gap or an overlap: InvalidOffset(name)), end >= begin; numel x
//                   bitsize must be whole bytes (MisalignedSlice) and equal end - begin
//                   (TensorInvalidInfo); sizes must not overflow (ValidationOverflow)
//   read_metadata   the last tensor's end + 8 + N must be the file size: nothing missing, nothing
//                   after (MetadataIncompleteBuffer)
// Each message below names the rule it enforces in those terms.
import { Tensor, checkShape, describe, shapeString } from './tensor.js';

/** Bits per element of every dtype the format defines (tensor.rs, Dtype::bitsize). */
export const SAFETENSORS_DTYPE_BITS = Object.freeze({
  BOOL: 8,
  F4: 4,
  F6_E2M3: 6,
  F6_E3M2: 6,
  U8: 8,
  I8: 8,
  F8_E5M2: 8,
  F8_E4M3: 8,
  F8_E8M0: 8,
  F8_E4M3FNUZ: 8,
  F8_E5M2FNUZ: 8,
  I16: 16,
  U16: 16,
  F16: 16,
  BF16: 16,
  I32: 32,
  U32: 32,
  F32: 32,
  C64: 64,
  F64: 64,
  I64: 64,
  U64: 64,
});
/** The floating-point dtypes read into float32 (once, at load). */
export const FLOAT_DTYPES = Object.freeze(['F32', 'F16', 'BF16']);
export const MAX_HEADER_SIZE = 100_000_000;

/**
 * The header length N from the file's first 8 bytes, checked against the file size.
 * @param {Uint8Array} first the first min(8, fileSize) bytes
 * @param {number} fileSize
 * @param {string} file names the file in messages
 */
export function safetensorsHeaderLength(first, fileSize, file) {
  if (fileSize < 8 || first.length < 8) {
    throw new Error(
      `${file}: truncated file: ${fileSize} bytes, fewer than the 8 of the header length (safetensors: HeaderTooSmall)`,
    );
  }
  const view = new DataView(first.buffer, first.byteOffset, 8);
  const n = view.getUint32(4, true) * 2 ** 32 + view.getUint32(0, true);
  if (n > MAX_HEADER_SIZE) {
    throw new Error(
      `${file}: the header length says ${n} bytes, more than the format's limit of ${MAX_HEADER_SIZE} (safetensors: HeaderTooLarge)`,
    );
  }
  if (8 + n > fileSize) {
    throw new Error(
      `${file}: truncated file: the header length says ${n} bytes but only ${fileSize - 8} follow (safetensors: InvalidHeaderLength)`,
    );
  }
  return n;
}

const isOffset = (x) => Number.isSafeInteger(x) && x >= 0;

/**
 * Parses and validates a header. Returns the tensors in file order with their data_offsets
 * ({name, dtype, shape, begin, end}, relative to the data section at byte 8 + N), the metadata
 * (or null) and dataStart = 8 + N.
 * @param {Uint8Array} header the N header bytes
 * @param {number} fileSize
 * @param {string} file
 */
export function parseSafetensorsHeader(header, fileSize, file) {
  let json;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(header));
  } catch (e) {
    throw new Error(
      `${file}: bad header JSON (${header.length} bytes): ${e.message} (safetensors: InvalidHeaderDeserialization)`,
    );
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new Error(
      `${file}: bad header: expected a JSON object of tensors, got ${Array.isArray(json) ? 'an array' : describe(json)} (safetensors: InvalidHeaderDeserialization)`,
    );
  }
  let metadata = null;
  const tensors = [];
  for (const [name, entry] of Object.entries(json)) {
    if (name === '__metadata__') {
      if (
        entry !== null &&
        (typeof entry !== 'object' || Array.isArray(entry) || !Object.values(entry).every((v) => typeof v === 'string'))
      ) {
        throw new Error(
          `${file}: __metadata__ must be a map of strings to strings (safetensors: InvalidHeaderDeserialization)`,
        );
      }
      metadata = entry;
      continue;
    }
    const where = `${file}: tensor '${name}'`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new Error(
        `${where}: expected {dtype, shape, data_offsets}, got ${describe(entry)} (safetensors: InvalidHeaderDeserialization)`,
      );
    }
    const { dtype, shape, data_offsets: offsets } = entry;
    if (typeof dtype !== 'string' || !Object.hasOwn(SAFETENSORS_DTYPE_BITS, dtype)) {
      throw new Error(
        `${where}: unknown dtype ${JSON.stringify(dtype)} (the format's dtypes: ${Object.keys(SAFETENSORS_DTYPE_BITS).join(', ')}) (safetensors: InvalidHeaderDeserialization)`,
      );
    }
    if (!Array.isArray(shape) || !shape.every(isOffset)) {
      throw new Error(
        `${where}: shape must be an array of non-negative integers, got ${JSON.stringify(shape)} (safetensors: InvalidHeaderDeserialization)`,
      );
    }
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isOffset)) {
      throw new Error(
        `${where}: data_offsets must be [begin, end] non-negative integers, got ${JSON.stringify(offsets)} (safetensors: InvalidHeaderDeserialization)`,
      );
    }
    tensors.push({ name, dtype, shape, begin: offsets[0], end: offsets[1] });
  }
  // Metadata::validate: in offset order, each tensor starts where the previous one ended.
  tensors.sort((a, b) => a.begin - b.begin || a.end - b.end);
  let start = 0,
    previous = null;
  for (const t of tensors) {
    const where = `${file}: tensor '${t.name}'`;
    const range = `data_offsets [${t.begin}, ${t.end}]`;
    if (t.begin !== start || t.end < t.begin) {
      const why =
        t.end < t.begin
          ? 'end before begin'
          : t.begin > start
            ? `a hole of ${t.begin - start} bytes before it (the previous tensor${previous ? ` '${previous.name}'` : 's'} end at ${start})`
            : `it overlaps tensor '${previous.name}' [${previous.begin}, ${previous.end}]`;
      throw new Error(`${where}: ${range}: ${why} (safetensors: InvalidOffset)`);
    }
    let numel = 1;
    for (const d of t.shape) numel *= d;
    const bits = numel * SAFETENSORS_DTYPE_BITS[t.dtype];
    if (!Number.isSafeInteger(bits))
      throw new Error(`${where}: shape ${shapeString(t.shape)} is too large (safetensors: ValidationOverflow)`);
    if (bits % 8 !== 0)
      throw new Error(
        `${where}: shape ${shapeString(t.shape)} of ${t.dtype} is not a whole number of bytes (safetensors: MisalignedSlice)`,
      );
    if (t.end - t.begin !== bits / 8) {
      throw new Error(
        `${where}: shape ${shapeString(t.shape)} of ${t.dtype} needs ${bits / 8} bytes but ${range} hold ${t.end - t.begin} (safetensors: TensorInvalidInfo)`,
      );
    }
    start = t.end;
    previous = t;
  }
  const dataStart = 8 + header.length;
  if (dataStart + start !== fileSize) {
    throw new Error(
      start + dataStart > fileSize
        ? `${file}: truncated file: the tensors need ${start} bytes of data but only ${fileSize - dataStart} follow the header (safetensors: MetadataIncompleteBuffer)`
        : `${file}: ${fileSize - dataStart - start} bytes after the last tensor's data: the tensors must cover the file (safetensors: MetadataIncompleteBuffer)`,
    );
  }
  return { tensors, metadata, dataStart };
}

/**
 * count little-endian elements of a float dtype at bytes -> Float32Array (F16 and BF16 widened
 * exactly).
 */
export function decodeFloats(dtype, bytes, count) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(count);
  if (dtype === 'F32') {
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(4 * i, true);
  } else if (dtype === 'BF16') {
    const word = new DataView(new ArrayBuffer(4));
    for (let i = 0; i < count; i++) {
      word.setUint32(0, (view.getUint16(2 * i, true) << 16) >>> 0);
      out[i] = word.getFloat32(0);
    }
  } else if (dtype === 'F16') {
    for (let i = 0; i < count; i++) out[i] = halfToFloat(view.getUint16(2 * i, true));
  } else {
    throw new TypeError(`decodeFloats: ${dtype} is not a float dtype`);
  }
  return out;
}

/** IEEE 754 binary16 bits -> number: (-1)^s 2^(e-15) (1 + m/1024), subnormals 2^-14 m/1024. */
export function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1,
    exponent = (h >> 10) & 0x1f,
    mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

const FN = 'loadSafetensors';

/** The integer dtypes loadSafetensors reads, and how to read element i of each. */
const INT_DTYPES = Object.freeze({
  BOOL: (v, i) => v.getUint8(i),
  U8: (v, i) => v.getUint8(i),
  I8: (v, i) => v.getInt8(i),
  I16: (v, i) => v.getInt16(2 * i, true),
  U16: (v, i) => v.getUint16(2 * i, true),
  I32: (v, i) => v.getInt32(4 * i, true),
  U32: (v, i) => v.getUint32(4 * i, true),
  I64: (v, i) => v.getBigInt64(8 * i, true),
  U64: (v, i) => v.getBigUint64(8 * i, true),
});

/**
 * count little-endian elements of an integer dtype at bytes: BOOL as a Uint8Array (a boolean
 * mask, as the library takes one: any non-zero byte is true), the others as an Int32Array (their
 * values, as indices are held); a value beyond int32 is a RangeError (`where` names the tensor).
 */
function decodeInts(dtype, bytes, count, where) {
  const read = INT_DTYPES[dtype];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = dtype === 'BOOL' ? new Uint8Array(count) : new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const v = read(view, i); // a number, or a bigint for I64/U64 (compared with numbers exactly)
    if (v < -(2 ** 31) || v >= 2 ** 31) {
      throw new RangeError(
        `${where}: element ${i} = ${v} of ${dtype} does not fit the Int32Array the library reads integer tensors into`,
      );
    }
    out[i] = Number(v);
  }
  return out;
}

/**
 * Parses safetensors bytes into a Map name -> Tensor (in file order). F32, F16 and BF16 tensors
 * become float32 (F16/BF16 widened exactly); BOOL a boolean mask (Uint8Array); the integer dtypes
 * (U8, I8, I16, U16, I32, U32, I64, U64) an Int32Array of their values, each within int32 (as
 * position_ids are); another dtype is a TypeError naming the tensor. Every tensor's data is a
 * fresh JS-owned array.
 * @param {Uint8Array|ArrayBuffer} bytes
 */
export function loadSafetensors(bytes) {
  if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`${FN}: bytes must be a Uint8Array or an ArrayBuffer, got ${describe(bytes)}`);
  }
  // a view of a buffer transferred away (detached; Node 20 has no .detached) cannot be sliced
  let lengthField;
  try {
    lengthField = bytes.subarray(0, 8);
  } catch {
    throw new TypeError(`${FN}: bytes is a view of a detached ArrayBuffer (transferred away)`);
  }
  const n = safetensorsHeaderLength(lengthField, bytes.length, FN);
  const { tensors, dataStart } = parseSafetensorsHeader(bytes.subarray(8, 8 + n), bytes.length, FN);
  const out = new Map();
  for (const t of tensors) {
    // a tensor's own rule (each dim within 2^29), named with the tensor: checked before decoding
    try {
      checkShape(t.shape, `tensor '${t.name}'`);
    } catch (e) {
      if (e instanceof Error) e.message = `${FN}: ${e.message}`;
      throw e;
    }
    if (!FLOAT_DTYPES.includes(t.dtype) && !Object.hasOwn(INT_DTYPES, t.dtype)) {
      throw new TypeError(
        `${FN}: tensor '${t.name}' has dtype ${t.dtype}; read are F32, F16 and BF16 (as float32) and the integer dtypes (the library computes in float32)`,
      );
    }
  }
  for (const t of tensors) {
    const numel = t.shape.reduce((a, b) => a * b, 1);
    const data = bytes.subarray(dataStart + t.begin, dataStart + t.end);
    out.set(
      t.name,
      new Tensor(
        FLOAT_DTYPES.includes(t.dtype)
          ? decodeFloats(t.dtype, data, numel)
          : decodeInts(t.dtype, data, numel, `${FN}: tensor '${t.name}'`),
        t.shape,
      ),
    );
  }
  return out;
}
