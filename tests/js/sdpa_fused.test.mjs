// scaledDotProductAttention without weights runs the fused kernel (O(tile) memory); with
// returnWeights the materialised one. Both agree, and one object passed as query, key and value
// (copied into the heap once) gives the same result as three copies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { library } from './helpers.mjs';
import { assertClose, rng, randomTensor } from './reference/index.mjs';

const A = await library();

test('fused (no weights) and materialised (returnWeights) outputs agree, causal too', () => {
  const random = rng(5);
  const q = randomTensor([2, 3, 70, 9], random),
    k = randomTensor([2, 3, 131, 9], random);
  const v = randomTensor([2, 3, 131, 5], random);
  for (const isCausal of [false, true]) {
    const fused = A.scaledDotProductAttention(q, k, v, { isCausal });
    const materialised = A.scaledDotProductAttention(q, k, v, { isCausal, returnWeights: true });
    assert.deepEqual(fused.output.shape, [2, 3, 70, 5]);
    assert.equal(fused.weights, undefined);
    assertClose(fused.output, materialised.output.data, 1e-5, `output (isCausal ${isCausal})`);
  }
});

test('one object as query, key and value gives the same as three copies', () => {
  const x = randomTensor([4, 33, 16], rng(6));
  const copy = () => ({ data: x.data.slice(), shape: [...x.shape] });
  const same = A.scaledDotProductAttention(x, x, x, {}).output;
  const copies = A.scaledDotProductAttention(copy(), copy(), copy(), {}).output;
  assertClose(same, copies.data, 0, 'q = k = v');
  const kv = copy();
  assertClose(A.scaledDotProductAttention(copy(), kv, kv, {}).output, copies.data, 0, 'k = v');
});

test('a long sequence runs in bounded memory: S = 8192 without the (S, S) matrix', () => {
  const S = 8192,
    D = 8;
  const random = rng(7);
  const q = randomTensor([1, S, D], random),
    k = randomTensor([1, S, D], random),
    v = randomTensor([1, S, D], random);
  const before = A.raw.HEAP8.buffer.byteLength;
  const { output } = A.scaledDotProductAttention(q, k, v, { isCausal: true });
  assert.equal(output.data.length, S * D);
  assert.ok(output.data.every(Number.isFinite));
  // row 0 sees only key 0
  assertClose(output.data.subarray(0, D), v.data.subarray(0, D), 1e-6, 'row 0');
  // inputs and output are 4 x 256 KiB; the (S, S) matrix would be 256 MiB
  assert.ok(A.raw.HEAP8.buffer.byteLength - before < 16 * 2 ** 20, 'wasm memory grew by less than 16 MiB');
});
