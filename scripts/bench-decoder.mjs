// npm run bench, decoder rows (also on its own: node scripts/bench-decoder.mjs [--quick]
// [--forms=fused,fused-q8,plain,plain-q8] [--dtypes=fp32,q8] [--threads=N]).
//
// A GPT-2-small-shaped causal LM (12 layers, n_embd 768, 12 heads, 1024 positions, vocab 50257,
// 124M parameters; random F32 weights) is written as a Hugging Face folder (config.json +
// model.safetensors in save_pretrained's layout, the names of scripts/make-fixtures.mjs's
// causalTensorSpecs) into a temp dir, and measured, batch 1, one process per thread count:
//   prefill   one forward over 128 tokens (empty past): the median ms;
//   decode    after that prompt, greedy steps of one token with the past fed back: the median
//             ms per token -> tokens/s;
//   bandwidth the wasm heap's read bandwidth in the same process, sampled every round: attention-wasm's
//             _readBandwidth binding (kernels/stream_read, four SIMD accumulators, a 256 MiB
//             buffer, beyond any last-level cache) -> GB/s; decode is reported as the bytes a
//             step must read (every weight once, wte twice over (tied lm_head) counted once
//             per use, and the keys/values cached) per second, as a fraction of it.
// The peer is onnxruntime-web (wasm) running the same weights as an ONNX decoder graph with past
// key/values (scripts/decoder-onnx.mjs), in its 'fused' form (contrib MultiHeadAttention,
// SkipLayerNormalization, FastGelu); --forms=fused,plain adds the 'plain' form, alternating with
// it (both sessions fit ORT's heap: 3.9 GB resident). Measured so, the two forms are within 1-2 %
// of each other (docs/performance.md), the fused one ahead; it is the default.
// int8: our rows load the same folder with { dtype: 'q8' } (--dtypes, default fp32,q8), and the
// peer's 'fused-q8' form (the default with 'fused') is the fused graph as transformers.js's q8
// files are made (quantize_dynamic, MatMulConstBOnly: every constant-weight MatMul incl. lm_head
// as DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul, int8 weights per tensor;
// scripts/decoder-onnx.mjs with quantized: true). A q8 decode step reads the int8 weights (one
// byte each, plus a float32 scale per output channel), the float32 norms and biases, wpe's row
// and the cache: its bandwidth fraction counts those bytes.
//
// attention-wasm's rows: ourLibrary() below loads the folder as a causal LM (forward(ids) ->
// { logits }, generate(ids, { maxNewTokens }), issue 19) and measures it, alternating with the
// peer after warm-up; the ratios (targets: decode >= 70 % of the read bandwidth on one thread;
// >= 1.5x onnxruntime-web's tokens/s and prefill) follow the rows (docs/causal-lm.md).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadAverage, machineLine } from './load-average.mjs';
import { causalTensorSpecs } from './make-fixtures.mjs';

const root = new URL('..', import.meta.url);
const moduleDir = (p) => fileURLToPath(new URL(`node_modules/${p}`, root));

export const GPT2_SMALL = {
  activation_function: 'gelu_new',
  architectures: ['GPT2LMHeadModel'],
  bos_token_id: 50256,
  eos_token_id: 50256,
  layer_norm_epsilon: 1e-5,
  model_type: 'gpt2',
  n_ctx: 1024,
  n_embd: 768,
  n_head: 12,
  n_inner: null,
  n_layer: 12,
  n_positions: 1024,
  vocab_size: 50257,
};

const PROMPT = 128;

/** GPT-2's tensors (save_pretrained's names), random: weights U(-0.05, 0.05), norms 1, biases 0.01. */
export function randomGpt2Tensors(config, seed = 1) {
  let x = seed >>> 0;
  const tensors = new Map();
  for (const [name, shape, kind] of causalTensorSpecs(config, { prefixed: true })) {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    if (kind === 'ln') data.fill(1);
    else if (kind === 'b' || kind === 'lnb') data.fill(0.01);
    else {
      for (let i = 0; i < n; i++) {
        x ^= x << 13;
        x >>>= 0;
        x ^= x >>> 17;
        x ^= x << 5;
        x >>>= 0; // xorshift32
        data[i] = 0.05 * ((x / 4294967296) * 2 - 1);
      }
    }
    tensors.set(name, { data, shape });
  }
  return tensors;
}

/**
 * The bytes one decode step reads at `T` cached positions: every weight (wpe: one row), the cache;
 * with `dtype` 'q8' the matrices (the Conv1D weights and wte, the tied head) one byte a value and
 * a float32 scale per output channel.
 */
function bytesPerToken(config, tensors, T, dtype = 'fp32') {
  let bytes = 0;
  for (const [name, t] of tensors) {
    if (name.endsWith('wpe.weight')) bytes += config.n_embd * 4;
    else if (dtype === 'q8' && t.shape.length === 2)
      bytes += t.data.length + 4 * (name.endsWith('wte.weight') ? t.shape[0] : t.shape[1]);
    else bytes += t.data.byteLength;
  }
  return bytes + config.n_layer * 2 * T * config.n_embd * 4;
}

/** A row's dtype from its name ('... q8' for the int8 rows). */
const dtypeOf = (name) => (name.endsWith(' q8') ? 'q8' : 'fp32');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const tick = () => new Promise((resolve) => setImmediate(resolve));

function promptIds(seed = 7) {
  let x = seed;
  return Array.from({ length: PROMPT }, () => {
    x = (x * 1103515245 + 12345) >>> 0;
    return x % 50000;
  });
}

function argmaxLast(logits, V) {
  const row = logits.subarray(logits.length - V);
  let best = 0;
  for (let i = 1; i < V; i++) if (row[i] > row[best]) best = i;
  return best;
}

/** onnxruntime-web on the decoder graph: { name, prefill(), decode(n) -> ms per step, release() }. */
export async function onnxruntimeDecoder(ort, config, tensors, form) {
  const { buildGpt2DecoderOnnx } = await import('./decoder-onnx.mjs');
  const quantized = form.endsWith('-q8');
  const graph = buildGpt2DecoderOnnx({ config, tensors, form: form.replace(/-q8$/, ''), quantized });
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(graph, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const createMs = performance.now() - t0;
  const { n_layer: layers, n_head: H, n_embd: D, vocab_size: V } = config;
  const ids = promptIds();
  const int64 = (values) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [1, values.length]);
  const emptyPast = () => {
    const feeds = {};
    for (let i = 0; i < layers; i++)
      for (const part of ['key', 'value'])
        feeds[`past_key_values.${i}.${part}`] = new ort.Tensor('float32', new Float32Array(0), [1, H, 0, D / H]);
    return feeds;
  };
  const dispose = (out, keep = []) => {
    for (const [k, v] of Object.entries(out)) if (!keep.includes(k)) v.dispose?.();
  };
  const prefill = async () => {
    const out = await session.run({
      input_ids: int64(ids),
      attention_mask: int64(ids.map(() => 1)),
      position_ids: int64(ids.map((_, i) => i)),
      ...emptyPast(),
    });
    return out;
  };
  return {
    name: `onnxruntime-web ${form.replace(/-q8$/, ' q8')}`,
    createMs,
    async prefill() {
      dispose(await prefill());
    },
    /** n greedy steps after the prompt: ms per step (each). */
    async decode(n) {
      let out = await prefill();
      let next = argmaxLast(out.logits.data, V);
      const ms = [];
      for (let s = 0; s < n; s++) {
        const T = PROMPT + s + 1;
        const feeds = {
          input_ids: int64([next]),
          attention_mask: int64(new Array(T).fill(1)),
          position_ids: int64([T - 1]),
        };
        for (let i = 0; i < layers; i++)
          for (const part of ['key', 'value']) feeds[`past_key_values.${i}.${part}`] = out[`present.${i}.${part}`];
        const t = performance.now();
        const step = await session.run(feeds);
        next = argmaxLast(step.logits.data, V);
        ms.push(performance.now() - t);
        dispose(out);
        out = step;
      }
      dispose(out);
      return ms;
    },
    release: () => session.release(),
  };
}

// ---------------------------------------------------------------------------------------------
// LIBRARY ROWS: attention-wasm's causal LM (issue 19). The adapter uses only the issue's API:
// lm.forward(ids) -> { logits }, and lm.generate(ids, { maxNewTokens }) as an async iterable of
// steps (eosTokenId null: random weights must not end it early). Returns null (and says why) if
// the folder does not load.
async function ourLibrary(A, dir, label, dtype = 'fp32') {
  let lm;
  try {
    lm = await A.loadPretrained(dir, { dtype });
  } catch (e) {
    console.log(
      `# ${label}: loadPretrained does not load this GPT-2 folder yet (${e.message.split('\n')[0]}); its rows are left out`,
    );
    return null;
  }
  if (typeof lm.generate !== 'function') {
    console.log(`# ${label}: the loaded model has no generate(); its rows are left out`);
    lm.dispose?.();
    return null;
  }
  const ids = promptIds();
  return {
    name: label,
    async prefill() {
      lm.forward([ids]);
    },
    async decode(n) {
      const times = [];
      let last = null;
      for await (const _ of lm.generate([ids], { maxNewTokens: n + 1, eosTokenId: null })) {
        const now = performance.now();
        if (last !== null) times.push(now - last); // the first step is the prompt's forward
        last = now;
      }
      return times;
    },
    release: () => lm.dispose?.(),
  };
}
// ---------------------------------------------------------------------------------------------

/** Streaming reads of `mib` MiB in attention-wasm's heap: GB/s of each of `passes` passes. */
function readBandwidth(A, mib = 256, passes = 5) {
  const r = A.raw._readBandwidth(mib, passes);
  if (r.error) throw new Error(`_readBandwidth: ${r.error}`);
  return r.ms.map((ms) => r.bytes / (ms * 1e6));
}

/**
 * Prefill and decode of each runner, alternating after warm-up, with the read bandwidth sampled
 * between them each round (`bandwidth()` -> GB/s samples): [{ name, prefillMs, decodeMs }] and
 * the bandwidth samples' median.
 */
export async function measure(runners, { quick, bandwidth = null }) {
  for (const r of runners) {
    await r.prefill(); // warm-up: V8 tiers wasm up between calls
    await r.decode(3);
  }
  const prefill = runners.map(() => []),
    decode = runners.map(() => []),
    gbs = [];
  for (let round = 0; round < (quick ? 2 : 3); round++) {
    if (bandwidth) gbs.push(...bandwidth());
    for (const [i, r] of runners.entries()) {
      await tick();
      const t = performance.now();
      await r.prefill();
      prefill[i].push(performance.now() - t);
    }
    for (const [i, r] of runners.entries()) {
      await tick();
      decode[i].push(...(await r.decode(quick ? 6 : 12)));
    }
  }
  if (bandwidth) gbs.push(...bandwidth());
  const rows = runners.map((r, i) => ({ name: r.name, prefillMs: median(prefill[i]), decodeMs: median(decode[i]) }));
  return { rows, bandwidth: gbs.length ? median(gbs) : NaN };
}

/** One thread count in this process; returns the table's rows. */
async function benchThreads({ threads, forms, dtypes, quick, dir, config, tensors }) {
  const { init } = await import('../dist/node.js');
  const A = threads > 1 ? await init({ threads }) : await init();
  let rows = [];
  let ort = null;
  try {
    ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = threads;
    ort.env.wasm.proxy = false;
    ort.env.wasm.wasmPaths = moduleDir('onnxruntime-web/dist/');
    ort.env.logLevel = 'error';
  } catch (e) {
    console.log(`# onnxruntime-web could not be loaded (${e.message.split('\n')[0]}); continuing without it`);
  }
  const runners = [];
  for (const dtype of dtypes) {
    const label = `attention-wasm ${A.buildInfo().simd}${threads > 1 ? ` ${A.threads} threads` : ''}`;
    const ours = await ourLibrary(A, dir, dtype === 'fp32' ? label : `${label} ${dtype}`, dtype);
    if (ours) runners.push(ours);
  }
  for (const form of ort ? forms : []) {
    const peer = await onnxruntimeDecoder(ort, config, tensors, form);
    console.log(`# ${peer.name} (${threads} thread(s)): session created in ${(peer.createMs / 1000).toFixed(1)} s`);
    runners.push(peer);
  }
  let gbs = NaN;
  if (runners.length) ({ rows, bandwidth: gbs } = await measure(runners, { quick, bandwidth: () => readBandwidth(A) }));
  for (const r of runners) await r.release();
  A.dispose();
  return rows.map((r) => ({
    ...r,
    threads,
    tokensPerSecond: 1000 / r.decodeMs,
    bandwidth: gbs,
    fraction: bytesPerToken(config, tensors, PROMPT + 6, dtypeOf(r.name)) / (r.decodeMs * 1e6) / gbs,
  }));
}

function printTable(rows, config, tensors) {
  const MB = (b) => (b / 1e6).toFixed(0);
  console.log(
    `\n# GPT-2 small shapes (${config.n_layer} layers, ${config.n_embd}, ${config.n_head} heads, vocab ${config.vocab_size}), random F32 weights, batch 1; prefill ${PROMPT} tokens; decode after it; a step reads ${MB(bytesPerToken(config, tensors, PROMPT + 6))} MB (q8: ${MB(bytesPerToken(config, tensors, PROMPT + 6, 'q8'))} MB)`,
  );
  console.log(
    '\n| library | threads | prefill 128 (ms) | decode (ms / token) | tokens/s | heap read bandwidth (GB/s) | decode bytes/s / bandwidth |\n| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const r of rows)
    console.log(
      `| ${r.name} | ${r.threads} | ${r.prefillMs.toFixed(0)} | ${r.decodeMs.toFixed(1)} | ${r.tokensPerSecond.toFixed(2)} | ${r.bandwidth.toFixed(1)} | ${(100 * r.fraction).toFixed(0)} % |`,
    );
  for (const threads of new Set(rows.map((r) => r.threads))) {
    const at = rows.filter((r) => r.threads === threads);
    const ourRows = at.filter((r) => r.name.startsWith('attention-wasm'));
    for (const ours of ourRows)
      for (const peer of at.filter((r) => r.name.startsWith('onnxruntime'))) {
        // f32 against the peer's f32 graphs; q8 against both (the int8 graph and the fastest float one)
        if (dtypeOf(ours.name) === 'fp32' && dtypeOf(peer.name) === 'q8') continue;
        console.log(
          `# ${threads} thread(s): ${ours.name} / ${peer.name}: decode ${(ours.tokensPerSecond / peer.tokensPerSecond).toFixed(2)}x tokens/s (target >= 1.5), prefill ${(peer.prefillMs / ours.prefillMs).toFixed(2)}x (target >= 1.5); decode at ${(100 * ours.fraction).toFixed(0)} % of the read bandwidth (target >= 70 % on one thread)`,
        );
      }
    if (!ourRows.length)
      console.log(
        `# ${threads} thread(s): attention-wasm's rows and the ratios appear once loadPretrained loads GPT-2`,
      );
  }
}

/** The decoder tables: 1 thread here, `threads` (> 1) in a child process. */
export async function benchDecoder({
  quick = false,
  threads = 2,
  forms = ['fused', 'fused-q8'],
  dtypes = ['fp32', 'q8'],
} = {}) {
  const config = GPT2_SMALL;
  const dir = mkdtempSync(join(os.tmpdir(), 'aw-decoder-bench-'));
  try {
    const tensors = randomGpt2Tensors(config);
    const { writeFolder } = await import('./bench-encoder.mjs'); // F32 safetensors, the encoder bench's writer
    writeFolder(dir, config, tensors);
    writeFileSync(
      join(dir, 'generation_config.json'),
      JSON.stringify({ bos_token_id: 50256, eos_token_id: 50256, _from_model_config: true }),
    );
    console.log(`\n# decoder: ${machineLine()}`);
    const rows = await benchThreads({ threads: 1, forms, dtypes, quick, dir, config, tensors });
    if (threads > 1) {
      const child = spawnSync(
        process.execPath,
        [
          ...process.execArgv,
          fileURLToPath(import.meta.url),
          '--child',
          dir,
          `--threads=${threads}`,
          `--forms=${forms.join(',')}`,
          `--dtypes=${dtypes.join(',')}`,
          ...(quick ? ['--quick'] : []),
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 },
      );
      const lines = child.stdout.trim().split('\n');
      for (const line of lines) if (line.startsWith('#')) console.log(line);
      const last = lines.at(-1) ?? '';
      if (child.status === 0 && last.startsWith('[')) rows.push(...JSON.parse(last));
      else console.log(`# ${threads} threads: the child process failed (${child.status}): ${child.stdout.slice(-500)}`);
    }
    printTable(rows, config, tensors);
    console.log(`# load average after: ${loadAverage()}`);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const value = (name, fallback) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
  const forms = value('forms', 'fused,fused-q8').split(',');
  const dtypes = value('dtypes', 'fp32,q8').split(',');
  const quick = args.includes('--quick');
  if (args[0] === '--child') {
    const config = GPT2_SMALL;
    const rows = await benchThreads({
      threads: Number(value('threads', 2)),
      forms,
      dtypes,
      quick,
      dir: args[1],
      config,
      tensors: randomGpt2Tensors(config),
    });
    console.log(JSON.stringify(rows));
  } else {
    await benchDecoder({
      quick,
      forms,
      dtypes,
      threads: Number(value('threads', Math.min(os.availableParallelism(), 2))),
    });
  }
  process.exit(0); // onnxruntime-web may keep handles open
}
