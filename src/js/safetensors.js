// Reading the safetensors format (https://github.com/huggingface/safetensors):
//   8 bytes   N, the header length, unsigned little-endian 64-bit
//   N bytes   JSON header {name: {dtype, shape, data_offsets: [begin, end]}, __metadata__?: {...}}
//   rest      the tensors' bytes; data_offsets are relative to the start of this part
// Only F32 tensors are read (the library computes in float32). Every tensor's data is copied
// into a fresh JS-owned Float32Array.
import { Tensor, describe, shapeString } from './tensor.js';

const FN = 'loadSafetensors';

/**
 * Parses safetensors bytes into a Map name -> Tensor (in the header's order).
 * @param {Uint8Array|ArrayBuffer} bytes
 */
export function loadSafetensors(bytes) {
  if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`${FN}: bytes must be a Uint8Array or an ArrayBuffer, got ${describe(bytes)}`);
  }
  if (bytes.length < 8) {
    throw new Error(`${FN}: truncated file: ${bytes.length} bytes, fewer than the 8 of the header length`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const low = view.getUint32(0, true), high = view.getUint32(4, true);
  const headerLength = high * 2 ** 32 + low;
  if (headerLength > bytes.length - 8) {
    throw new Error(`${FN}: truncated file: the header length says ${headerLength} bytes but only ${bytes.length - 8} follow`);
  }
  let header;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLength)));
  } catch (e) {
    throw new Error(`${FN}: bad header JSON (${headerLength} bytes): ${e.message}`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw new Error(`${FN}: bad header: expected a JSON object of tensors, got ${Array.isArray(header) ? 'an array' : describe(header)}`);
  }
  const dataStart = 8 + headerLength, dataLength = bytes.length - dataStart;
  const tensors = new Map();
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const where = `${FN}: tensor '${name}'`;
    if (entry === null || typeof entry !== 'object') throw new Error(`${where}: expected {dtype, shape, data_offsets}, got ${describe(entry)}`);
    const { dtype, shape, data_offsets: offsets } = entry;
    if (typeof dtype !== 'string') throw new Error(`${where}: dtype must be a string, got ${describe(dtype)}`);
    if (dtype !== 'F32') {
      throw new TypeError(`${where} has dtype ${dtype}; only F32 is supported (convert the weights to float32 first)`);
    }
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0)) {
      throw new Error(`${where}: shape must be an array of non-negative integers, got ${JSON.stringify(shape)}`);
    }
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isInteger(o) && o >= 0)) {
      throw new Error(`${where}: data_offsets must be [begin, end] non-negative integers, got ${JSON.stringify(offsets)}`);
    }
    const [begin, end] = offsets;
    if (begin > end || end > dataLength) {
      throw new Error(`${where}: data_offsets [${begin}, ${end}] out of range of the ${dataLength} data bytes` +
        (end > dataLength ? ' (truncated file?)' : ''));
    }
    const numel = shape.reduce((a, b) => a * b, 1);
    if (end - begin !== numel * 4) {
      throw new Error(`${where}: shape ${shapeString(shape)} needs ${numel * 4} bytes of F32 but data_offsets [${begin}, ${end}] hold ${end - begin}`);
    }
    const data = new Float32Array(numel);
    for (let i = 0; i < numel; i++) data[i] = view.getFloat32(dataStart + begin + 4 * i, true);
    tensors.set(name, new Tensor(data, shape));
  }
  return tensors;
}
