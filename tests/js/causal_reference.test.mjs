// The causal-LM fixtures and their float64 reference (tests/js/reference/causal.mjs), checked
// before any library code runs them: the folders are laid out as the hub's are and their
// tokenizers load in @huggingface/tokenizers; the reference's cache path equals its full forward,
// a left-padded batch gives each row what it gives alone, greedy decoding with the cache equals
// greedy decoding without it, all in float64 to 1e-12; and the reference agrees with the
// independent references of torch's modules (a GPT-2 block is nn.TransformerEncoderLayer with
// norm_first and a causal mask; Llama's attention is SDPA with enable_gqa).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { CAUSAL_FIXTURES as CAUSAL, loadFixture } from './fixtures.mjs';
import {
  applyRotary,
  assertClose,
  causalShape,
  encoderLayer,
  positionIdsFromMask,
  referenceCausalLM,
  rotaryInverseFrequencies,
  referenceGreedy,
  rng,
  sdpa,
} from './reference/index.mjs';

const EXACT = { rel: 1e-12, abs: 0, floor: 1 }; // float64 against float64: only rounding differs

const randomIds = (seed, n, L, V) => {
  const r = rng(seed);
  return Array.from({ length: n }, () => Array.from({ length: L }, () => Math.floor(r() * V)));
};

/** rows [from, to) of a (N, L, X) array's batch n as a new array. */
const rowsOf = (a, n, L, X, from, to) => a.slice((n * L + from) * X, (n * L + to) * X);

function safetensorsHeader(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const length = Number(view.getBigUint64(0, true));
  return JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length)));
}

test('causal fixtures: config.json, generation_config.json and tensor names as the hub has them', async () => {
  for (const name of CAUSAL) {
    const f = await loadFixture(name);
    const header = safetensorsHeader(f.files['model.safetensors']);
    const names = Object.keys(header).filter((k) => k !== '__metadata__');
    const config = JSON.parse(readFileSync(join(f.dir, 'config.json'), 'utf8'));
    const generation = JSON.parse(readFileSync(join(f.dir, 'generation_config.json'), 'utf8'));
    assert.equal(generation.eos_token_id, config.eos_token_id, name);
    for (const k of names) assert.equal(header[k].dtype, f.spec.dtype, `${name}: ${k}`);
    if (config.model_type === 'gpt2') {
      assert.deepEqual(config.architectures, ['GPT2LMHeadModel']);
      assert.equal(config.activation_function, 'gelu_new');
      const prefix = f.spec.prefixed ? 'transformer.' : '';
      assert.deepEqual(header[`${prefix}h.0.attn.c_attn.weight`].shape, [config.n_embd, 3 * config.n_embd]); // Conv1D (in, out)
      assert.deepEqual(header[`${prefix}h.1.mlp.c_fc.weight`].shape, [
        config.n_embd,
        config.n_inner ?? 4 * config.n_embd, // n_inner null: 4 n_embd
      ]);
      assert.ok(names.includes(`${prefix}wte.weight`) && names.includes(`${prefix}ln_f.bias`), name);
      assert.ok(!names.some((k) => k.includes('lm_head')), `${name}: lm_head is tied to wte`);
      assert.equal(names.includes('h.0.attn.bias'), f.spec.layout === 'original', `${name}: the mask buffer`);
      assert.equal('n_inner' in config, f.spec.layout === 'saved', `${name}: the config's fields`);
    } else {
      const qwen2 = config.model_type === 'qwen2';
      assert.deepEqual(config.architectures, [qwen2 ? 'Qwen2ForCausalLM' : 'LlamaForCausalLM']);
      assert.ok(config.num_key_value_heads < config.num_attention_heads, `${name}: grouped-query attention`);
      const Dh = config.hidden_size / config.num_attention_heads;
      assert.deepEqual(header['model.layers.0.self_attn.k_proj.weight'].shape, [
        config.num_key_value_heads * Dh,
        config.hidden_size,
      ]);
      assert.equal(names.includes('lm_head.weight'), !config.tie_word_embeddings, name);
      // Llama: no biases; Qwen2: q, k and v's
      const biases = names.filter((k) => k.endsWith('.bias'));
      const want = qwen2
        ? ['q', 'k', 'v'].flatMap((p) =>
            Array.from({ length: config.num_hidden_layers }, (_, i) => `model.layers.${i}.self_attn.${p}_proj.bias`),
          )
        : [];
      assert.deepEqual(biases.sort(), want.sort(), `${name}: biases`);
    }
    const bytes = Object.values(f.files).reduce((n, b) => n + b.length, 0);
    // gpt2-6x12 carries 640 positions and 6 x 12 heads (the generation explorer at 512 positions)
    const bound = f.spec.positions > 64 ? 400_000 : 200_000;
    assert.ok(bytes < bound, `${name}: ${bytes} bytes, keep the fixtures small`);
  }
});

test('causal fixtures: each tokenizer.json loads in @huggingface/tokenizers and round-trips text', async () => {
  const texts = [
    'The quick brown fox jumps over the lazy dog.',
    'Streaming text 🙂 café 日本語, 2024\nnext line',
    ' leading space and  two spaces',
  ];
  for (const name of CAUSAL) {
    const f = await loadFixture(name);
    const json = JSON.parse(readFileSync(join(f.dir, 'tokenizer.json'), 'utf8'));
    const config = JSON.parse(readFileSync(join(f.dir, 'tokenizer_config.json'), 'utf8'));
    const tokenizer = new Tokenizer(json, config);
    const V = f.config.vocab_size;
    for (const text of texts) {
      const ids = tokenizer.encode(text).ids;
      assert.ok(
        ids.every((id) => id >= 0 && id < V),
        `${name}: ids inside the vocabulary`,
      );
      assert.equal(tokenizer.decode(ids, { skip_special_tokens: true }), text, `${name}: ${JSON.stringify(text)}`);
    }
    // one character, several tokens: decoding a prefix that ends inside it shows U+FFFD (what
    // streaming text must hold back)
    const emoji = tokenizer.encode('🙂', { add_special_tokens: false }).ids;
    assert.ok(emoji.length >= 2, `${name}: the emoji spans ${emoji.length} tokens`);
    assert.ok(tokenizer.decode(emoji.slice(0, -1)).includes('\uFFFD'), `${name}: a broken character decodes to U+FFFD`);
    const eos = f.config.eos_token_id;
    assert.ok(tokenizer.id_to_token(eos), `${name}: eos ${eos} is a token`);
    if (f.spec.tokenizer === 'sentencepiece') {
      assert.equal(tokenizer.encode('hi').ids[0], f.config.bos_token_id, `${name}: <s> prepended`);
      assert.equal(tokenizer.encode('\n', { add_special_tokens: false }).ids.length, 2, `${name}: ▁ then <0x0A>`);
    } else {
      assert.notEqual(tokenizer.encode('hi').ids[0], f.config.bos_token_id, `${name}: no bos added`);
    }
  }
});

test('reference: the cache path (prefill, then chunks of 1 and 3 tokens) equals the full forward', async () => {
  for (const name of CAUSAL) {
    const f = await loadFixture(name);
    const { V, D, H, Hkv, Dh, layers } = causalShape(f.config);
    const N = 2,
      L = 9;
    const ids = randomIds(7, N, L, V);
    const full = referenceCausalLM(f, { inputIds: ids });
    let past = null;
    let at = 0;
    for (const chunk of [4, 1, 1, 3]) {
      const step = referenceCausalLM(f, {
        inputIds: ids.map((r) => r.slice(at, at + chunk)),
        past: past ?? undefined,
      });
      const T = at + chunk;
      for (let n = 0; n < N; n++) {
        const label = `${name} tokens ${at}..${T} row ${n}`;
        assertClose(
          rowsOf(step.logits, n, chunk, V, 0, chunk),
          rowsOf(full.logits, n, L, V, at, T),
          EXACT,
          `${label} logits`,
        );
        for (let k = 0; k <= layers; k++)
          assertClose(
            rowsOf(step.hiddenStates[k], n, chunk, D, 0, chunk),
            rowsOf(full.hiddenStates[k], n, L, D, at, T),
            EXACT,
            `${label} hidden ${k}`,
          );
        for (let k = 0; k < layers; k++) {
          for (let h = 0; h < H; h++) {
            for (let i = 0; i < chunk; i++) {
              const got = step.attentions[k].subarray(((n * H + h) * chunk + i) * T, ((n * H + h) * chunk + i + 1) * T);
              const row = full.attentions[k].subarray(
                ((n * H + h) * L + at + i) * L,
                ((n * H + h) * L + at + i + 1) * L,
              );
              assertClose(got, row.subarray(0, T), EXACT, `${label} attention ${k} head ${h}`);
              assert.ok(
                row.subarray(T).every((w) => w === 0),
                `${label}: no weight on later keys`,
              );
            }
          }
          for (const part of ['key', 'value']) {
            for (let h = 0; h < Hkv; h++) {
              const got = step.cache.layers[k][part].subarray((n * Hkv + h) * T * Dh, (n * Hkv + h + 1) * T * Dh);
              const want = full.cache.layers[k][part].subarray((n * Hkv + h) * L * Dh, ((n * Hkv + h) * L + T) * Dh);
              assertClose(got, want, EXACT, `${label} cache ${part} ${k}`);
            }
          }
        }
      }
      past = step.cache;
      at = T;
    }
  }
});

test('reference: each row of a left-padded batch (positions from the mask) gives what it gives alone', async () => {
  for (const name of CAUSAL) {
    const f = await loadFixture(name);
    const { V, D, H, layers } = causalShape(f.config);
    const pad = f.generation.pad_token_id ?? f.config.eos_token_id;
    const lengths = [7, 4, 6],
      L = 7;
    const rows = lengths.map((l, i) => randomIds(20 + i, 1, l, V)[0]);
    const inputIds = rows.map((r) => [...new Array(L - r.length).fill(pad), ...r]);
    const attentionMask = rows.map((r) => [...new Array(L - r.length).fill(0), ...r.map(() => 1)]);
    const positionIds = positionIdsFromMask(attentionMask);
    assert.deepEqual(positionIds[1], [1, 1, 1, 0, 1, 2, 3], 'cumsum - 1, 1 on padding');
    const batch = referenceCausalLM(f, { inputIds, attentionMask, positionIds });
    // and then two decoding steps with the cache, as generate feeds them
    let past = batch.cache,
      mask = attentionMask;
    const extra = [randomIds(30, 3, 1, V), randomIds(31, 3, 1, V)];
    const steps = extra.map((next) => {
      mask = mask.map((r) => [...r, 1]);
      const out = referenceCausalLM(f, {
        inputIds: next,
        attentionMask: mask,
        positionIds: positionIdsFromMask(mask).map((r) => r.slice(-1)),
        past,
      });
      past = out.cache;
      return out;
    });
    rows.forEach((row, n) => {
      const l = row.length,
        padding = L - l,
        label = `${name} row ${n}`;
      const alone = referenceCausalLM(f, { inputIds: [[...row, extra[0][n][0], extra[1][n][0]]] });
      const Ta = l + 2;
      assertClose(
        rowsOf(batch.logits, n, L, V, padding, L),
        rowsOf(alone.logits, 0, Ta, V, 0, l),
        EXACT,
        `${label} logits`,
      );
      for (let k = 0; k <= layers; k++)
        assertClose(
          rowsOf(batch.hiddenStates[k], n, L, D, padding, L),
          rowsOf(alone.hiddenStates[k], 0, Ta, D, 0, l),
          EXACT,
          `${label} hidden ${k}`,
        );
      for (let k = 0; k < layers; k++)
        for (let h = 0; h < H; h++)
          for (let i = 0; i < l; i++) {
            const got = batch.attentions[k].subarray(
              ((n * H + h) * L + padding + i) * L,
              ((n * H + h) * L + padding + i + 1) * L,
            );
            assert.ok(
              got.subarray(0, padding).every((w) => w === 0),
              `${label}: no weight on padding`,
            );
            const want = alone.attentions[k].subarray((h * Ta + i) * Ta, (h * Ta + i) * Ta + l);
            assertClose(got.subarray(padding), want, EXACT, `${label} attention ${k} head ${h} query ${i}`);
          }
      steps.forEach((s, t) =>
        assertClose(
          s.logits.subarray(n * V, (n + 1) * V),
          rowsOf(alone.logits, 0, Ta, V, l + t, l + t + 1),
          EXACT,
          `${label} decoding step ${t}`,
        ),
      );
    });
  }
});

test('reference: greedy decoding with the cache equals it without, and a padded batch each row alone', async () => {
  for (const name of CAUSAL) {
    const f = await loadFixture(name);
    const { V } = causalShape(f.config);
    const pad = f.generation.pad_token_id ?? f.config.eos_token_id;
    const prompts = [randomIds(40, 1, 5, V)[0], randomIds(41, 1, 3, V)[0]];
    const L = 5;
    const input = {
      inputIds: prompts.map((r) => [...new Array(L - r.length).fill(pad), ...r]),
      attentionMask: prompts.map((r) => [...new Array(L - r.length).fill(0), ...r.map(() => 1)]),
    };
    const cached = referenceGreedy(f, input, { maxNewTokens: 6, outputAttentions: true });
    const recomputed = referenceGreedy(f, input, { maxNewTokens: 6, cache: false, outputAttentions: true });
    assert.deepEqual(cached.sequences, recomputed.sequences, `${name}: ids`);
    cached.stepLogits.forEach((l, t) => assertClose(l, recomputed.stepLogits[t], EXACT, `${name}: step ${t} logits`));
    cached.stepAttentions.forEach((layersAt, t) =>
      layersAt.forEach((a, k) =>
        assertClose(a, recomputed.stepAttentions[t][k], EXACT, `${name}: step ${t} layer ${k}`),
      ),
    );
    prompts.forEach((p, n) => {
      const alone = referenceGreedy(f, { inputIds: [p] }, { maxNewTokens: 6 });
      assert.deepEqual(cached.newTokens[n], alone.newTokens[0], `${name} row ${n}: the same tokens as alone`);
    });
    // stopping at eos: make a token that row 0 produces (first) at step k >= 1 the eos; row 0 then
    // continues with padding while row 1 runs on
    const first = cached.newTokens[0];
    const k = Math.max(
      0,
      first.findIndex((id, i) => i >= 1 && !first.slice(0, i).includes(id)),
    );
    const eos = first[k];
    const stopped = referenceGreedy(f, input, { maxNewTokens: 6, eosTokenId: eos, padTokenId: pad });
    assert.deepEqual(stopped.newTokens[0], first.slice(0, k + 1), `${name}: row 0 stops at its eos`);
    const row1 = stopped.newTokens[1];
    assert.ok(row1.length === 6 || row1.at(-1) === eos, `${name}: row 1 runs to the end or to its eos`);
    assert.deepEqual(
      stopped.sequences[0].slice(L + k + 1),
      new Array(Math.max(row1.length, k + 1) - k - 1).fill(pad),
      `${name}: padding`,
    );
    assert.ok(
      cached.margins.flat().every((m) => m > 1e-6),
      `${name}: no near tie among the greedy choices`,
    );
  }
});

test('reference: rotary positions are relative (Llama logits unchanged by a shift), learned ones are not', async () => {
  for (const name of ['gpt2-tiny', 'llama-tiny', 'llama-tiny-tied', 'llama-tiny-rope-llama3', 'qwen2-tiny']) {
    const f = await loadFixture(name);
    const { V } = causalShape(f.config);
    const ids = randomIds(50, 1, 6, V);
    const at = (shift) =>
      referenceCausalLM(f, { inputIds: ids, positionIds: [ids[0].map((_, i) => i + shift)] }).logits;
    const base = at(0),
      shifted = at(5);
    if (f.config.model_type !== 'gpt2') assertClose(shifted, base, { rel: 1e-10, abs: 0, floor: 1 }, `${name} shift`);
    else
      assert.ok(
        shifted.some((x, i) => Math.abs(x - base[i]) > 1e-3),
        `${name}: positions are learned`,
      );
  }
  // apply_rotary_pos_emb's layout (rotate_half): dims i and i + Dh/2 turn by position / theta^(2i / Dh)
  const Dh = 6,
    theta = 10000,
    p = 3;
  for (let i = 0; i < Dh / 2; i++) {
    const x = new Float64Array(Dh);
    x[i] = 1;
    applyRotary(x, 0, Dh, p, rotaryInverseFrequencies(theta, Dh, null));
    const angle = p / theta ** ((2 * i) / Dh);
    const want = new Float64Array(Dh);
    want[i] = Math.cos(angle);
    want[i + Dh / 2] = Math.sin(angle);
    assertClose(x, want, EXACT, `rotary dim ${i}`);
  }
});

test("reference: rope_scaling's inverse frequencies (modeling_rope_utils.py) on the fixtures' configs", async () => {
  // linear: every frequency divided by the factor, so position p turns as p / factor did
  const linear = (await loadFixture('llama-tiny-rope-linear')).config;
  const Dh = linear.hidden_size / linear.num_attention_heads;
  const plain = rotaryInverseFrequencies(linear.rope_theta, Dh, null);
  assert.equal(linear.rope_scaling.type, 'linear');
  assertClose(
    rotaryInverseFrequencies(linear.rope_theta, Dh, linear.rope_scaling),
    plain.map((f) => f / linear.rope_scaling.factor),
    EXACT,
    'linear',
  );
  // llama3 on llama-tiny-rope-llama3 (theta 100, head size 8, original context 32, factors 1 and
  // 4): wavelengths 2 pi x (1, 3.16, 10, 31.6) = 6.3 (< 32 / 4: kept), 19.9 (between: smoothed),
  // 62.8 and 199 (> 32 / 1: divided by 8)
  const llama3 = (await loadFixture('llama-tiny-rope-llama3')).config;
  const s = llama3.rope_scaling;
  const base = rotaryInverseFrequencies(llama3.rope_theta, 8, null);
  const got = rotaryInverseFrequencies(llama3.rope_theta, 8, s);
  assert.equal(got[0], base[0]);
  const smooth = (s.original_max_position_embeddings / ((2 * Math.PI) / base[1]) - 1) / (4 - 1);
  assert.ok(smooth > 0 && smooth < 1, `smooth ${smooth}`);
  assertClose([got[1]], [(1 - smooth) * (base[1] / 8) + smooth * base[1]], EXACT, 'llama3 smoothed band');
  assert.ok(got[1] < base[1] && got[1] > base[1] / 8);
  assert.deepEqual([got[2], got[3]], [base[2] / 8, base[3] / 8]);
  // the scaling shows in the logits (so the library's match of the fixtures tests it)
  for (const name of ['llama-tiny-rope-linear', 'llama-tiny-rope-llama3']) {
    const f = await loadFixture(name);
    const ids = randomIds(51, 1, 8, f.config.vocab_size);
    const scaled = referenceCausalLM(f, { inputIds: ids }).logits;
    const plainLogits = referenceCausalLM(
      { ...f, config: { ...f.config, rope_scaling: null } },
      { inputIds: ids },
    ).logits;
    assert.ok(
      scaled.some((x, i) => Math.abs(x - plainLogits[i]) > 1e-2),
      `${name}: rope_scaling changes the logits`,
    );
  }
});

test("reference: a GPT-2 block is torch's TransformerEncoderLayer (norm_first, causal) with Conv1D weights transposed", async () => {
  const f = await loadFixture('gpt2-tiny');
  // the encoder layer's reference knows erf gelu: run the GPT-2 reference with it too
  const config = { ...f.config, activation_function: 'gelu' };
  const { D, F, V } = causalShape(config);
  const ids = randomIds(60, 2, 6, V);
  const out = referenceCausalLM({ config, weights: f.weights }, { inputIds: ids });
  const w = (n) => f.weights.get(n);
  const t = ({ data, shape: [rows, cols] }) => {
    const out = new Float64Array(rows * cols);
    for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = data[i * cols + j];
    return { data: out, shape: [cols, rows] };
  };
  const layer = encoderLayer(
    { data: out.hiddenStates[0], shape: [2, 6, D] },
    {
      selfAttn: {
        inProjWeight: t(w('h.0.attn.c_attn.weight')),
        inProjBias: w('h.0.attn.c_attn.bias'),
        outProjWeight: t(w('h.0.attn.c_proj.weight')),
        outProjBias: w('h.0.attn.c_proj.bias'),
      },
      linear1Weight: t(w('h.0.mlp.c_fc.weight')),
      linear1Bias: w('h.0.mlp.c_fc.bias'),
      linear2Weight: t(w('h.0.mlp.c_proj.weight')),
      linear2Bias: w('h.0.mlp.c_proj.bias'),
      norm1Weight: w('h.0.ln_1.weight'),
      norm1Bias: w('h.0.ln_1.bias'),
      norm2Weight: w('h.0.ln_2.weight'),
      norm2Bias: w('h.0.ln_2.bias'),
    },
    { nhead: config.n_head, batchFirst: true, normFirst: true, activation: 'gelu', eps: 1e-5, isCausal: true },
  );
  assert.equal(F, 4 * D);
  assertClose(out.hiddenStates[1], layer.data, EXACT, 'block 0');
});

test("reference: Llama's attention weights are SDPA's (causal, enable_gqa) on the rotated queries and keys", async () => {
  for (const name of ['llama-tiny', 'llama-tiny-tied', 'qwen2-tiny', 'llama-tiny-rope-llama3']) {
    const f = await loadFixture(name);
    const c = causalShape(f.config);
    const { D, H, Hkv, Dh, V } = c;
    const L = 5;
    const ids = randomIds(70, 1, L, V);
    const out = referenceCausalLM(f, { inputIds: ids });
    // layer 0's queries from the embeddings: RMSNorm, q_proj, rotary; keys from the cache
    const x = out.hiddenStates[0];
    const norm = f.weights.get('model.layers.0.input_layernorm.weight').data;
    const wq = f.weights.get('model.layers.0.self_attn.q_proj.weight').data;
    const bq = c.qkvBias ? f.weights.get('model.layers.0.self_attn.q_proj.bias').data : null; // Qwen2
    const q = new Float64Array(H * L * Dh); // (1, H, L, Dh)
    for (let l = 0; l < L; l++) {
      const row = x.subarray(l * D, (l + 1) * D);
      const inv = 1 / Math.sqrt(row.reduce((s, v) => s + v * v, 0) / D + c.eps);
      const head = new Float64Array(H * Dh);
      for (let o = 0; o < H * Dh; o++) {
        let s = bq ? bq[o] : 0;
        for (let i = 0; i < D; i++) s += row[i] * inv * norm[i] * wq[o * D + i];
        head[o] = s;
      }
      for (let h = 0; h < H; h++) {
        applyRotary(head, h * Dh, Dh, l, c.invFreq);
        q.set(head.subarray(h * Dh, (h + 1) * Dh), (h * L + l) * Dh);
      }
    }
    const { key, value } = out.cache.layers[0];
    const want = sdpa(
      { data: q, shape: [1, H, L, Dh] },
      { data: key, shape: [1, Hkv, L, Dh] },
      { data: value, shape: [1, Hkv, L, Dh] },
      { isCausal: true, enableGqa: true },
    );
    assertClose(out.attentions[0], want.weights.data, EXACT, `${name} layer 0 weights`);
  }
});
