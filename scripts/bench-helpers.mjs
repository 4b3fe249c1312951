// Where the tensor helpers run (src/js/helpers.js): the JS helpers against the cheapest wasm call
// on the same tensor, A.mul(x, 1) (its copy into the heap, one contiguous pass, the copy out), a
// lower bound for any wasm op of that size; small and large tensors, alternating in one process
// after a warm-up, medians of 9 rounds.
// Usage: node [--experimental-wasm-relaxed-simd] scripts/bench-helpers.mjs   (after scripts/build.sh)
import { init } from '../dist/node.js';
import { loadAverage, machine } from './load-average.mjs';

const A = await init();
const small = A.randn(3, 24, 6),
  large = A.randn(12, 128, 128),
  logits = A.randn(1, 30522);
const calls = {
  'transpose (3, 24, 6), JS': [() => A.transpose(small, -2, -1), 2000],
  'mul(x, 1) (3, 24, 6), wasm': [() => A.mul(small, 1), 2000],
  'transpose (12, 128, 128), JS': [() => A.transpose(large, -2, -1), 40],
  'permute (12, 128, 128) [1, 0, 2], JS': [() => A.permute(large, [1, 0, 2]), 40],
  'select (12, 128, 128) dim 0, JS': [() => A.select(large, 0, 5), 400],
  'mul(x, 1) (12, 128, 128), wasm': [() => A.mul(large, 1), 40],
  'topk 5 of (1, 30522), JS': [() => A.topk(logits, 5), 100],
  'cosineSimilarity (12, 128, 128) dim -1, wasm': [() => A.cosineSimilarity(large, large, { dim: -1 }), 40],
};
const time = (f, n) => {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) f();
  return (performance.now() - t0) / n;
};
for (const [f, n] of Object.values(calls)) time(f, n); // warm-up
const rounds = Object.fromEntries(Object.keys(calls).map((k) => [k, []]));
for (let round = 0; round < 9; round++) for (const [k, [f, n]] of Object.entries(calls)) rounds[k].push(time(f, n));
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
console.log(`${machine()}, load ${loadAverage()}, ${A.buildInfo().simd}`);
for (const [k, xs] of Object.entries(rounds)) console.log(`${k.padEnd(46)} ${(median(xs) * 1000).toFixed(1)} us`);
console.log(`load ${loadAverage()}`);
