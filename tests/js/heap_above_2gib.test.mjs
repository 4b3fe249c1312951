// Pointers above 2 GiB through the bindings (the heap may grow to 4 GiB: MAXIMUM_MEMORY=4GB, for
// large pretrained models). add(x, x) with x of 1.07 GB: the two input copies and the output are
// three blocks of 1.07 GB live at once in one heap, so at least one of them lies wholly above
// 2^31 and its copy in or out (Embind's typed_memory_view) runs on a pointer >= 2^31; the
// result is exact (x + x = 2x), checked everywhere. Then small calls still work.
// Needs about 6 GB of RAM and ~20 s: opt-in, AW_BIG_HEAP=1 (npm run memory sets it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { library } from './helpers.mjs';

const N = 2 ** 28 + 2 ** 20;  // floats: 1.07 GB, three of them > 3 * 2^30

test('tensors above 2 GiB in the wasm heap round-trip exactly through the bindings', { skip: !process.env.AW_BIG_HEAP && 'AW_BIG_HEAP=1 runs it (6 GB of RAM)' }, async () => {
  const A = await library();
  const x = new Float32Array(N);
  for (let i = 0; i < N; i += 4093) x[i] = (i % 1000) - 500.25;
  x[N - 1] = 7.5;
  const y = A.add({ data: x, shape: [N] }, { data: x, shape: [N] });
  assert.ok(A.memoryStats().heapBytes >= 3 * 4 * N, `the heap grew to ${A.memoryStats().heapBytes} bytes`);
  assert.equal(y.data.length, N);
  for (let i = 0; i < N; i += 4093) {
    if (y.data[i] !== 2 * x[i]) assert.fail(`y[${i}] = ${y.data[i]}, expected ${2 * x[i]}`);
    if (y.data[i + 1] !== 0) assert.fail(`y[${i + 1}] = ${y.data[i + 1]}, expected 0`);
  }
  assert.equal(y.data[N - 1], 15);
  // the module is still usable, and errors still carry their messages
  const p = A.softmax({ data: Float32Array.of(0, Math.log(3)), shape: [2] }).data;
  assert.ok(Math.abs(p[0] - 0.25) < 1e-6 && Math.abs(p[1] - 0.75) < 1e-6, String(p));
  assert.throws(() => A.matmul({ data: new Float32Array(6), shape: [2, 3] }, { data: new Float32Array(6), shape: [2, 3] }), /inner dimensions 3 and 2 differ/);
});
