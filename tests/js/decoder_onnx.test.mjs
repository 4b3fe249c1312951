// The decoder benchmark's peer (scripts/decoder-onnx.mjs: GPT-2 as an ONNX graph with past
// key/values, for onnxruntime-web) computes what transformers computes: on the gpt2-tiny fixture,
// in both of its forms, a left-padded prompt (empty past) and then a decoding step with the
// presents fed back, against the float64 reference (tests/js/reference/causal.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { buildGpt2DecoderOnnx } from '../../scripts/decoder-onnx.mjs';
import { loadFixture } from './fixtures.mjs';
import { assertClose, causalShape, cosine, positionIdsFromMask, referenceCausalLM, rng } from './reference/index.mjs';

const FLOAT32 = { rel: 1e-5, abs: 1e-5, floor: 1 }; // float32 sums of ~100 terms against float64

async function onnxruntime() {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmPaths = fileURLToPath(new URL('../../node_modules/onnxruntime-web/dist/', import.meta.url));
  ort.env.logLevel = 'error';
  return ort;
}

test('decoder-onnx: logits and presents of both forms equal the float64 reference (prompt, then a step)', async () => {
  const ort = await onnxruntime();
  const f = await loadFixture('gpt2-tiny');
  const { V, H, Dh, layers } = causalShape(f.config);
  const tensors = new Map(
    [...f.weights].map(([name, t]) => [name, { data: Float32Array.from(t.data), shape: t.shape }]),
  );
  const pad = f.config.eos_token_id;
  const r = rng(3);
  const lengths = [5, 3],
    L = 5,
    N = 2;
  const inputIds = lengths.map((l) => [
    ...new Array(L - l).fill(pad),
    ...Array.from({ length: l }, () => Math.floor(r() * V)),
  ]);
  const attentionMask = lengths.map((l) => [...new Array(L - l).fill(0), ...new Array(l).fill(1)]);
  const next = [[Math.floor(r() * V)], [Math.floor(r() * V)]];
  const prompt = referenceCausalLM(f, { inputIds, attentionMask, positionIds: positionIdsFromMask(attentionMask) });
  const mask2 = attentionMask.map((m) => [...m, 1]);
  const step = referenceCausalLM(f, {
    inputIds: next,
    attentionMask: mask2,
    positionIds: positionIdsFromMask(mask2).map((p) => p.slice(-1)),
    past: prompt.cache,
  });

  const int64 = (rows) =>
    new ort.Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), [rows.length, rows[0].length]);
  for (const form of ['fused', 'plain']) {
    const session = await ort.InferenceSession.create(buildGpt2DecoderOnnx({ config: f.config, tensors, form }), {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    });
    const run = async (ids, mask, past) => {
      const feeds = {
        input_ids: int64(ids),
        attention_mask: int64(mask),
        position_ids: int64(positionIdsFromMask(mask).map((p) => p.slice(-ids[0].length))),
      };
      for (let i = 0; i < layers; i++)
        for (const part of ['key', 'value'])
          feeds[`past_key_values.${i}.${part}`] = past
            ? past[`present.${i}.${part}`]
            : new ort.Tensor('float32', new Float32Array(0), [N, H, 0, Dh]);
      return session.run(feeds);
    };
    const first = await run(inputIds, attentionMask, null);
    assert.deepEqual(first.logits.dims, [N, L, V]);
    for (let n = 0; n < N; n++) {
      const from = L - lengths[n]; // the rows of real tokens
      assertClose(
        first.logits.data.subarray((n * L + from) * V, (n + 1) * L * V),
        prompt.logits.subarray((n * L + from) * V, (n + 1) * L * V),
        FLOAT32,
        `${form}: prompt logits, row ${n}`,
      );
    }
    // the presents at the real tokens' positions (a padding query sees no key: its row, and so
    // the next layer's key and value there, are not defined by transformers either)
    for (let i = 0; i < layers; i++)
      for (const part of ['key', 'value'])
        for (let n = 0; n < N; n++)
          for (let h = 0; h < H; h++) {
            const at = ((n * H + h) * L + L - lengths[n]) * Dh,
              end = ((n * H + h) * L + L) * Dh;
            assertClose(
              first[`present.${i}.${part}`].data.subarray(at, end),
              prompt.cache.layers[i][part].subarray(at, end),
              FLOAT32,
              `${form}: present.${i}.${part} row ${n} head ${h}`,
            );
          }
    const second = await run(next, mask2, first);
    assert.deepEqual(second[`present.0.key`].dims, [N, H, L + 1, Dh]);
    assertClose(second.logits.data, step.logits, FLOAT32, `${form}: step logits`);
    await session.release();
  }
});

test('decoder-onnx, quantized (quantize_dynamic MatMulConstBOnly, as transformers.js q8): logits close to the float64 reference', async () => {
  // int8 weights per tensor and uint8 activations per tensor: a looser grade than float32, a cosine
  // per position (over the vocabulary) against the reference, the cache step as well; measured
  // 0.99983 (fused) and 0.99973 (plain), bound 0.999 (the int8 MatMuls ran: below 1 - 1e-9)
  const ort = await onnxruntime();
  const f = await loadFixture('gpt2-tiny');
  const { V, H, Dh, layers } = causalShape(f.config);
  const tensors = new Map(
    [...f.weights].map(([name, t]) => [name, { data: Float32Array.from(t.data), shape: t.shape }]),
  );
  const r = rng(5);
  const L = 6;
  const ids = [Array.from({ length: L }, () => Math.floor(r() * V))];
  const want = referenceCausalLM(f, { inputIds: ids });
  const int64 = (row) => new ort.Tensor('int64', BigInt64Array.from(row, BigInt), [1, row.length]);
  for (const form of ['fused', 'plain']) {
    const session = await ort.InferenceSession.create(
      buildGpt2DecoderOnnx({ config: f.config, tensors, form, quantized: true }),
      { executionProviders: ['wasm'], graphOptimizationLevel: 'all' },
    );
    const run = async (from, to, past) => {
      const feeds = {
        input_ids: int64(ids[0].slice(from, to)),
        attention_mask: int64(new Array(to).fill(1)),
        position_ids: int64(Array.from({ length: to - from }, (_, i) => from + i)),
      };
      for (let i = 0; i < layers; i++)
        for (const part of ['key', 'value'])
          feeds[`past_key_values.${i}.${part}`] = past
            ? past[`present.${i}.${part}`]
            : new ort.Tensor('float32', new Float32Array(0), [1, H, 0, Dh]);
      return session.run(feeds);
    };
    const first = await run(0, L - 1, null);
    const second = await run(L - 1, L, first);
    let worst = 1;
    for (let p = 0; p < L; p++) {
      const got = p < L - 1 ? first.logits.data.subarray(p * V, (p + 1) * V) : second.logits.data;
      worst = Math.min(worst, cosine(got, want.logits.subarray(p * V, (p + 1) * V)));
    }
    assert.ok(worst >= 0.999 && worst < 1 - 1e-9, `${form} quantized: worst per-position cosine ${worst}`);
    console.log(`decoder-onnx ${form} quantized vs float64: worst per-position logits cosine ${worst.toFixed(6)}`);
    await session.release();
  }
});
