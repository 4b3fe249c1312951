// The int8 linear layer against the float32 one, for scripts/bench-int8.mjs (in Node and in a
// page: nothing here is Node's). Each library instance (a build) runs A.linear on the encoder's
// shapes with a float32 weight and with the same weight quantized (A.quantize), all taking turns
// call by call after warm-up calls; GOP/s = 2 m k n / the median call (a call includes copying
// the input in and the result out, as a user's call does).

/** DistilBERT-base's linear layers at 128 and 512 tokens: [m, k, n]. */
export const SHAPES = [
  [128, 768, 768],
  [128, 768, 3072],
  [128, 3072, 768],
  [512, 768, 3072],
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function random(n, scale, seed) {
  let x = seed >>> 0;
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    a[i] = ((x / 4294967296) * 2 - 1) * scale;
  }
  return a;
}

/**
 * @param {{name: string, A: object}[]} libs library instances (builds) to compare
 * @param {{quick?: boolean, yieldTask?: () => Promise<void>}} options
 * @returns {{header: string[], rows: string[][]}} GOP/s per build and weight type, and ratios
 */
export async function benchInt8Linear(libs, { quick = false, yieldTask = async () => {} } = {}) {
  const header = ['m x k -> n'];
  for (const { name } of libs) header.push(`${name} f32 GFLOP/s`, `${name} q8 GOP/s`, `${name} q8 / f32`);
  const rows = [];
  for (const [m, k, n] of SHAPES) {
    const x = { data: random(m * k, 1, 1 + m), shape: [m, k] };
    const w = { data: random(n * k, 0.05, 2 + n), shape: [n, k] };
    const bias = { data: random(n, 0.01, 3), shape: [n] };
    const runs = [];
    for (const { A } of libs) {
      const wq = A.quantize(w);
      runs.push({ run: () => A.linear(x, w, bias), dispose: () => {} });
      runs.push({ run: () => A.linear(x, wq, bias), dispose: () => wq.dispose() });
    }
    for (const { run } of runs) for (let i = 0; i < (quick ? 3 : 6); i++) run(); // warm-up: V8 tiers up between calls
    const times = runs.map(() => []);
    const rounds = quick ? 5 : 15;
    for (let r = 0; r < rounds; r++)
      for (let i = 0; i < runs.length; i++) {
        await yieldTask();
        const t0 = performance.now();
        runs[i].run();
        times[i].push(performance.now() - t0);
      }
    const gops = times.map((t) => (2 * m * k * n) / (median(t) * 1e6));
    const row = [`${m} x ${k} -> ${n}`];
    for (let i = 0; i < libs.length; i++)
      row.push(gops[2 * i].toFixed(1), gops[2 * i + 1].toFixed(1), `${(gops[2 * i + 1] / gops[2 * i]).toFixed(2)}x`);
    rows.push(row);
    for (const { dispose } of runs) dispose();
  }
  return { header, rows };
}
