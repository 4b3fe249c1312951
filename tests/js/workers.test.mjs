// Concurrency: the module loaded in several worker_threads at once (each thread its own
// instance) gives results byte-identical to one instance on the main thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { digest } from './workload.mjs';

const WORKERS = 4;

function runInWorker() {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./workload.mjs', import.meta.url));
    w.once('message', (d) => {
      resolve(d);
      w.terminate();
    });
    w.once('error', reject);
  });
}

test(`${WORKERS} worker threads at once give results identical to the main thread`, async () => {
  const single = await digest();
  assert.match(single, /^[0-9a-f]{64}$/);
  const digests = await Promise.all(Array.from({ length: WORKERS }, runInWorker));
  assert.deepEqual(digests, Array(WORKERS).fill(single));
});
