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
  assert.deepEqual(Object.keys(info).sort(), [
    'emscripten',
    'floatLanes',
    'int8Product',
    'relaxedDotLowering',
    'simd',
    'threaded',
  ]);
  assert.match(info.emscripten, /^\d+\.\d+\.\d+$/);
  // the int8 route: the SIMD128 dot in that build; in the relaxed one the one-instruction dot only
  // where the engine lowers it to one (AVX-VNNI: 129540, sdot: -508), else the i16 route
  if (info.simd === 'simd128') assert.deepEqual([info.int8Product, info.relaxedDotLowering], ['simd128-dot', 0]);
  else
    assert.equal(
      info.int8Product,
      [129540, -508].includes(info.relaxedDotLowering) ? 'relaxed-dot' : 'relaxed-i16-dot',
      `relaxed dot(127, -1) = ${info.relaxedDotLowering}`,
    );
});
