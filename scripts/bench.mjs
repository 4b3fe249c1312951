// npm run bench: scaled dot-product attention forward, float32, batch 1, head dim 64, one thread:
// attention-wasm's relaxed-SIMD build and its SIMD128 build (dist/, build it first) against
// onnxruntime-web (wasm backend) and the TensorFlow.js wasm backend, all in this one Node process
// on the same inputs, taking turns call by call (scripts/bench-attention.mjs: shapes, peers and
// method, shared with the Chromium run, scripts/bench-browser.mjs). The relaxed build needs an
// engine with relaxed SIMD: Node 22+, or Node 20 with --experimental-wasm-relaxed-simd; without,
// its column is left out. `npm run bench` runs it on Node 24 (the official binary setup.sh
// installs, scripts/node.sh), `npm run bench:node20` on the system's Node 20 with the flag; the
// machine line names the Node.
// Then a long-sequence table for attention-wasm alone (1 head): time and the growth of its
// wasm memory in a fresh module instance.
//
// With threads (default: os.availableParallelism()), attention-wasm's threaded build
// (init({threads}), the flavour init() picks) takes its turn as one more library, and the table
// gets its speed-up over the single-thread build of that flavour; --threads=1 leaves it out.
//
// Then the MultiheadAttention rows: its forward at embedDim 768, 12 heads, L = S = 512, batch 1,
// no weights returned, against its parts called one by one (the three projections, one SDPA call
// on (1, 12, 512, 64) inputs, the output projection), alternating in this process; and on one
// thread against the threaded build.
//
// Then the whole-encoder rows (scripts/bench-encoder.mjs): a DistilBERT-base-shaped model's load
// time and peak memory, and its forward at 128 and 512 tokens against onnxruntime-web.
//
// Then the decoder rows (scripts/bench-decoder.mjs): a GPT-2-small-shaped model's prefill of 128
// tokens and decode tokens/s against onnxruntime-web's decoder graph, at 1 and 2 threads, with
// the heap's read bandwidth measured in the same process.
//
// Usage: node [--experimental-wasm-relaxed-simd] scripts/bench.mjs [--quick] [--no-long] [--only=ours]
//          [--threads=N] [--no-mha | --only=mha] [--no-encoder | --only=encoder]
//          [--no-decoder | --only=decoder]
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { readFile } from 'node:fs/promises';
import { loadAverage, machine, machineLine } from './load-average.mjs';
import { init } from '../dist/node.js';
import { relaxedSimdSupported } from '../dist/builds.js';
import { benchEncoder } from './bench-encoder.mjs';
import { benchDecoder } from './bench-decoder.mjs';
import {
  D,
  attentionWasm,
  compareAttention,
  fmt,
  markdownTable,
  median,
  onnxruntimeWeb,
  randomData,
  tensorflowWasm,
} from './bench-attention.mjs';

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const onlyOurs = args.has('--only=ours');
const threadsArg = [...args].find((a) => a.startsWith('--threads='));
const THREADS = threadsArg ? Number(threadsArg.slice('--threads='.length)) : os.availableParallelism();
const root = new URL('..', import.meta.url);
const moduleDir = (p) => fileURLToPath(new URL(`node_modules/${p}`, root));
const LONG = [4096, 16384, 32768];

async function packageVersion(name) {
  return JSON.parse(await readFile(new URL(`node_modules/${name}/package.json`, root), 'utf8')).version;
}

/** The peers of the attention table, first ours (relaxed where this Node runs it, SIMD128). */
async function attentionLibraries() {
  const libs = [];
  if (relaxedSimdSupported()) libs.push(attentionWasm(await init({ simd: 'relaxed' }), 'attention-wasm relaxed'));
  else
    console.log(
      '# attention-wasm relaxed: this Node has no relaxed SIMD (Node 20 needs --experimental-wasm-relaxed-simd); left out',
    );
  libs.push(attentionWasm(await init({ simd: 'simd128' }), 'attention-wasm simd128'));
  if (THREADS > 1) {
    const A = await init({ threads: THREADS });
    libs.push(attentionWasm(A, `attention-wasm ${A.buildInfo().simd} ${A.threads} threads`));
  }
  if (!onlyOurs) {
    const peers = {
      'onnxruntime-web': async () =>
        onnxruntimeWeb(
          await import('onnxruntime-web'),
          await packageVersion('onnxruntime-web'),
          moduleDir('onnxruntime-web/dist/'),
        ),
      'tfjs-backend-wasm': async () => {
        const tf = await import('@tensorflow/tfjs-core');
        const wasm = await import('@tensorflow/tfjs-backend-wasm');
        wasm.setWasmPaths(moduleDir('@tensorflow/tfjs-backend-wasm/dist/'));
        wasm.setThreadsCount?.(1);
        tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
        await tf.setBackend('wasm');
        await tf.ready();
        return tensorflowWasm(tf, await packageVersion('@tensorflow/tfjs-backend-wasm'));
      },
    };
    for (const [name, make] of Object.entries(peers)) {
      try {
        libs.push(await make());
      } catch (e) {
        console.log(`# ${name}: could not be loaded (${e.message.split('\n')[0]}); continuing without it`);
      }
    }
  }
  return libs;
}

/** Ratio columns: relaxed over SIMD128, threads over one thread, ours over each peer. */
function ratioColumns(libs) {
  const at = (prefix) => libs.findIndex((l) => l.name.startsWith(prefix));
  const relaxed = at('attention-wasm relaxed'),
    simd128 = at('attention-wasm simd128');
  const threaded = libs.findIndex((l) => / threads$/.test(l.name));
  const ours = relaxed >= 0 && threaded !== relaxed ? relaxed : simd128;
  const ratios = [];
  if (relaxed >= 0 && relaxed !== threaded) ratios.push([relaxed, simd128, 'relaxed / simd128']);
  if (threaded >= 0)
    ratios.push([threaded, libs[threaded].name.includes('relaxed') ? ours : simd128, 'threads speed-up']);
  for (const [i, lib] of libs.entries()) {
    if (lib.name.startsWith('attention-wasm')) continue;
    const peer = lib.name.split(' ')[0];
    ratios.push([ours, i, `${libs[ours].name.replace('attention-wasm ', '')} / ${peer}`]);
    if (ours !== simd128) ratios.push([simd128, i, `simd128 / ${peer}`]);
  }
  return ratios;
}

async function main() {
  console.log(
    `# attention forward, float32, batch 1, head dim ${D}, one thread${THREADS > 1 ? ` (and attention-wasm on ${THREADS})` : ''}`,
  );
  console.log(`# ${machineLine()}`);

  const libs = await attentionLibraries();
  const { header, rows, results } = await compareAttention(libs, {
    ratios: ratioColumns(libs),
    quick,
    log: console.log,
    yieldTask: () => new Promise((resolve) => setImmediate(resolve)),
  });
  console.log(`\n${markdownTable(header, rows)}`);
  console.log(`# load average after: ${loadAverage()}`);
  const full = results['8 x 512'],
    causal = results['8 x 512 causal'];
  console.log(`\ncausal 8 x 512 speed-up over non-causal (${libs[0].name}): ${fmt(full.ms[0] / causal.ms[0], 2)}x`);
  for (const lib of libs) lib.A?.dispose();

  if (args.has('--no-long')) return;
  // Long sequences: a fresh module instance, so that its memory growth is this run's alone.
  console.log(`\n# long sequences, attention-wasm alone, ${machine()}, load average ${loadAverage()}`);
  console.log('\n| S (1 head, d 64) | time (s) | GFLOP/s | wasm memory growth (MiB) |\n| --- | --- | --- | --- |');
  const fresh = attentionWasm(await init(), 'attention-wasm');
  const warm = fresh.prepare(
    { H: 1, S: 256, causal: false },
    randomData(256 * D, 7),
    randomData(256 * D, 8),
    randomData(256 * D, 9),
  );
  for (let i = 0, t0 = performance.now(); i < 20 || performance.now() - t0 < 300; ++i) warm();
  const memory = () => fresh.A.raw.HEAP8.buffer.byteLength;
  for (const S of quick ? LONG.slice(0, 1) : LONG) {
    const n = S * D;
    const run = fresh.prepare({ H: 1, S, causal: false }, randomData(n, 4), randomData(n, 5), randomData(n, 6));
    const before = memory();
    const t0 = performance.now();
    run();
    const ms = performance.now() - t0;
    const growth = (memory() - before) / 2 ** 20;
    console.log(
      `| ${S} | ${fmt(ms / 1000, 2)} | ${fmt((4 * S * S * D) / (ms * 1e6))} | ${fmt(growth, 1)} (total ${fmt(memory() / 2 ** 20, 0)}) |`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// MultiheadAttention: the front door against its parts.

/** Median ms of each run in `runs` (name -> () => ms or undefined), alternating after a warm-up. */
async function alternate(runs, seconds) {
  const names = Object.keys(runs);
  for (const name of names)
    for (let i = 0, t0 = performance.now(); i < 3 || performance.now() - t0 < 300; ++i) runs[name]();
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let t0 = performance.now(); performance.now() - t0 < seconds * 1000 || times[names[0]].length < 10;) {
    for (const name of names) {
      await new Promise((resolve) => setImmediate(resolve));
      const start = performance.now();
      runs[name]();
      times[name].push(performance.now() - start);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(times[n])]));
}

async function benchMha() {
  const E = 768,
    H = 12,
    L = 512,
    Dh = E / H;
  console.log(`\n# MultiheadAttention.forward, embedDim ${E}, ${H} heads, L = S = ${L}, batch 1, needWeights false`);
  console.log(`# ${machineLine()}`);
  const x = { data: randomData(L * E, 31), shape: [1, L, E] };
  const heads = () => ({ data: randomData(H * L * Dh, 32), shape: [1, H, L, Dh] });
  const module = (A) => {
    A.manualSeed(5);
    const m = new A.MultiheadAttention({ embedDim: E, numHeads: H, batchFirst: true });
    m.inProjBias = { data: randomData(3 * E, 33), shape: [3 * E] };
    m.outProjBias = { data: randomData(E, 34), shape: [E] };
    return m;
  };
  const one = await init();
  const m1 = module(one);
  // its parts, on the same weights: x Wq^T + bq, x Wk^T + bk, x Wv^T + bv; SDPA; o Wo^T + bo
  const w = (i) => ({ data: m1.inProjWeight.data.subarray(i * E * E, (i + 1) * E * E), shape: [E, E] });
  const b = (i) => ({ data: m1.inProjBias.data.subarray(i * E, (i + 1) * E), shape: [E] });
  const [q, k, v] = [heads(), heads(), heads()];
  const parts = { projections: [], sdpa: [], out: [] };
  const runs = {
    'MultiheadAttention.forward, 1 thread': () => m1.forward(x, x, x, { needWeights: false }),
    'its parts, 1 thread': () => {
      let t = performance.now();
      for (let i = 0; i < 3; ++i) one.linear(x, w(i), b(i));
      parts.projections.push(performance.now() - t);
      t = performance.now();
      const o = one.scaledDotProductAttention(q, k, v).output;
      parts.sdpa.push(performance.now() - t);
      t = performance.now();
      one.linear({ data: o.data, shape: [1, L, E] }, m1.outProjWeight, m1.outProjBias);
      parts.out.push(performance.now() - t);
    },
  };
  let threaded = null;
  if (THREADS > 1) {
    threaded = await init({ threads: THREADS });
    const mt = module(threaded);
    runs[`MultiheadAttention.forward, ${threaded.threads} threads`] = () => mt.forward(x, x, x, { needWeights: false });
  }
  const ms = await alternate(runs, quick ? 1 : 6);
  const [front, split, multi] = Object.values(ms);
  const rows = [
    ['MultiheadAttention.forward, 1 thread', `${fmt(front, 2)} ms`],
    [
      'its parts, 1 thread: 3 projections + SDPA + out projection',
      `${fmt(split, 2)} ms (${fmt(median(parts.projections), 2)} + ${fmt(median(parts.sdpa), 2)} + ${fmt(median(parts.out), 2)})`,
    ],
    ['MultiheadAttention.forward / its parts', `${fmt(front / split, 3)}x (target <= 1.15)`],
  ];
  if (multi !== undefined) {
    rows.push(
      [`MultiheadAttention.forward, ${threaded.threads} threads`, `${fmt(multi, 2)} ms`],
      [`${threaded.threads} threads speed-up`, `${fmt(front / multi, 2)}x (target >= 1.6)`],
    );
  }
  console.log('\n| MultiheadAttention (768, 12 heads, L = S = 512, batch 1, no weights) | |\n| --- | --- |');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  threaded?.dispose();
}

if (!args.has('--only=encoder') && !args.has('--only=mha') && !args.has('--only=decoder')) await main();
if (!args.has('--only=encoder') && !args.has('--only=decoder') && !args.has('--no-mha')) await benchMha();
const only = ['--only=encoder', '--only=mha', '--only=decoder'].find((a) => args.has(a)); // --only=ours is the peers'
if (!args.has('--no-encoder') && (!only || only === '--only=encoder'))
  await benchEncoder({ quick, threads: Math.min(THREADS, 2) });
if (!args.has('--no-decoder') && (!only || only === '--only=decoder'))
  await benchDecoder({ quick, threads: Math.min(THREADS, 2) });
process.exit(0); // onnxruntime-web may keep handles open
