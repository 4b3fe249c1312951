// The attention comparison of `npm run bench` (scripts/bench.mjs, Node) and `npm run bench:browser`
// (scripts/bench-browser.mjs, Chromium): the shapes, the peers and the alternating loop, written
// once for both. Nothing here touches Node's or the browser's own APIs: each caller hands in the
// libraries it loaded (attention-wasm's init, onnxruntime-web, TensorFlow.js) and a way to yield
// to its event loop.
//
// scaled dot-product attention forward, float32, batch 1, head dim 64, one thread.
// Method: every library gets warm-up calls first (V8 does not on-stack-replace wasm: a first
// long call stays in baseline code), at least 0.3 s per shape, then the libraries take turns call
// by call (whatever one left queued runs before the next is timed) for ~6 s per shape (at least
// 10 rounds), and each reports the median of its calls. GFLOP/s = 4 * S * S * D * H / time
// (causal counted the same). Every timed call includes what a user pays: copying the inputs in
// and the output out.
import { attrInt, attrInts, initializer, model, node, valueInfo } from './onnx.mjs';

export const D = 64;
export const SHAPES = [
  { H: 1, S: 128, causal: false },
  { H: 8, S: 128, causal: false },
  { H: 12, S: 512, causal: false },
  { H: 8, S: 2048, causal: false },
  { H: 8, S: 512, causal: false },
  { H: 8, S: 512, causal: true },
];
export const shapeName = ({ H, S, causal }) => `${H} x ${S}${causal ? ' causal' : ''}`;

// ---------------------------------------------------------------------------------------------
// Inputs: the same float32 data for everyone, from a small deterministic generator.
export function randomData(n, seed) {
  const a = new Float32Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; ++i) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0; // xorshift32
    a[i] = (x / 4294967296) * 2 - 1;
  }
  return a;
}

// (S, S) additive causal mask: 0 on and below the diagonal, -inf above.
export function causalMask(S) {
  const m = new Float32Array(S * S);
  for (let i = 0; i < S; ++i) m.fill(-Infinity, i * S + i + 1, (i + 1) * S);
  return m;
}

// ---------------------------------------------------------------------------------------------
// Peers. Each is {name, prepare(shape, q, k, v) -> (async) run() -> Float32Array}.

/** attention-wasm: `A` an initialised instance (init()), `name` its column. */
export function attentionWasm(A, name) {
  return {
    name,
    A,
    prepare({ H, S, causal }, q, k, v) {
      const shape = [1, H, S, D];
      const query = { data: q, shape },
        key = { data: k, shape },
        value = { data: v, shape };
      return () => A.scaledDotProductAttention(query, key, value, { isCausal: causal }).output.data;
    },
  };
}

/** The ONNX graph of onnxruntime-web's turn: out = MatMul(Softmax(Mul(MatMul(q, Transpose(k)), scale) [+ mask]), v). */
export function attentionOnnx(H, S, causal) {
  const dims = [1, H, S, D];
  return model('attention', [
    node('Transpose', ['k'], ['kt'], [attrInts('perm', [0, 1, 3, 2])]),
    node('MatMul', ['q', 'kt'], ['scores']),
    node('Mul', ['scores', 'scale'], ['scaled']),
    ...(causal ? [node('Add', ['scaled', 'mask'], ['masked'])] : []),
    node('Softmax', [causal ? 'masked' : 'scaled'], ['weights'], [attrInt('axis', -1)]),
    node('MatMul', ['weights', 'v'], ['out']),
    initializer('scale', [], new Float32Array([1 / Math.sqrt(D)])),
    valueInfo(11, 'q', dims),
    valueInfo(11, 'k', dims),
    valueInfo(11, 'v', dims),
    ...(causal ? [valueInfo(11, 'mask', [S, S])] : []),
    valueInfo(12, 'out', dims),
  ]);
}

/**
 * onnxruntime-web (wasm backend, one thread) running attentionOnnx: `ort` the loaded module,
 * `wasmPaths` where its .wasm files are served from.
 */
export function onnxruntimeWeb(ort, version, wasmPaths) {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmPaths = wasmPaths;
  ort.env.logLevel = 'error';
  return {
    name: `onnxruntime-web ${version}`,
    async prepare({ H, S, causal }, q, k, v) {
      const session = await ort.InferenceSession.create(attentionOnnx(H, S, causal), {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
      });
      const mask = causal ? new ort.Tensor('float32', causalMask(S), [S, S]) : null;
      const dims = [1, H, S, D];
      return async () => {
        const feeds = {
          q: new ort.Tensor('float32', q, dims),
          k: new ort.Tensor('float32', k, dims),
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

// TensorFlow.js, wasm backend (`tf` with the backend set and ready), one thread: per head
// matMul(q, transpose(k)) * scale, softmax, matMul(., v). Per head on 2-D tensors with k
// transposed first: its batched 3-D matMul and its transposeB flag both take a path that was
// 10-20x slower here.
export function tensorflowWasm(tf, version) {
  if (tf.getBackend() !== 'wasm') throw new Error(`tfjs picked the ${tf.getBackend()} backend, not wasm`);
  return {
    name: `tfjs-backend-wasm ${version}`,
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
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const gflops = ({ H, S }, ms) => (4 * S * S * D * H) / (ms * 1e6);
export const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

function maxRelativeDifference(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; ++i) worst = Math.max(worst, Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i])));
  return worst;
}

/**
 * The comparison: every library on every shape, alternating call by call.
 * @param {object[]} libs the peers; libs[0] is the one the checks and ratios refer to
 * @param {object} options
 *   ratios: [[i, j, label?], ...] ratio columns: the speed of libs[i] over libs[j]
 *   quick: short runs; log(line): progress; yieldTask(): resolves after a macrotask turn
 * @returns {{header: string[], rows: string[][], results: object}} the table and, per shape
 *   name, {ms, gflops} per library
 */
export async function compareAttention(libs, { ratios = [], quick = false, log = () => {}, yieldTask }) {
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

  const short = (name) => name.replace(/ [\d.]+$/, ''); // "onnxruntime-web 1.30.0" -> "onnxruntime-web"
  const header = [
    'shape (H x S)',
    ...libs.map((l) => `${l.name} GFLOP/s (ms)`),
    ...ratios.map(([i, j, label]) => label ?? `${short(libs[i].name)} / ${short(libs[j].name)}`),
  ];
  const rows = [];
  const results = {};
  for (const shape of SHAPES) {
    const { H, S } = shape;
    const n = H * S * D;
    const q = randomData(n, 1 + S),
      k = randomData(n, 2 + S),
      v = randomData(n, 3 + S);
    const runs = [];
    for (const lib of libs) {
      try {
        runs.push(await lib.prepare(shape, q, k, v));
      } catch (e) {
        log(`# ${lib.name} ${shapeName(shape)}: ${e.message.split('\n')[0]}`);
        runs.push(null);
      }
    }
    // check that everyone computes the same thing
    const reference = runs[0] && (await runs[0]());
    for (let i = 1; i < runs.length; ++i) {
      if (!runs[i]) continue;
      const diff = maxRelativeDifference(await runs[i](), reference);
      if (diff > 1e-4) log(`# warning: ${libs[i].name} differs from ${libs[0].name} by ${diff.toExponential(2)}`);
    }
    // Warm-up per library and shape: at least 4 calls and 0.3 s (0.05 s with quick), which
    // also estimates a call's time.
    const estimate = [];
    for (const run of runs) {
      if (!run) {
        estimate.push(0);
        continue;
      }
      let calls = 0;
      const t0 = performance.now();
      for (; calls < 4 || performance.now() - t0 < (quick ? 50 : 300); ++calls) await run();
      estimate.push((performance.now() - t0) / calls);
    }
    // Rounds: at least 10, else as many as fit in ~6 s (1 s with quick) for all libraries
    // together, at most 1000. A few ms of small calls would be one moment of this shared VM;
    // seconds of them give a median that is the same from run to run.
    const round = estimate.reduce((a, b) => a + b, 0);
    const calls = Math.max(10, Math.min(1000, Math.floor((quick ? 1000 : 6000) / round)));
    const times = runs.map(() => []);
    for (let c = 0; c < calls; ++c) {
      for (let i = 0; i < runs.length; ++i) {
        // take turns, call by call
        if (!runs[i]) continue;
        // Let whatever the previous library left queued (promise jobs, timers) run first, so
        // that it is not timed as part of this call.
        await yieldTask();
        const t0 = performance.now();
        await runs[i]();
        times[i].push(performance.now() - t0);
      }
    }
    const med = times.map((t) => (t.length ? median(t) : NaN));
    const rates = med.map((ms) => gflops(shape, ms));
    results[shapeName(shape)] = { ms: med, gflops: rates };
    rows.push([
      shapeName(shape),
      ...rates.map((r, i) => `${fmt(r)} (${fmt(med[i], 2)})`),
      ...ratios.map(([i, j]) => `${fmt(rates[i] / rates[j], 2)}x`),
    ]);
    log(`# ${rows.at(-1).join(' | ')}   [${calls} calls each]`);
  }
  return { header, rows, results };
}

/** A Markdown table. */
export const markdownTable = (header, rows) =>
  [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => ' --- ').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
