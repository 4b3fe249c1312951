// A.buildInfo(): which SIMD build the kernels were compiled for (the page's speed panel shows it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';

test('buildInfo names the SIMD build the kernels were compiled for', async () => {
  const A = await init();
  const info = A.buildInfo();
  assert.match(info.simd, /^(simd128|relaxed)$/); // WebAssembly SIMD128 or relaxed SIMD (builds.test.mjs), not a scalar fallback
  assert.equal(info.floatLanes, 4);
  assert.equal(typeof info.threaded, 'boolean');
  assert.equal(info.threaded, false, 'init() without threads loads the single-thread build');
  assert.deepEqual(Object.keys(info).sort(), ['emscripten', 'floatLanes', 'simd', 'threaded']);
  assert.match(info.emscripten, /^\d+\.\d+\.\d+$/);
});
