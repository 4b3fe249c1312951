// The encoder rows of `npm run bench:browser`, the page's side: scripts/bench-encoder.mjs's forward
// table in Chromium. A DistilBERT-base-shaped encoder with random F32 weights
// (scripts/encoder-weights.mjs) is made in the page, handed to attention-wasm's relaxed-SIMD and
// SIMD128 builds as an in-memory { 'config.json', 'model.safetensors' } folder, in float32 and in
// q8 (dtype 'q8': int8 linear layers, quantized as the file streams in), and to onnxruntime-web
// (wasm, 1 thread) as the same weights' ONNX graph (scripts/encoder-onnx.mjs), in float32 and in
// the int8 form onnxruntime's quantize_dynamic writes (q8, what transformers.js runs by default);
// forward at 128 and 512 tokens, batch 1, one thread each, taking turns call by call after
// warm-up calls, median ms. A call includes copying the ids in and the last hidden state out.
// Each q8 run's per-token cosine to attention-wasm's float32 output is logged. Other builds of the
// package (`also`: their init) add their relaxed (or only) build's float32 and q8 models, each
// with its speed-up over ours in the same build and dtype.
import { init } from '/dist/index.js';
import { relaxedSimdSupported } from '/dist/builds.js';
import { DISTILBERT_BASE, encoderIds, randomTensors, safetensorsParts, tokenCosines } from '../encoder-weights.mjs';
import { buildEncoderOnnx, TRANSFORMERS_JS_Q8 } from '../encoder-onnx.mjs';
import { median } from '../bench-attention.mjs';

/**
 * @param {{ ort: object, ortVersion: string, quick: boolean, log: (line: string) => void, yieldTask: () => Promise<void>,
 *   also?: { label: string, init: Function }[] }} options
 * @returns {Promise<{ header: string[], rows: string[][] }>}
 */
export async function benchEncoder({ ort, ortVersion, quick, log, yieldTask, also = [] }) {
  const config = DISTILBERT_BASE;
  const tensors = randomTensors(config);
  // the file as bytes in memory (a 266 MB Blob made of parts failed to read back in headless Chromium)
  const parts = safetensorsParts(tensors);
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
  const files = () => ({ 'config.json': new TextEncoder().encode(JSON.stringify(config)), 'model.safetensors': bytes });
  const libs = [],
    q8Libs = [];
  for (const simd of relaxedSimdSupported() ? ['relaxed', 'simd128'] : ['simd128']) {
    const A = await init({ simd });
    libs.push({ name: `attention-wasm ${simd}`, model: await A.loadPretrained(files()) });
    q8Libs.push({ name: `attention-wasm ${simd} q8`, model: await A.loadPretrained(files(), { dtype: 'q8' }) });
  }
  if (libs.length === 1) log('# attention-wasm relaxed: this browser has no relaxed SIMD; left out');
  const single = libs.length;
  const builds = libs.map((l) => l.name.split(' ')[1]);
  // the other builds' models (their relaxed build, or SIMD128 where they or this engine have none),
  // each compared with ours of the same build and dtype
  const others = [];
  for (const { label, init: otherInit } of also) {
    const relaxed = relaxedSimdSupported() ? await otherInit({ simd: 'relaxed' }).catch(() => null) : null;
    const A = relaxed?.buildInfo().simd === 'relaxed' ? relaxed : await otherInit({ simd: 'simd128' });
    const info = A.buildInfo(),
      ours = builds.indexOf(info.simd);
    log(`# build: ${label} ${JSON.stringify(info)}`);
    const name = `${label} ${info.simd}`;
    others.push({ name, q8: false, ours, model: await A.loadPretrained(files()) });
    others.push({ name: `${name} q8`, q8: true, ours, model: await A.loadPretrained(files(), { dtype: 'q8' }) });
  }
  const header = [
    'tokens (batch 1)',
    ...libs.map((l) => `${l.name} ms`),
    `onnxruntime-web ${ortVersion} ms`,
    `onnxruntime-web ${ortVersion} q8 ms`,
    ...q8Libs.map((l) => `${l.name} ms`),
    ...(single > 1 ? ['relaxed / simd128', 'q8 relaxed / q8 simd128'] : []),
    ...builds.map((b) => `${b} / onnxruntime-web`),
    ...builds.map((b) => `${b} q8 / float32`),
    ...builds.map((b) => `${b} q8 / onnxruntime-web q8`),
    ...others.map((o) => `${o.name} ms`),
    ...others.map((o) => `${o.name} / ${(o.q8 ? q8Libs : libs)[o.ours].name}`),
  ];
  const rows = [];
  for (const L of [128, 512]) {
    const ids = encoderIds(L);
    const runs = libs.map(
      ({ model }) =>
        async () =>
          model.forward(ids).lastHiddenState.data,
    );
    const sessions = [];
    for (const quantized of [false, true])
      sessions.push(
        await ort.InferenceSession.create(
          buildEncoderOnnx({ config, tensors, seqLength: L, quantized, ...(quantized ? TRANSFORMERS_JS_Q8 : {}) }),
          {
            executionProviders: ['wasm'],
            graphOptimizationLevel: 'all',
          },
        ),
      );
    for (const session of sessions)
      runs.push(async () => {
        const { last_hidden_state: out } = await session.run({
          input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, L]),
          attention_mask: new ort.Tensor('float32', new Float32Array(L).fill(1), [1, L]),
        });
        const data = out.data;
        out.dispose?.();
        return data;
      });
    const q8Runs = new Map([[runs.length - 1, 'onnxruntime-web q8']]); // run -> its name
    const q8First = runs.length; // ours in q8, each build
    for (const { name, model } of q8Libs) {
      q8Runs.set(runs.length, name);
      runs.push(async () => model.forward(ids).lastHiddenState.data);
    }
    const othersFirst = runs.length;
    for (const { name, q8, model } of others) {
      if (q8) q8Runs.set(runs.length, name);
      runs.push(async () => model.forward(ids).lastHiddenState.data);
    }
    // the same numbers everywhere (float32), and each q8 run's per-token cosine
    const reference = await runs[0]();
    for (let i = 1; i < runs.length; i++) {
      const got = await runs[i]();
      if (q8Runs.has(i)) {
        const cosines = tokenCosines(got, reference, config.dim);
        log(
          `# ${q8Runs.get(i)} vs attention-wasm float32, ${L} tokens: per-token cosine min ` +
            `${Math.min(...cosines).toFixed(6)}, mean ${(cosines.reduce((x, y) => x + y, 0) / L).toFixed(6)}`,
        );
        continue;
      }
      let worst = 0;
      for (let j = 0; j < got.length; j++)
        worst = Math.max(worst, Math.abs(got[j] - reference[j]) / (1 + Math.abs(reference[j])));
      if (worst > 1e-4) log(`# warning: run ${i} differs from attention-wasm by ${worst.toExponential(2)}`);
    }
    for (const run of runs)
      for (let n = 0, t0 = performance.now(); n < 3 || performance.now() - t0 < (quick ? 300 : 1000); n++) await run();
    const rounds = quick ? 5 : L === 128 ? 25 : 10;
    const times = runs.map(() => []);
    for (let r = 0; r < rounds; r++)
      for (let i = 0; i < runs.length; i++) {
        await yieldTask();
        const t0 = performance.now();
        await runs[i]();
        times[i].push(performance.now() - t0);
      }
    const ms = times.map(median);
    const [peer, peerQ8] = ms.slice(single, single + 2); // onnxruntime-web float32, q8
    const q8Ms = ms.slice(q8First, othersFirst),
      otherMs = ms.slice(othersFirst);
    const row = [
      String(L),
      ...ms.slice(0, othersFirst).map((t) => t.toFixed(1)),
      ...(single > 1 ? [`${(ms[1] / ms[0]).toFixed(2)}x`, `${(q8Ms[1] / q8Ms[0]).toFixed(2)}x`] : []),
      ...ms.slice(0, single).map((t) => `${(peer / t).toFixed(2)}x`),
      ...q8Ms.map((t, i) => `${(ms[i] / t).toFixed(2)}x`),
      ...q8Ms.map((t) => `${(peerQ8 / t).toFixed(2)}x`),
      ...otherMs.map((t) => t.toFixed(1)),
      ...others.map((o, i) => `${((o.q8 ? q8Ms : ms)[o.ours] / otherMs[i]).toFixed(2)}x`),
    ];
    rows.push(row);
    log(`# ${row.join(' | ')}   [${rounds} calls each]`);
    for (const session of sessions) await session.release?.();
  }
  for (const l of [...libs, ...q8Libs, ...others]) l.model.dispose();
  return { header, rows };
}
