// npm run bench: scaled dot-product attention forward, float32, batch 1, head dim 64, one thread,
// attention-wasm (dist/, build it first) against onnxruntime-web (wasm backend) and the
// TensorFlow.js wasm backend, all in this one Node process on the same inputs.
//
// Method: every library gets warm-up calls first (V8 does not on-stack-replace wasm: a first
// long call stays in baseline code), at least 0.3 s per shape, then the libraries take turns call
// by call (whatever one left queued runs before the next is timed) for ~6 s per shape (at least
// 10 rounds), and each reports the median of its calls. GFLOP/s = 4 * S * S * D * H / time
// (causal counted the same).
// Every timed call includes what a user pays: copying the inputs in and the output out.
// Then a long-sequence table for attention-wasm alone (1 head): time and the growth of its
// wasm memory in a fresh module instance.
//
// With threads (default: os.availableParallelism()), attention-wasm's threaded build
// (init({threads})) takes its turn as one more library, and the table gets its speed-up over the
// single-thread build; --threads=1 leaves it out.
//
// Then the whole-encoder rows (scripts/bench-encoder.mjs): a DistilBERT-base-shaped model's load
// time and peak memory, and its forward at 128 and 512 tokens against onnxruntime-web.
//
// Usage: node scripts/bench.mjs [--quick] [--no-long] [--only=ours] [--threads=N] [--no-encoder | --only=encoder]
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { readFile } from 'node:fs/promises';
import { init } from '../dist/node.js';
import { benchEncoder } from './bench-encoder.mjs';

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const onlyOurs = args.has('--only=ours');
const threadsArg = [...args].find((a) => a.startsWith('--threads='));
const THREADS = threadsArg ? Number(threadsArg.slice('--threads='.length)) : os.availableParallelism();
const root = new URL('..', import.meta.url);
const moduleDir = (p) => fileURLToPath(new URL(`node_modules/${p}`, root));

const D = 64;
const SHAPES = [
  { H: 1, S: 128, causal: false },
  { H: 8, S: 128, causal: false },
  { H: 12, S: 512, causal: false },
  { H: 8, S: 2048, causal: false },
  { H: 8, S: 512, causal: false },
  { H: 8, S: 512, causal: true },
];
const LONG = [4096, 16384, 32768];

// ---------------------------------------------------------------------------------------------
// Inputs: the same float32 data for everyone, from a small deterministic generator.
function randomData(n, seed) {
  const a = new Float32Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; ++i) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;  // xorshift32
    a[i] = (x / 4294967296) * 2 - 1;
  }
  return a;
}

// (S, S) additive causal mask: 0 on and below the diagonal, -inf above.
function causalMask(S) {
  const m = new Float32Array(S * S);
  for (let i = 0; i < S; ++i) m.fill(-Infinity, i * S + i + 1, (i + 1) * S);
  return m;
}

async function packageVersion(name) {
  return JSON.parse(await readFile(new URL(`node_modules/${name}/package.json`, root), 'utf8')).version;
}

// ---------------------------------------------------------------------------------------------
// Peers. Each returns {name, version, prepare(shape, q, k, v) -> async run() -> Float32Array}.

async function attentionWasm(threads = false) {
  const A = await init({ threads });
  return {
    name: threads ? `attention-wasm ${A.threads} threads` : 'attention-wasm',
    A,
    prepare({ H, S, causal }, q, k, v) {
      const shape = [1, H, S, D];
      const query = { data: q, shape }, key = { data: k, shape }, value = { data: v, shape };
      return () => A.scaledDotProductAttention(query, key, value, { isCausal: causal }).output.data;
    },
  };
}

// onnxruntime-web: a hand-written ONNX graph (protobuf bytes, below)
//   out = MatMul(Softmax(Mul(MatMul(q, Transpose(k)), scale) [+ mask]), v)
async function onnxruntimeWeb() {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmPaths = moduleDir('onnxruntime-web/dist/');
  ort.env.logLevel = 'error';
  const version = await packageVersion('onnxruntime-web');
  return {
    name: `onnxruntime-web ${version}`,
    async prepare({ H, S, causal }, q, k, v) {
      const session = await ort.InferenceSession.create(attentionOnnx(H, S, causal), {
        executionProviders: ['wasm'], graphOptimizationLevel: 'all',
      });
      const mask = causal ? new ort.Tensor('float32', causalMask(S), [S, S]) : null;
      const dims = [1, H, S, D];
      return async () => {
        const feeds = {
          q: new ort.Tensor('float32', q, dims), k: new ort.Tensor('float32', k, dims),
          v: new ort.Tensor('float32', v, dims),
        };
        if (mask) feeds.mask = mask;
        const { out } = await session.run(feeds);
        const data = out.data;
        out.dispose?.();
        return data;
      };
    },
  };
}

// TensorFlow.js, wasm backend, one thread: per head matMul(q, transpose(k)) * scale, softmax,
// matMul(., v). Per head on 2-D tensors with k transposed first: its batched 3-D matMul and its
// transposeB flag both take a path that was 10-20x slower here.
async function tensorflowWasm() {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(moduleDir('@tensorflow/tfjs-backend-wasm/dist/'));
  wasm.setThreadsCount?.(1);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  await tf.setBackend('wasm');
  await tf.ready();
  if (tf.getBackend() !== 'wasm') throw new Error(`tfjs picked the ${tf.getBackend()} backend, not wasm`);
  return {
    name: `tfjs-backend-wasm ${await packageVersion('@tensorflow/tfjs-backend-wasm')}`,
    prepare({ H, S, causal }, q, k, v) {
      const scale = tf.scalar(1 / Math.sqrt(D));
      const mask = causal ? tf.tensor2d(causalMask(S), [S, S]) : null;
      const plane = S * D;
      return () => {
        const out = new Float32Array(H * plane);
        for (let h = 0; h < H; ++h) {
          tf.tidy(() => {
            const head = (x) => tf.tensor2d(x.subarray(h * plane, (h + 1) * plane), [S, D]);
            let scores = tf.mul(tf.matMul(head(q), tf.transpose(head(k))), scale);
            if (mask) scores = tf.add(scores, mask);
            out.set(tf.matMul(tf.softmax(scores), head(v)).dataSync(), h * plane);
          });
        }
        return out;
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// A minimal protobuf writer for the ONNX model (onnx.proto3 field numbers).
const enc = new TextEncoder();
function varint(n) {
  const out = [];
  let x = BigInt.asUintN(64, BigInt(n));  // negative int64: ten bytes of two's complement
  do {
    let byte = Number(x & 0x7fn);
    x >>= 7n;
    if (x) byte |= 0x80;
    out.push(byte);
  } while (x);
  return out;
}
const field = (num, wire) => varint((num << 3) | wire);
const pbInt = (num, n) => [...field(num, 0), ...varint(n)];
const pbBytes = (num, bytes) => [...field(num, 2), ...varint(bytes.length), ...bytes];
const pbStr = (num, s) => pbBytes(num, [...enc.encode(s)]);
const pbMsg = (num, parts) => pbBytes(num, parts.flat());

// NodeProto: input 1, output 2, name 3, op_type 4, attribute 5 (AttributeProto: name 1, i 3, ints 8, type 20)
function node(op, inputs, outputs, attrs = []) {
  return pbMsg(1, [...inputs.map((s) => pbStr(1, s)), ...outputs.map((s) => pbStr(2, s)),
    pbStr(3, `${op}_${outputs[0]}`), pbStr(4, op), ...attrs]);
}
const attrInt = (name, i) => pbMsg(5, [pbStr(1, name), pbInt(3, i), pbInt(20, 2)]);
const attrInts = (name, ints) => pbMsg(5, [pbStr(1, name), ...ints.map((i) => pbInt(8, i)), pbInt(20, 7)]);
// ValueInfoProto: name 1, type 2 (TypeProto.tensor_type 1: elem_type 1, shape 2: dim 1: dim_value 1)
const valueInfo = (num, name, dims) => pbMsg(num, [pbStr(1, name),
  pbMsg(2, [pbMsg(1, [pbInt(1, 1), pbMsg(2, dims.map((d) => pbMsg(1, [pbInt(1, d)])))])])]);
// TensorProto: dims 1, data_type 2, name 8, raw_data 9
const scalarInitializer = (name, value) => pbMsg(5, [pbInt(2, 1), pbStr(8, name),
  pbBytes(9, [...new Uint8Array(new Float32Array([value]).buffer)])]);

function attentionOnnx(H, S, causal) {
  const dims = [1, H, S, D];
  const graph = [
    node('Transpose', ['k'], ['kt'], [attrInts('perm', [0, 1, 3, 2])]),
    node('MatMul', ['q', 'kt'], ['scores']),
    node('Mul', ['scores', 'scale'], ['scaled']),
    ...(causal ? [node('Add', ['scaled', 'mask'], ['masked'])] : []),
    node('Softmax', [causal ? 'masked' : 'scaled'], ['weights'], [attrInt('axis', -1)]),
    node('MatMul', ['weights', 'v'], ['out']),
    pbStr(2, 'attention'),
    scalarInitializer('scale', 1 / Math.sqrt(D)),
    valueInfo(11, 'q', dims), valueInfo(11, 'k', dims), valueInfo(11, 'v', dims),
    ...(causal ? [valueInfo(11, 'mask', [S, S])] : []),
    valueInfo(12, 'out', [1, H, S, D]),
  ];
  // ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8 (domain 1, version 2)
  return new Uint8Array([...pbInt(1, 8), ...pbStr(2, 'attention-wasm bench'), ...pbMsg(7, graph),
    ...pbMsg(8, [pbStr(1, ''), pbInt(2, 17)])]);
}

// ---------------------------------------------------------------------------------------------
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const gflops = ({ H, S }, ms) => (4 * S * S * D * H) / (ms * 1e6);
const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

function maxRelativeDifference(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; ++i) worst = Math.max(worst, Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i])));
  return worst;
}

async function main() {
  const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`# attention forward, float32, batch 1, head dim ${D}, one thread${THREADS > 1 ? ` (and attention-wasm on ${THREADS})` : ''}`);
  console.log(`# node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, load average ${load}`);

  const libs = [await attentionWasm()];
  if (THREADS > 1) libs.push(await attentionWasm(THREADS));
  if (!onlyOurs) {
    for (const make of [onnxruntimeWeb, tensorflowWasm]) {
      try {
        libs.push(await make());
      } catch (e) {
        console.log(`# ${make.name}: could not be loaded (${e.message.split('\n')[0]}); continuing without it`);
      }
    }
  }

  // First touch: enough calls that V8 tiers the wasm up to optimised code (it cannot replace a
  // running call, so a first long call would stay in baseline code).
  {
    const n = 256 * D;
    const shape = { H: 1, S: 256, causal: false };
    for (const lib of libs) {
      const run = await lib.prepare(shape, randomData(n, 11), randomData(n, 12), randomData(n, 13));
      const t0 = performance.now();
      for (let i = 0; i < 20 || performance.now() - t0 < 300; ++i) await run();
    }
  }

  // the peers: compared with attention-wasm on one thread
  const peers = libs.map((l, i) => i).filter((i) => i > 0 && !libs[i].name.startsWith('attention-wasm'));
  const threadedIndex = libs.findIndex((l, i) => i > 0 && l.name.startsWith('attention-wasm'));
  const header = ['shape (H x S)', ...libs.map((l) => `${l.name} GFLOP/s (ms)`),
    ...(threadedIndex > 0 ? ['threads speed-up'] : []), ...peers.map((i) => `x vs ${libs[i].name.split(' ')[0]}`)];
  const rows = [];
  const results = {};
  for (const shape of SHAPES) {
    const { H, S, causal } = shape;
    const n = H * S * D;
    const q = randomData(n, 1 + S), k = randomData(n, 2 + S), v = randomData(n, 3 + S);
    const runs = [];
    for (const lib of libs) {
      try {
        runs.push(await lib.prepare(shape, q, k, v));
      } catch (e) {
        console.log(`# ${lib.name} ${H}x${S}: ${e.message.split('\n')[0]}`);
        runs.push(null);
      }
    }
    // check that everyone computes the same thing
    const reference = runs[0] && (await runs[0]());
    for (let i = 1; i < runs.length; ++i) {
      if (!runs[i]) continue;
      const diff = maxRelativeDifference(await runs[i](), reference);
      if (diff > 1e-4) console.log(`# warning: ${libs[i].name} differs from attention-wasm by ${diff.toExponential(2)}`);
    }
    const flops = 4 * S * S * D * H;
    // Warm-up per library and shape: at least 4 calls and 0.3 s (0.05 s with --quick), which
    // also estimates a call's time.
    const estimate = [];
    for (const run of runs) {
      if (!run) { estimate.push(0); continue; }
      let n = 0;
      const t0 = performance.now();
      for (; n < 4 || performance.now() - t0 < (quick ? 50 : 300); ++n) await run();
      estimate.push((performance.now() - t0) / n);
    }
    // Rounds: at least 10, else as many as fit in ~6 s (1 s with --quick) for all libraries
    // together, at most 1000. A few ms of small calls would be one moment of this shared VM;
    // seconds of them give a median that is the same from run to run.
    const round = estimate.reduce((a, b) => a + b, 0);
    const calls = Math.max(10, Math.min(1000, Math.floor((quick ? 1000 : 6000) / round)));
    const times = runs.map(() => []);
    for (let c = 0; c < calls; ++c) {
      for (let i = 0; i < runs.length; ++i) {  // take turns, call by call
        if (!runs[i]) continue;
        // Let whatever the previous library left queued (promise jobs, timers) run first, so
        // that it is not timed as part of this call.
        await new Promise((resolve) => setImmediate(resolve));
        const t0 = performance.now();
        await runs[i]();
        times[i].push(performance.now() - t0);
      }
    }
    const med = times.map((t) => (t.length ? median(t) : NaN));
    const rates = med.map((ms) => gflops(shape, ms));
    results[`${H}x${S}${causal ? ' causal' : ''}`] = { ms: med, gflops: rates };
    rows.push([`${H} x ${S}${causal ? ' causal' : ''}`,
      ...rates.map((r, i) => `${fmt(r)} (${fmt(med[i], 2)})`),
      ...(threadedIndex > 0 ? [`${fmt(rates[threadedIndex] / rates[0], 2)}x`] : []),
      ...peers.map((i) => `${fmt(rates[0] / rates[i], 2)}x`)]);
    console.log(`# ${rows.at(-1).join(' | ')}   [${calls} calls each]`);
  }

  console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => ' --- ').join('|')}|`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  const full = results['8x512'], causal = results['8x512 causal'];
  console.log(`\ncausal 8 x 512 speed-up over non-causal (attention-wasm): ${fmt(full.ms[0] / causal.ms[0], 2)}x`);

  if (args.has('--no-long')) return;
  // Long sequences: a fresh module instance, so that its memory growth is this run's alone.
  console.log('\n| S (1 head, d 64) | time (s) | GFLOP/s | wasm memory growth (MiB) |\n| --- | --- | --- | --- |');
  const fresh = await attentionWasm();
  const warm = fresh.prepare({ H: 1, S: 256, causal: false }, randomData(256 * D, 7), randomData(256 * D, 8), randomData(256 * D, 9));
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
    console.log(`| ${S} | ${fmt(ms / 1000, 2)} | ${fmt(gflops({ H: 1, S }, ms))} | ${fmt(growth, 1)} (total ${fmt(memory() / 2 ** 20, 0)}) |`);
  }
}

if (!args.has('--only=encoder')) await main();
if (!args.has('--no-encoder')) await benchEncoder({ quick, threads: Math.min(THREADS, 2) });
process.exit(0);  // onnxruntime-web may keep handles open
