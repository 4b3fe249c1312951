// Shared by the node --test suites: the package loaded by its own name (the `node` export of
// package.json, i.e. the built dist/), and comparisons that report where they fail.
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';

let shared;
/** One module instance per test file (each file runs in its own process). */
export async function library() {
  shared ??= await init();
  return shared;
}

/** |actual - expected| <= tol elementwise; shapes must agree. */
export function assertClose(actual, expected, tol, label = '') {
  const a = Array.from(actual.data ?? actual).map(Number);
  const e = (expected.flat ? expected.flat(Infinity) : Array.from(expected)).map(Number);
  assert.equal(a.length, e.length, `${label}: length ${a.length} != ${e.length}`);
  for (let i = 0; i < a.length; i++) {
    const ok = Math.abs(a[i] - e[i]) <= tol || (Number.isNaN(a[i]) && Number.isNaN(e[i])) || a[i] === e[i];
    assert.ok(ok, `${label}[${i}]: ${a[i]} vs expected ${e[i]} (tol ${tol})`);
  }
}

/** The document prints 4 decimals: equal after rounding, allowing float32 noise at the boundary. */
export function assertPrinted(actual, expected, decimals, label = '') {
  assertClose(actual, expected, 0.5 * 10 ** -decimals + 1e-6, label);
}

/** Seeded Mulberry32: reproducible test inputs. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomTensor(shape, random, scale = 1) {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = (random() * 2 - 1) * scale;
  return { data, shape };
}
