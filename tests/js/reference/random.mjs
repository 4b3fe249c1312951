// The one seeded generator of the JS tests (and of scripts/make-fixtures.mjs): Mulberry32, a
// uniform double in [0, 1); reproducible inputs for every test that draws them.

/** Seeded Mulberry32: () -> a double in [0, 1). */
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

/** {data: Float32Array, shape} with values uniform in [-scale, scale), drawn from random(). */
export function randomTensor(shape, random, scale = 1) {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = (random() * 2 - 1) * scale;
  return { data, shape };
}

/** rng(seed) with the helpers the table of functions (cases.mjs) draws its cases with. */
export function makeRandom(seed) {
  const next = rng(seed);
  const r = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), // inclusive
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p,
    // sizes: mostly small and odd (every SIMD tail), sometimes 0, sometimes past two vectors
    dim: () => (next() < 0.06 ? 0 : r.pick([1, 1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 31, 33])),
    tensor: (shape, scale = 1) => randomTensor(shape, next, scale),
  };
  return r;
}
