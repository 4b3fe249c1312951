// Compares builds of the package with each other, alternating call by call in this one Node
// process (so that the shared VM's swings hit every build alike): attention forward on the
// shapes of scripts/bench.mjs (head dim 64) and matmul / linear at 512^3 and 1024 x 768 x 768,
// one thread. Each build is LABEL=DIR[,option=value...]: DIR holds the package's node.js (a
// dist/ folder: today's, /work/baseline/dist, ...); the options go to its init(), e.g.
//   node --experimental-wasm-relaxed-simd scripts/bench-builds.mjs \
//     simd128=dist,simd=simd128 relaxed=dist,simd=relaxed baseline=/work/baseline/dist
// Per workload: warm-up (at least 0.3 s per build: V8 does not on-stack-replace a running wasm
// call), then rounds of one call per build for about 4 s (at least 10), the median per build.
// GFLOP/s: attention 4 S^2 D H, matmul/linear 2 M K N. Every build must give the first's
// output within 1e-4 relative, else the figures would not compare like with like.
// --encoder adds the whole DistilBERT-base-shaped encoder's forward at 128 and 512 tokens
// (scripts/bench-encoder.mjs's random weights, loaded once per build; GFLOP/s counts its linear
// layers and attention products); --q8 the same encoder loaded with dtype 'q8' (GOP/s; builds
// whose int8 weights differ are compared by their worst per-token cosine, which must be above
// 0.995: each is ~0.999 from float32, and their errors differ). --only=TEXT keeps the workloads
// whose name contains TEXT.
// Usage: node [--experimental-wasm-relaxed-simd] scripts/bench-builds.mjs [--quick] [--encoder] [--q8]
//   [--only=TEXT] BUILD...
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { machineLine } from './load-average.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const builds = args
  .filter((a) => !a.startsWith('--'))
  .map((spec) => {
    const [label, rest] = spec.split(/=(.*)/s);
    const [dir, ...opts] = (rest ?? '').split(',');
    if (!dir) throw new Error(`build "${spec}": expected LABEL=DIR[,option=value...]`);
    const options = Object.fromEntries(
      opts.map((o) => o.split('=')).map(([k, v]) => [k, /^\d+$/.test(v) ? Number(v) : v]),
    );
    return { label, dir: resolve(dir), options };
  });
if (builds.length < 2) {
  console.error('usage: node scripts/bench-builds.mjs [--quick] LABEL=DIR[,option=value...] LABEL=DIR...');
  process.exit(2);
}

const D = 64;
const WORKLOADS = [
  ...[
    [1, 128],
    [8, 128],
    [12, 512],
    [8, 2048],
    [8, 512],
  ].map(([H, S]) => ({
    name: `attention ${H} x ${S}`,
    flops: 4 * S * S * D * H,
    inputs: (random) => [random([1, H, S, D]), random([1, H, S, D]), random([1, H, S, D])],
    run: (A, [q, k, v]) => A.scaledDotProductAttention(q, k, v).output.data,
  })),
  {
    name: 'attention 8 x 512 causal',
    flops: 4 * 512 * 512 * D * 8,
    inputs: (random) => [random([1, 8, 512, D]), random([1, 8, 512, D]), random([1, 8, 512, D])],
    run: (A, [q, k, v]) => A.scaledDotProductAttention(q, k, v, { isCausal: true }).output.data,
  },
  ...[
    [64, 256, 256],
    [128, 768, 768],
    [128, 768, 3072],
    [512, 768, 768],
    [512, 512, 512],
    [1024, 768, 768],
  ].flatMap(([M, K, N]) => [
    {
      name: `matmul ${M} x ${K} x ${N}`,
      flops: 2 * M * K * N,
      inputs: (random) => [random([M, K]), random([K, N])],
      run: (A, [a, b]) => A.matmul(a, b).data,
    },
    {
      name: `linear ${M} x ${K} x ${N}`,
      flops: 2 * M * K * N,
      inputs: (random) => [random([M, K]), random([N, K])],
      run: (A, [x, w]) => A.linear(x, w).data,
    },
  ]),
];

/** Tensors of uniform [-1, 1) floats from a seeded xorshift32. */
function tensorSource(seed) {
  let x = seed >>> 0 || 1;
  return (shape) => {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; ++i) {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      data[i] = (x / 2 ** 32) * 2 - 1;
    }
    return { data, shape };
  };
}

const encoderDtypes = [...(args.includes('--encoder') ? ['fp32'] : []), ...(args.includes('--q8') ? ['q8'] : [])];
if (encoderDtypes.length) {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { writeFolder } = await import('./bench-encoder.mjs');
  const { DISTILBERT_BASE: config, encoderIds, randomTensors, tokenCosines } = await import('./encoder-weights.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-builds-'));
  writeFolder(dir, config, randomTensors(config));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const { dim: D, hidden_dim: F, n_layers: layers } = config;
  for (const dtype of encoderDtypes) {
    const models = new Map(); // A -> its model
    for (const L of [128, 512])
      WORKLOADS.push({
        name: `encoder${dtype === 'q8' ? ' q8' : ''} ${L} tokens`,
        flops: layers * (2 * L * D * (4 * D + 2 * F) + 4 * L * L * D),
        inputs: () => encoderIds(L),
        run: (A, ids) => models.get(A).forward(ids).lastHiddenState.data,
        prepare: async (A) => models.has(A) || models.set(A, await A.loadPretrained(dir, { dtype })),
        // q8 builds may quantize differently: the same outputs up to the quantization
        agree: dtype === 'q8' ? (a, b) => Math.min(...tokenCosines(a, b, D)) > 0.995 : undefined,
      });
  }
}
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
if (only) WORKLOADS.splice(0, WORKLOADS.length, ...WORKLOADS.filter((w) => w.name.includes(only)));

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const worstRelative = (a, b) => a.reduce((w, x, i) => Math.max(w, Math.abs(x - b[i]) / (1 + Math.abs(b[i]))), 0);

console.log(`# ${machineLine()}`);
for (const b of builds) {
  const { init } = await import(pathToFileURL(`${b.dir}/node.js`).href);
  b.A = await init(b.options);
  const info = b.A.buildInfo();
  console.log(`# ${b.label}: ${b.dir} ${JSON.stringify(b.options)} -> ${JSON.stringify(info)}`);
}

const header = [
  'workload',
  ...builds.map((b) => `${b.label} GFLOP/s (ms)`),
  ...builds.slice(1).map((b) => `${b.label} / ${builds[0].label}`),
];
const rows = [];
for (const w of WORKLOADS) {
  for (const b of builds) await w.prepare?.(b.A);
  const inputs = w.inputs(tensorSource((w.flops % 1000) + 1));
  const reference = w.run(builds[0].A, inputs);
  for (const b of builds.slice(1)) {
    const out = w.run(b.A, inputs);
    if (w.agree) {
      if (!w.agree(out, reference)) throw new Error(`${w.name}: ${b.label} does not agree with ${builds[0].label}`);
      continue;
    }
    const diff = worstRelative(out, reference);
    if (diff > 1e-4)
      throw new Error(`${w.name}: ${b.label} differs from ${builds[0].label} by ${diff.toExponential(2)}`);
  }
  const perCall = builds.map((b) => {
    let n = 0;
    const t0 = performance.now();
    for (; n < 4 || performance.now() - t0 < (quick ? 50 : 300); ++n) w.run(b.A, inputs);
    return (performance.now() - t0) / n;
  });
  const rounds = Math.max(10, Math.min(2000, Math.floor((quick ? 800 : 4000) / perCall.reduce((a, b) => a + b, 0))));
  const times = builds.map(() => []);
  for (let r = 0; r < rounds; ++r) {
    builds.forEach((b, i) => {
      const t0 = performance.now();
      w.run(b.A, inputs);
      times[i].push(performance.now() - t0);
    });
  }
  const ms = times.map(median);
  const rate = ms.map((t) => w.flops / (t * 1e6));
  rows.push([
    w.name,
    ...rate.map((r, i) => `${r.toFixed(1)} (${ms[i].toFixed(2)})`),
    ...rate.slice(1).map((r) => `${(r / rate[0]).toFixed(2)}x`),
  ]);
  console.log(`# ${rows.at(-1).join(' | ')}   [${rounds} rounds]`);
}
console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => ' --- ').join('|')}|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
for (const b of builds) b.A.dispose();
