// No leaks: many calls of every public function (the table in cases.mjs, valid and invalid)
// leave the wasm heap (memory size and malloc's bytes in use) and the JS heap flat.
// Results are JS-owned arrays, so there is nothing for the caller to free; an object that ever
// holds wasm memory must get dispose()/Symbol.dispose and a FinalizationRegistry, and a test here.
// `npm test`: 2,000 calls of each; `npm run fuzz` / `npm run memory` (AW_MEMORY_CALLS): 100,000.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { library, countFromEnv } from './helpers.mjs';
import { functions } from './cases.mjs';
import { makeRandom } from './reference/index.mjs';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
const CALLS = countFromEnv('AW_MEMORY_CALLS', process.env.AW_FUZZ === 'full' ? 100000 : 2000);
const A = await library();

function jsHeap() {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

test(`${CALLS} calls of each public function, valid and invalid: wasm and JS heaps stay flat`, async () => {
  const r = makeRandom(77);
  const invalid = Object.values(functions)
    .map((f) => Array.from({ length: 16 }, () => f.invalid(r)))
    .flat()
    .filter((c) => !/too large/.test(c.message.source)); // the rest are cheap to repeat
  const round = async (n) => {
    for (const f of Object.values(functions)) {
      for (let i = 0; i < n; i++) {
        const out = f.small(A);
        if (typeof out?.then === 'function') await out; // lm.generate's: ended, aborted, thrown in
      }
    }
    for (let i = 0; i < n; i++) {
      const c = invalid[i % invalid.length];
      // each still throws its documented error: the leak test keeps covering the error paths
      assert.throws(
        () => c.run(A),
        (e) => e instanceof c.type && c.message.test(e.message),
        c.label,
      );
    }
  };
  await round(200); // warm-up: the heap reaches its working size, JIT settles
  const wasmBefore = A.memoryStats();
  const jsBefore = jsHeap();
  await round(CALLS);
  const wasmAfter = A.memoryStats();
  const jsAfter = jsHeap();
  console.log(
    `memory: ${CALLS} calls x ${Object.keys(functions).length} functions + ${CALLS} invalid calls: ` +
      `wasm heap ${wasmBefore.heapBytes} -> ${wasmAfter.heapBytes} bytes, malloc in use ${wasmBefore.allocatedBytes} -> ` +
      `${wasmAfter.allocatedBytes} bytes, JS heap ${(jsBefore / 2 ** 20).toFixed(2)} -> ${(jsAfter / 2 ** 20).toFixed(2)} MiB`,
  );
  assert.equal(wasmAfter.heapBytes, wasmBefore.heapBytes, 'the wasm memory grew');
  assert.equal(wasmAfter.allocatedBytes, wasmBefore.allocatedBytes, 'malloc holds more than before');
  assert.ok(jsAfter - jsBefore < 2 * 2 ** 20, `the JS heap grew by ${jsAfter - jsBefore} bytes`);
});

test('a large call frees everything it allocated', () => {
  const before = A.memoryStats().allocatedBytes;
  const q = A.randn(4, 128, 64);
  A.scaledDotProductAttention(q, q, q, { returnIntermediates: true });
  A.matmul(A.rand(256, 256), A.rand(256, 256));
  assert.equal(A.memoryStats().allocatedBytes, before);
});
