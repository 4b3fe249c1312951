// npm run bench, whole-encoder rows (also on its own: node scripts/bench-encoder.mjs [--quick] [--threads=1]
// [--q8]).
//
// A DistilBERT-base-shaped encoder (6 layers, dim 768, 12 heads, FFN 3072, vocab 30522, 512
// positions; random weights, F32) is written as a Hugging Face folder (config.json +
// model.safetensors, ~266 MB) into a temp dir, then:
//   1. load: A.loadPretrained(folder) in a fresh Node process (scripts/bench-encoder.mjs
//      --load-child DIR [q8]): wall time, and the process's peak resident memory (VmHWM) against
//      its resident memory before the load and against the file's size; in float32 and in q8
//      (dtype 'q8': the linear layers quantized to int8 as they stream in);
//   2. forward, batch 1, 128 and 512 tokens: attention-wasm on 1 thread in its relaxed-SIMD build
//      (where the engine runs it) and its SIMD128 build, on 2 threads (the threaded build init()
//      picks), and onnxruntime-web (wasm, 1 thread) running the same weights as an
//      ONNX graph (scripts/encoder-onnx.mjs, modeling_distilbert.py's steps), in float32 and in
//      the int8 form onnxruntime's quantize_dynamic writes as transformers.js's convert.py calls
//      it for a DistilBERT (q8, what transformers.js runs by default: per output channel, 7-bit
//      weights), and attention-wasm's own q8 models (dtype 'q8', 1 thread, both builds) on the same
//      weights, in this one process, taking turns call by call after warm-up calls; each reports
//      the median. A call includes copying the ids in and the last hidden state out. For each q8
//      run, its per-token cosine to attention-wasm's float32 output.
// --q8: only the q8 rows (no load rows, float32 only as the cosines' reference): onnxruntime-web's
// q8 graph and ours in both builds, taking turns, the best and the median of more calls; a few
// minutes for a before/after of the int8 path.
import { spawnSync } from 'node:child_process';
import {
  mkdtempSync,
  writeFileSync,
  rmSync,
  existsSync,
  statSync,
  openSync,
  writeSync,
  closeSync,
  readFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { init } from '../dist/node.js';
import { relaxedSimdSupported } from '../dist/builds.js';
import { DISTILBERT_BASE, encoderIds, randomTensors, safetensorsParts, tokenCosines } from './encoder-weights.mjs';
import { loadAverage, machine, machineLine } from './load-average.mjs';

const root = new URL('..', import.meta.url);
const moduleDir = (p) => fileURLToPath(new URL(`node_modules/${p}`, root));

export { DISTILBERT_BASE, randomTensors };

/** Writes config.json and model.safetensors (F32, tensors in insertion order) into dir. */
export function writeFolder(dir, config, tensors) {
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  const fd = openSync(join(dir, 'model.safetensors'), 'w');
  for (const part of safetensorsParts(tensors)) writeSync(fd, part);
  closeSync(fd);
  return statSync(join(dir, 'model.safetensors')).size;
}

/**
 * This process's peak resident memory in bytes: Linux's VmHWM, the high-water mark of this
 * process's own memory. Not getrusage's maxRSS: Linux carries a parent's peak over into a child
 * through fork and exec, and the benchmark's parent holds the random weights (~266 MB) when it
 * starts the load's child, whose maxRSS then reads ~260 MiB whatever the load does. Elsewhere
 * (no /proc) maxRSS.
 */
function peakResidentBytes() {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (kb) return Number(kb[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** In a fresh process: the load's time and the peak resident memory. Prints one JSON line. */
async function loadChild(dir, dtype = 'fp32') {
  const A = await init();
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  const model = await A.loadPretrained(dir, { dtype });
  const ms = performance.now() - t0;
  const after = process.memoryUsage().rss;
  const peak = peakResidentBytes();
  console.log(
    JSON.stringify({ ms, before, after, peak, resident: model.residentBytes, heap: A.memoryStats().heapBytes }),
  );
  model.dispose();
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const MiB = (b) => (b / 2 ** 20).toFixed(0);

/** The whole-encoder tables; returns their rows. */
export async function benchEncoder({ quick = false, threads = 2, q8Only = false } = {}) {
  const config = DISTILBERT_BASE;
  const dir = mkdtempSync(join(tmpdir(), 'aw-encoder-bench-'));
  try {
    const tensors = randomTensors(config);
    const fileBytes = writeFolder(dir, config, tensors);

    // 1. load time and peak memory, in a fresh process, float32 and q8
    const loads = (q8Only ? [] : ['fp32', 'q8']).map((dtype) => {
      const child = spawnSync(
        process.execPath,
        ['--expose-gc', fileURLToPath(import.meta.url), '--load-child', dir, dtype],
        { encoding: 'utf8' },
      );
      if (child.status !== 0) throw new Error(`load child (${dtype}) failed: ${child.stderr}`);
      return { dtype, ...JSON.parse(child.stdout.trim().split('\n').at(-1)) };
    });
    console.log(
      '\n# whole encoder: DistilBERT-base shapes (6 layers, dim 768, 12 heads, FFN 3072, vocab 30522), random F32 weights',
    );
    console.log(`# ${machineLine()}`);
    console.log(
      '\n| model.safetensors | dtype | load time (s) | RSS before load (MiB) | peak RSS (MiB) | peak RSS / file | (peak - before) / file | weights resident (MiB) | resident / file |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const load of loads)
      console.log(
        `| ${MiB(fileBytes)} MiB | ${load.dtype} | ${(load.ms / 1000).toFixed(2)} | ${MiB(load.before)} | ${MiB(load.peak)} | ${(load.peak / fileBytes).toFixed(2)}x | ${((load.peak - load.before) / fileBytes).toFixed(2)}x | ${MiB(load.resident)} | ${(load.resident / fileBytes).toFixed(2)}x |`,
      );

    // 2. forward, alternating
    // ours on one thread in both SIMD flavours (relaxed first, where this engine runs it), then threaded
    const libs = [],
      q8Libs = [];
    for (const simd of relaxedSimdSupported() ? ['relaxed', 'simd128'] : ['simd128']) {
      const A = await init({ simd });
      libs.push({ name: `attention-wasm ${simd}`, model: await A.loadPretrained(dir) });
      q8Libs.push({ name: `attention-wasm ${simd} q8`, model: await A.loadPretrained(dir, { dtype: 'q8' }) });
    }
    if (libs.length === 1) console.log('# attention-wasm relaxed: this Node has no relaxed SIMD; left out');
    const single = libs.length; // the one-thread columns of ours
    if (q8Only) libs.splice(1); // the relaxed (or only) float32 model: the cosines' reference
    if (threads > 1 && !q8Only) {
      const many = await init({ threads });
      libs.push({ name: `attention-wasm ${many.threads} threads`, model: await many.loadPretrained(dir), A: many });
    }
    let ort = null;
    try {
      ort = await import('onnxruntime-web');
      ort.env.wasm.numThreads = 1;
      ort.env.wasm.simd = true;
      ort.env.wasm.proxy = false;
      ort.env.wasm.wasmPaths = moduleDir('onnxruntime-web/dist/');
      ort.env.logLevel = 'error';
    } catch (e) {
      console.log(`# onnxruntime-web could not be loaded (${e.message.split('\n')[0]}); continuing without it`);
    }
    let buildEncoderOnnx = null,
      TRANSFORMERS_JS_Q8 = null;
    if (ort && existsSync(new URL('encoder-onnx.mjs', import.meta.url))) {
      ({ buildEncoderOnnx, TRANSFORMERS_JS_Q8 } = await import('./encoder-onnx.mjs'));
    } else if (ort) {
      console.log('# scripts/encoder-onnx.mjs (the ONNX graph of the encoder) is missing: no onnxruntime-web column');
    }
    const ortVersion = ort
      ? (await import('../node_modules/onnxruntime-web/package.json', { with: { type: 'json' } })).default.version
      : null;

    const rows = [];
    const header = [
      'tokens (batch 1)',
      ...libs.map((l) => `${l.name} ms`),
      ...(buildEncoderOnnx ? [`onnxruntime-web ${ortVersion} ms`, `onnxruntime-web ${ortVersion} q8 ms`] : []),
      ...q8Libs.map((l) => `${l.name} ms`),
      ...(single > 1 ? ['relaxed / simd128'] : []),
      ...(libs.length > single ? ['threads speed-up'] : []),
      ...(buildEncoderOnnx ? libs.slice(0, single).map((l) => `${l.name.split(' ')[1]} / onnxruntime-web`) : []),
      ...q8Libs.map((l) => `${l.name.split(' ')[1]} q8 / float32`),
      ...(buildEncoderOnnx ? q8Libs.map((l) => `${l.name.split(' ')[1]} q8 / onnxruntime-web q8`) : []),
    ];
    for (const L of [128, 512]) {
      const ids = encoderIds(L);
      const runs = libs.map(
        ({ model }) =>
          () =>
            model.forward(ids).lastHiddenState.data,
      );
      const sessions = [];
      if (buildEncoderOnnx) {
        for (const quantized of q8Only ? [true] : [false, true])
          sessions.push(
            await ort.InferenceSession.create(
              buildEncoderOnnx({ config, tensors, seqLength: L, quantized, ...(quantized ? TRANSFORMERS_JS_Q8 : {}) }),
              {
                executionProviders: ['wasm'],
                graphOptimizationLevel: 'all',
              },
            ),
          );
        const feeds = () => ({
          input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, L]),
          attention_mask: new ort.Tensor('float32', new Float32Array(L).fill(1), [1, L]),
        });
        for (const session of sessions)
          runs.push(async () => {
            const { last_hidden_state: out } = await session.run(feeds());
            const data = out.data;
            out.dispose?.();
            return data;
          });
      }
      const q8Runs = new Map(); // run -> its name: onnxruntime-web's q8 graph, ours
      if (sessions.length) q8Runs.set(runs.length - 1, 'onnxruntime-web q8');
      const q8First = runs.length; // ours in q8, one thread, each build
      for (const { name, model } of q8Libs) {
        q8Runs.set(runs.length, name);
        runs.push(() => model.forward(ids).lastHiddenState.data);
      }
      // the same numbers everywhere (float32), and each q8 run's per-token cosine
      const reference = await runs[0]();
      for (let i = 1; i < runs.length; i++) {
        const got = await runs[i]();
        if (q8Runs.has(i)) {
          const cosines = tokenCosines(got, reference, config.dim);
          console.log(
            `# ${q8Runs.get(i)} vs attention-wasm float32, ${L} tokens: per-token cosine min ` +
              `${Math.min(...cosines).toFixed(6)}, mean ${(cosines.reduce((x, y) => x + y, 0) / L).toFixed(6)}`,
          );
          continue;
        }
        let worst = 0;
        for (let j = 0; j < got.length; j++)
          worst = Math.max(worst, Math.abs(got[j] - reference[j]) / (1 + Math.abs(reference[j])));
        if (worst > 1e-4) console.log(`# warning: run ${i} differs from attention-wasm by ${worst.toExponential(2)}`);
      }
      if (q8Only) {
        await benchQ8(L, runs.slice(libs.length), [...q8Runs.values()], quick);
        for (const session of sessions) await session.release?.();
        continue;
      }
      // warm-up: at least 3 calls and 1 s each (V8 tiers wasm up between calls, not within one)
      for (const run of runs)
        for (let n = 0, t0 = performance.now(); n < 3 || performance.now() - t0 < (quick ? 300 : 1000); n++)
          await run();
      const rounds = quick ? 5 : L === 128 ? 25 : 10;
      const times = runs.map(() => []);
      for (let r = 0; r < rounds; r++) {
        for (let i = 0; i < runs.length; i++) {
          await new Promise((resolve) => setImmediate(resolve));
          const t0 = performance.now();
          await runs[i]();
          times[i].push(performance.now() - t0);
        }
      }
      const ms = times.map(median);
      const peer = sessions.length ? ms[libs.length] : NaN; // onnxruntime-web float32
      const peerQ8 = sessions.length ? ms[libs.length + 1] : NaN; // onnxruntime-web q8
      const q8Ms = ms.slice(q8First);
      const row = [
        String(L),
        ...ms.map((t) => t.toFixed(1)),
        ...(single > 1 ? [`${(ms[1] / ms[0]).toFixed(2)}x`] : []),
        ...(libs.length > single ? [`${(ms[0] / ms[single]).toFixed(2)}x`] : []),
        ...(buildEncoderOnnx ? ms.slice(0, single).map((t) => `${(peer / t).toFixed(2)}x`) : []),
        ...q8Ms.map((t, i) => `${(ms[i] / t).toFixed(2)}x`),
        ...(buildEncoderOnnx ? q8Ms.map((t) => `${(peerQ8 / t).toFixed(2)}x`) : []),
      ];
      rows.push(row);
      console.log(`# ${row.join(' | ')}   [${rounds} calls each]`);
      for (const session of sessions) await session.release?.();
    }
    if (q8Only) {
      console.log(`# ${machine()}, load average after: ${loadAverage()}`);
      for (const l of [...libs, ...q8Libs]) l.model.dispose();
      return rows;
    }
    console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => ' --- ').join('|')}|`);
    for (const r of rows) console.log(`| ${r.join(' | ')} |`);
    console.log(`# ${machine()}, load average after: ${loadAverage()}`);
    for (const l of [...libs, ...q8Libs]) {
      l.model.dispose();
      l.A?.dispose();
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** --q8: the q8 runs (onnxruntime-web's first) taking turns; each one's median and best, and ours / its. */
async function benchQ8(L, runs, names, quick) {
  for (const run of runs)
    for (let n = 0, t0 = performance.now(); n < 3 || performance.now() - t0 < 1000; n++) await run();
  const rounds = quick ? 7 : L === 128 ? 31 : 11;
  const times = runs.map(() => []);
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < runs.length; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      const t0 = performance.now();
      await runs[i]();
      times[i].push(performance.now() - t0);
    }
  const ms = times.map(median),
    best = times.map((t) => Math.min(...t));
  const line = names.map((name, i) => `${name} ${ms[i].toFixed(1)} (best ${best[i].toFixed(1)})`);
  const ratios = names.slice(1).map((name, i) => `${name} ${(ms[0] / ms[i + 1]).toFixed(2)}x`);
  console.log(
    `# q8, ${L} tokens, ms median of ${rounds}: ${line.join(', ')}; onnxruntime-web q8 / ours: ${ratios.join(', ')}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  if (args[0] === '--load-child') {
    await loadChild(args[1], args[2]);
  } else {
    const threads = Number(args.find((a) => a.startsWith('--threads='))?.slice('--threads='.length) ?? 2);
    await benchEncoder({ quick: args.includes('--quick'), threads, q8Only: args.includes('--q8') });
    process.exit(0); // onnxruntime-web may keep handles open
  }
}
