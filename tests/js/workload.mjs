// A seeded workload for workers.test.mjs: the sha256 of every result's bytes. Imported by the
// main thread, and run as a worker_threads module, where it posts the digest.
import { init } from 'attention-wasm';
import { parentPort, isMainThread } from 'node:worker_threads';
import { createHash } from 'node:crypto';

export async function digest() {
  const A = await init();
  const hash = createHash('sha256');
  for (let seed = 0; seed < 40; seed++) {
    A.manualSeed(seed);
    const q = A.randn(2, 3, 17, 8),
      k = A.randn(2, 3, 13, 8),
      v = A.randn(2, 3, 13, 5);
    const mask = { data: Uint8Array.from(A.rand(17, 13).data, (x) => (x < 0.8 ? 1 : 0)), shape: [17, 13] };
    const outs = [
      A.scaledDotProductAttention(q, k, v, { attnMask: mask, returnWeights: true }).weights,
      A.scaledDotProductAttention(q, k, v, { isCausal: true }).output,
      A.matmul(q, A.randn(8, 9)),
      A.linear(v, A.randn(7, 5), A.randn(7)),
      A.softmax(q, { dim: 2 }),
    ];
    for (const t of outs) hash.update(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  }
  return hash.digest('hex');
}

if (!isMainThread) parentPort.postMessage(await digest());
