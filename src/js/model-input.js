// The token inputs of the pretrained models' forward (model.forward, lm.forward): ids as one row
// or rows of them, flattened into the typed arrays the bindings take, each value checked.
import { describe } from './tensor.js';

// what each input holds, for the errors
const KINDS = { attentionMask: '0/1 values', positionIds: 'positions', tokenTypeIds: 'token type ids' };

/**
 * An input object's fields checked against what the model reads (`read`) and the other fields of
 * an encoding as tokenizer.encode / encodeBatch return it, which forward accepts and does not read
 * (its overflowing windows are encodings of their own, each forwarded on its own).
 */
export function checkInputFields(input, read, fn) {
  const encoding = ['tokens', 'offsets', 'sequenceIds', 'wordIds', 'overflowing'];
  const unknown = Object.keys(input).find((k) => !read.includes(k) && !encoding.includes(k));
  if (unknown !== undefined)
    throw new TypeError(
      `${fn}: unknown input field '${unknown}' (allowed: ${read.join(', ')}, and an encoding's ${encoding.join(', ')})`,
    );
}

/** Ids for forward: number[] | Int32Array, or rows of them. */
export function idRows(value, what, fn = 'model.forward') {
  if (value instanceof Int32Array) return [Array.from(value)];
  if (!Array.isArray(value))
    throw new TypeError(
      `${fn}: ${what} must be an array of ${KINDS[what] ?? 'token ids'} (number[] | Int32Array, or rows of them), got ${describe(value)}`,
    );
  if (value.length && (Array.isArray(value[0]) || value[0] instanceof Int32Array))
    // Array.from, not map: a hole among the rows becomes undefined (refused by flatInts), not a hole
    return Array.from(value, (r) => (r instanceof Int32Array ? Array.from(r) : r));
  return [value];
}

/**
 * rows (N of L) -> Int32Array (or Uint8Array of 0/1 with `bool`) of N * L. Indexed loops, not
 * forEach: a hole in a sparse array ([5, , 7]) is read as undefined and refused as undefined is,
 * where forEach would skip it and leave the typed array's 0 (token 0, or a padding position).
 */
export function flatInts(rows, N, L, what, { bool = false, fn = 'model.forward' } = {}) {
  const out = bool ? new Uint8Array(N * L) : new Int32Array(N * L);
  if (rows.length !== N) throw new RangeError(`${fn}: ${what} has ${rows.length} rows, inputIds ${N}`);
  for (let n = 0; n < N; n++) {
    const row = rows[n];
    if (!Array.isArray(row) || row.length !== L) {
      throw new RangeError(
        `${fn}: ${what} row ${n} has ${Array.isArray(row) ? row.length : describe(row)} values, expected ${L} (pad the batch to one length, e.g. with tokenizer.encodeBatch)`,
      );
    }
    for (let l = 0; l < L; l++) {
      const x = row[l];
      if (typeof x !== 'number')
        throw new TypeError(`${fn}: ${what}[${n}][${l}] = ${describe(x)} is not ${bool ? '0 or 1' : 'an integer id'}`);
      if (!Number.isInteger(x) || (bool ? x !== 0 && x !== 1 : x < -(2 ** 31) || x >= 2 ** 31)) {
        throw new RangeError(`${fn}: ${what}[${n}][${l}] = ${x} is not ${bool ? '0 or 1' : 'an integer id'}`);
      }
      out[n * L + l] = x;
    }
  }
  return out;
}
