// Float64 reference of Hugging Face's causal language models in eval mode (dropout off), written
// from transformers' own code, not from the library:
//   GPT2LMHeadModel   src/transformers/models/gpt2/modeling_gpt2.py (huggingface/transformers at
//                     0010f60284ab): GPT2Model.forward (wte(input_ids) + wpe(position_ids), the
//                     blocks, ln_f; hidden_states collected before each block, the last one after
//                     ln_f), GPT2Block.forward (x + attn(ln_1(x)), then h + mlp(ln_2(h))),
//                     GPT2Attention (c_attn split into q, k, v; _split_heads; past keys/values
//                     concatenated before the new ones; _attn: q k^T / sqrt(head_dim) [/ (layer_idx
//                     + 1) when scale_attn_by_inverse_layer_idx], the bias[:, :, T - L : T, :T]
//                     causal mask; _merge_heads; c_proj), GPT2MLP (c_proj(act(c_fc(x))),
//                     activation_function gelu_new), pytorch_utils.Conv1D (y = x W + b with W
//                     (in, out)); lm_head tied to wte.
//   LlamaForCausalLM  src/transformers/models/llama/modeling_llama.py (at 002272831fba):
//                     LlamaModel.forward (embed_tokens, the layers, norm; the same hidden_states
//                     rule), LlamaDecoderLayer (x + self_attn(input_layernorm(x)), then
//                     h + mlp(post_attention_layernorm(h))), LlamaRMSNorm (x * rsqrt(mean(x^2) +
//                     eps) * weight), LlamaRotaryEmbedding (inv_freq = 1 / theta^(2i / head_dim),
//                     emb = cat(freqs, freqs)) and apply_rotary_pos_emb (q cos + rotate_half(q)
//                     sin, rotate_half(x) = cat(-x2, x1)), the cache holding keys after rotation,
//                     repeat_kv (head h reads key/value head h / (H / H_kv)), eager LlamaAttention,
//                     LlamaMLP (down(act(gate(x)) * up(x)), hidden_act silu), lm_head or
//                     embed_tokens when tie_word_embeddings.
//   Qwen2ForCausalLM  src/transformers/models/qwen2/modeling_qwen2.py: Llama's model with
//                     biases on q_proj, k_proj and v_proj (Qwen2Attention: nn.Linear(..., bias=True);
//                     o_proj and the MLP without); the sliding window only with use_sliding_window.
//   rope_scaling      src/transformers/modeling_rope_utils.py (at 0044e3b3facf), ROPE_INIT_FUNCTIONS
//                     for the types the library supports: _compute_default_rope_parameters
//                     (inv_freq = 1 / base^(2i / dim)), _compute_linear_scaling_rope_parameters
//                     (inv_freq / factor) and _compute_llama3_parameters (wavelen = 2 pi / inv_freq:
//                     kept below original_max_position_embeddings / high_freq_factor, divided by
//                     factor above original_max_position_embeddings / low_freq_factor, in between
//                     (1 - smooth) inv_freq / factor + smooth inv_freq with smooth =
//                     (original_max_position_embeddings / wavelen - low_freq_factor) /
//                     (high_freq_factor - low_freq_factor)); attention_factor is 1 for all three.
//   Masks             LlamaModel._update_causal_mask: a key is seen when it is not after the query
//                     (with a cache of P tokens, query i is at P + i: the mask aligned
//                     bottom-right) and attention_mask is 1; unseen keys get finfo(float32).min.
//                     A query that sees no key (a padding query of a left-padded row) weighs every
//                     key equally; GPT-2's older additive masks give such rows other values, so
//                     only rows of real tokens are to be compared.
//   Generation        GPT2LMHeadModel / LlamaForCausalLM.prepare_inputs_for_generation:
//                     position_ids = attention_mask.cumsum(-1) - 1, masked_fill(attention_mask ==
//                     0, 1), the last column once a cache exists; generation/utils.py greedy
//                     decoding (generate(do_sample=False)): argmax of the last logits (the first
//                     index on ties), finished rows continue with pad_token_id (eos when unset),
//                     attention_mask extended with a 1 per step, stop when every row has produced
//                     an eos_token_id or after max_new_tokens.
// Rotary angles: transformers computes inv_freq and position * inv_freq in float32; here in
// float64 (a difference of about position * 2^-24 radians).
//
// A model is { config (config.json), weights: Map(name -> {data, shape}) } with GPT-2's names
// without 'transformer.' (wte.weight, h.0.attn.c_attn.weight, ...) and Llama's as in the file
// (model.embed_tokens.weight, ..., lm_head.weight when untied): scripts/make-fixtures.mjs's
// `weights`. Tensors are flat Float64Arrays, row-major:
//   logits (N, L, V); hiddenStates n_layers + 1 of (N, L, D); attentions n_layers of (N, H, L, T)
//   with T = P + L keys; a cache { length: T, layers: [{ key, value }] } of (N, H_kv, T, head_dim).
import assert from 'node:assert/strict';
import { geluTanh, gelu, relu, linear as linearOp, layerNorm as layerNormOp } from './ops.mjs';

export const FINFO_MIN = -3.4028234663852886e38; // torch.finfo(torch.float32).min

const silu = (x) => x / (1 + Math.exp(-x));
const ACT2FN = { gelu_new: geluTanh, gelu_pytorch_tanh: geluTanh, gelu, relu, silu };

/** The shapes and names of a GPT-2 or Llama config.json. */
export function causalShape(config) {
  if (config.model_type === 'gpt2') {
    const D = config.n_embd,
      H = config.n_head;
    return {
      arch: 'gpt2',
      D,
      H,
      Hkv: H,
      Dh: D / H,
      F: config.n_inner ?? 4 * D,
      layers: config.n_layer,
      V: config.vocab_size,
      maxPositions: config.n_positions,
      act: ACT2FN[config.activation_function ?? 'gelu_new'],
      eps: config.layer_norm_epsilon ?? 1e-5,
    };
  }
  if (config.model_type === 'llama' || config.model_type === 'qwen2') {
    const qwen2 = config.model_type === 'qwen2';
    const D = config.hidden_size,
      H = config.num_attention_heads;
    const Dh = config.head_dim ?? D / H;
    return {
      arch: 'llama',
      D,
      H,
      Hkv: config.num_key_value_heads ?? (qwen2 ? 32 : H), // Qwen2Config's default is 32
      Dh,
      F: config.intermediate_size,
      layers: config.num_hidden_layers,
      V: config.vocab_size,
      maxPositions: config.max_position_embeddings,
      act: ACT2FN[config.hidden_act ?? 'silu'],
      eps: config.rms_norm_eps ?? 1e-6,
      invFreq: rotaryInverseFrequencies(config.rope_theta ?? 10000, Dh, config.rope_scaling),
      qkvBias: qwen2,
      tied: config.tie_word_embeddings ?? false,
    };
  }
  throw new Error(`reference: model_type ${config.model_type}`);
}

/**
 * inv_freq of ROPE_INIT_FUNCTIONS[rope_type] (modeling_rope_utils.py): default, linear, llama3
 * (the types the library reads; any other is not modelled here).
 */
export function rotaryInverseFrequencies(theta, Dh, scaling) {
  const invFreq = Array.from({ length: Dh / 2 }, (_, i) => 1 / theta ** ((2 * i) / Dh));
  const type = scaling ? (scaling.rope_type ?? scaling.type ?? 'default') : 'default';
  if (type === 'default') return invFreq;
  if (type === 'linear') return invFreq.map((f) => f / scaling.factor); // _compute_linear_scaling_rope_parameters
  assert.equal(type, 'llama3', `reference: rope_type ${type} is not modelled`);
  // _compute_llama3_parameters
  const { factor, low_freq_factor: low, high_freq_factor: high } = scaling;
  const old = scaling.original_max_position_embeddings;
  const lowFreqWavelen = old / low,
    highFreqWavelen = old / high;
  return invFreq.map((f) => {
    const wavelen = (2 * Math.PI) / f;
    if (wavelen > lowFreqWavelen) return f / factor;
    if (wavelen < highFreqWavelen) return f;
    const smooth = (old / wavelen - low) / (high - low);
    return ((1 - smooth) * f) / factor + smooth * f;
  });
}

/** position_ids as generate computes them: attention_mask.cumsum(-1) - 1, 1 where the mask is 0. */
export function positionIdsFromMask(attentionMask) {
  return attentionMask.map((row) => {
    let sum = 0;
    return row.map((m) => {
      sum += m;
      return m === 0 ? 1 : sum - 1;
    });
  });
}

// y (rows, out) = x (rows, in) W^T (+ b), W (out, in): nn.Linear, the one reference's (ops.mjs)
const linear = (x, rows, w, b) => linearOp({ data: x, shape: [rows, w.shape[1]] }, w, b).data;

// y (rows, out) = x (rows, in) W + b, W (in, out): pytorch_utils.Conv1D
function conv1d(x, rows, w, b) {
  const [inp, out] = w.shape;
  const y = new Float64Array(rows * out);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < out; o++) {
      let s = b.data[o];
      for (let i = 0; i < inp; i++) s += x[r * inp + i] * w.data[i * out + o];
      y[r * out + o] = s;
    }
  }
  return y;
}

// nn.LayerNorm (biased variance; the one reference's, ops.mjs) and LlamaRMSNorm over rows of D
const layerNorm = (x, D, w, b, eps) => layerNormOp({ data: x, shape: [x.length / D, D] }, 1, w, b, eps).data;
function rmsNorm(x, D, w, eps) {
  const y = new Float64Array(x.length);
  for (let r = 0; r * D < x.length; r++) {
    let ms = 0;
    for (let i = 0; i < D; i++) ms += x[r * D + i] ** 2;
    const inv = 1 / Math.sqrt(ms / D + eps);
    for (let i = 0; i < D; i++) y[r * D + i] = x[r * D + i] * inv * w.data[i];
  }
  return y;
}

/**
 * apply_rotary_pos_emb on one head vector in place: x = x cos + rotate_half(x) sin with
 * emb = cat(freqs, freqs), freqs[i] = position * invFreq[i] (rotaryInverseFrequencies).
 */
export function applyRotary(x, offset, Dh, position, invFreq) {
  const half = Dh / 2;
  for (let i = 0; i < half; i++) {
    const angle = position * invFreq[i];
    const c = Math.cos(angle),
      s = Math.sin(angle);
    const x1 = x[offset + i],
      x2 = x[offset + i + half];
    x[offset + i] = x1 * c - x2 * s; // rotate_half: (-x2, x1)
    x[offset + i + half] = x2 * c + x1 * s;
  }
}

/**
 * One forward of GPT2LMHeadModel / LlamaForCausalLM.
 * @param {{config: object, weights: Map}} model
 * @param {{inputIds: number[][], attentionMask?: number[][], positionIds?: number[][],
 *   past?: {length: number, layers: {key: Float64Array, value: Float64Array}[]}}} input
 *   attentionMask covers the cached tokens and the new ones (N, P + L), as transformers takes it;
 *   positionIds (N, L) default to P .. P + L - 1 (both models' default without a mask).
 * @returns {{logits, hiddenStates, attentions, cache, shape: {N, L, P, T, V, D, H, Hkv, Dh}}}
 *   cache: the past with this call's keys and values appended (past_key_values / present).
 */
export function referenceCausalLM({ config, weights }, { inputIds, attentionMask, positionIds, past }) {
  const c = causalShape(config);
  const W = (name) => {
    const t = weights.get(name);
    assert.ok(t, `reference: no weight ${name}`);
    return t;
  };
  const N = inputIds.length,
    L = inputIds[0].length,
    P = past?.length ?? 0,
    T = P + L,
    rows = N * L;
  const { D, H, Hkv, Dh, V } = c;
  const mask = attentionMask ?? inputIds.map(() => new Array(T).fill(1));
  assert.equal(mask[0].length, T, 'reference: attentionMask must cover the cache and the new tokens');
  const positions = positionIds ?? inputIds.map(() => Array.from({ length: L }, (_, i) => P + i));
  const gpt2 = c.arch === 'gpt2';

  // embeddings: GPT-2 wte(ids) + wpe(position_ids); Llama embed_tokens(ids)
  const wte = W(gpt2 ? 'wte.weight' : 'model.embed_tokens.weight');
  const wpe = gpt2 ? W('wpe.weight') : null;
  let x = new Float64Array(rows * D);
  for (let n = 0; n < N; n++) {
    for (let l = 0; l < L; l++) {
      const id = inputIds[n][l],
        pos = positions[n][l];
      assert.ok(id >= 0 && id < V, `reference: token id ${id}`);
      for (let d = 0; d < D; d++) {
        x[(n * L + l) * D + d] = wte.data[id * D + d] + (gpt2 ? wpe.data[pos * D + d] : 0);
      }
    }
  }

  const hiddenStates = [];
  const attentions = [];
  const layersOut = [];
  for (let layer = 0; layer < c.layers; layer++) {
    hiddenStates.push(x);
    const p = gpt2 ? `h.${layer}.` : `model.layers.${layer}.`;
    // q (N*L, H*Dh), k and v (N*L, Hkv*Dh)
    let q, k, v;
    const normed = gpt2
      ? layerNorm(x, D, W(`${p}ln_1.weight`), W(`${p}ln_1.bias`), c.eps)
      : rmsNorm(x, D, W(`${p}input_layernorm.weight`), c.eps);
    if (gpt2) {
      const qkv = conv1d(normed, rows, W(`${p}attn.c_attn.weight`), W(`${p}attn.c_attn.bias`)); // (rows, 3D)
      q = new Float64Array(rows * D);
      k = new Float64Array(rows * D);
      v = new Float64Array(rows * D);
      for (let r = 0; r < rows; r++) {
        q.set(qkv.subarray(r * 3 * D, r * 3 * D + D), r * D);
        k.set(qkv.subarray(r * 3 * D + D, r * 3 * D + 2 * D), r * D);
        v.set(qkv.subarray(r * 3 * D + 2 * D, r * 3 * D + 3 * D), r * D);
      }
    } else {
      // Qwen2Attention: q, k and v with biases (before the rotation)
      const proj = (n) =>
        linear(normed, rows, W(`${p}self_attn.${n}.weight`), c.qkvBias ? W(`${p}self_attn.${n}.bias`) : undefined);
      q = proj('q_proj');
      k = proj('k_proj');
      v = proj('v_proj');
      for (let n = 0; n < N; n++) {
        for (let l = 0; l < L; l++) {
          const r = n * L + l;
          for (let h = 0; h < H; h++) applyRotary(q, r * H * Dh + h * Dh, Dh, positions[n][l], c.invFreq);
          for (let h = 0; h < Hkv; h++) applyRotary(k, r * Hkv * Dh + h * Dh, Dh, positions[n][l], c.invFreq);
        }
      }
    }
    // the cache: (N, Hkv, T, Dh), the past's P positions then this call's L
    const keys = new Float64Array(N * Hkv * T * Dh),
      values = new Float64Array(N * Hkv * T * Dh);
    for (let n = 0; n < N; n++) {
      for (let h = 0; h < Hkv; h++) {
        const base = (n * Hkv + h) * T * Dh;
        if (P) {
          const old = past.layers[layer];
          keys.set(old.key.subarray((n * Hkv + h) * P * Dh, (n * Hkv + h + 1) * P * Dh), base);
          values.set(old.value.subarray((n * Hkv + h) * P * Dh, (n * Hkv + h + 1) * P * Dh), base);
        }
        for (let l = 0; l < L; l++) {
          const src = (n * L + l) * Hkv * Dh + h * Dh;
          keys.set(k.subarray(src, src + Dh), base + (P + l) * Dh);
          values.set(v.subarray(src, src + Dh), base + (P + l) * Dh);
        }
      }
    }
    layersOut.push({ key: keys, value: values });

    // softmax(q k^T * scale + mask) v per head; head h reads key/value head h / (H / Hkv)
    let scale = 1 / Math.sqrt(Dh);
    if (gpt2 && config.scale_attn_weights === false) scale = 1;
    if (gpt2 && config.scale_attn_by_inverse_layer_idx) scale /= layer + 1;
    const weightsOut = new Float64Array(N * H * L * T);
    const context = new Float64Array(rows * H * Dh);
    const scores = new Float64Array(T);
    for (let n = 0; n < N; n++) {
      for (let h = 0; h < H; h++) {
        const kvBase = (n * Hkv + Math.floor(h / (H / Hkv))) * T * Dh;
        for (let i = 0; i < L; i++) {
          const qOff = (n * L + i) * H * Dh + h * Dh;
          let max = -Infinity;
          for (let j = 0; j < T; j++) {
            let s = 0;
            for (let e = 0; e < Dh; e++) s += q[qOff + e] * keys[kvBase + j * Dh + e];
            scores[j] = j <= P + i && mask[n][j] !== 0 ? s * scale : FINFO_MIN;
            max = Math.max(max, scores[j]);
          }
          let sum = 0;
          for (let j = 0; j < T; j++) sum += Math.exp(scores[j] - max);
          const wRow = ((n * H + h) * L + i) * T;
          for (let j = 0; j < T; j++) {
            const w = Math.exp(scores[j] - max) / sum;
            weightsOut[wRow + j] = w;
            for (let e = 0; e < Dh; e++) context[qOff + e] += w * values[kvBase + j * Dh + e];
          }
        }
      }
    }
    attentions.push(weightsOut);
    const attnOut = gpt2
      ? conv1d(context, rows, W(`${p}attn.c_proj.weight`), W(`${p}attn.c_proj.bias`))
      : linear(context, rows, W(`${p}self_attn.o_proj.weight`));
    const h1 = x.map((xi, i) => xi + attnOut[i]);

    // MLP on the second norm, residual
    let mlp;
    if (gpt2) {
      const n2 = layerNorm(h1, D, W(`${p}ln_2.weight`), W(`${p}ln_2.bias`), c.eps);
      const hidden = conv1d(n2, rows, W(`${p}mlp.c_fc.weight`), W(`${p}mlp.c_fc.bias`)).map(c.act);
      mlp = conv1d(hidden, rows, W(`${p}mlp.c_proj.weight`), W(`${p}mlp.c_proj.bias`));
    } else {
      const n2 = rmsNorm(h1, D, W(`${p}post_attention_layernorm.weight`), c.eps);
      const gate = linear(n2, rows, W(`${p}mlp.gate_proj.weight`));
      const up = linear(n2, rows, W(`${p}mlp.up_proj.weight`));
      mlp = linear(
        gate.map((g, i) => c.act(g) * up[i]),
        rows,
        W(`${p}mlp.down_proj.weight`),
      );
    }
    x = h1.map((hi, i) => hi + mlp[i]);
  }
  // the final norm; hidden_states' last entry is after it (the last block's raw output is not kept)
  x = gpt2 ? layerNorm(x, D, W('ln_f.weight'), W('ln_f.bias'), c.eps) : rmsNorm(x, D, W('model.norm.weight'), c.eps);
  hiddenStates.push(x);
  const head = gpt2 || c.tied ? wte : W('lm_head.weight');
  const logits = linear(x, rows, head);
  return {
    logits,
    hiddenStates,
    attentions,
    cache: { length: T, layers: layersOut },
    shape: { N, L, P, T, V, D, H, Hkv, Dh },
  };
}

/**
 * The reference's logits with their magnitudes (the tolerance rule's `mag`, tolerance.mjs):
 * logit (n, l, v) = h . W[v] over D terms, graded against sum_d |h_d W[v, d]| (a logit near 0 is
 * the cancellation of terms of that size, and float32 rounds each of them).
 */
export function logitsWithMagnitudes({ config, weights }, result) {
  const { D, V, arch, tied } = causalShape(config);
  const w = weights.get(arch === 'gpt2' ? 'wte.weight' : tied ? 'model.embed_tokens.weight' : 'lm_head.weight').data;
  const h = result.hiddenStates[result.hiddenStates.length - 1];
  const rows = h.length / D;
  const mag = new Float64Array(rows * V);
  for (let r = 0; r < rows; r++)
    for (let v = 0; v < V; v++) {
      let sum = 0;
      for (let d = 0; d < D; d++) sum += Math.abs(h[r * D + d] * w[v * D + d]);
      mag[r * V + v] = sum;
    }
  return { data: result.logits, mag };
}

/** The index of the largest value (the first one on ties, as torch.argmax), and its margin over the next. */
function argmax(row) {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  let second = -Infinity;
  for (let i = 0; i < row.length; i++) if (i !== best) second = Math.max(second, row[i]);
  return { id: best, margin: row[best] - second };
}

/**
 * Greedy decoding as generate(do_sample=False) runs it with the cache (or, with
 * { cache: false }, the full forward over the whole sequence at every step), with
 * repetition_penalty's processor when { repetitionPenalty } is not 1.
 * @param {{inputIds: number[][], attentionMask?: number[][]}} input (left-padded for a batch)
 * @param {{maxNewTokens: number, eosTokenId?: number | number[], padTokenId?: number,
 *   outputAttentions?: boolean, cache?: boolean, repetitionPenalty?: number}} options
 * @returns {{sequences: number[][], newTokens: number[][], margins: number[][], stepLogits:
 *   Float64Array[], stepAttentions?: Float64Array[][]}} sequences: prompt + generated (finished
 *   rows padded with padTokenId); margins[step][row]: the top logit minus the next (a test can
 *   require it above its tolerance); stepLogits[step]: (N, V) of the position that chose the
 *   token; stepAttentions[step][layer]: (N, H, T) the attention of that position over all keys.
 */
export function referenceGreedy(model, { inputIds, attentionMask }, options) {
  const { maxNewTokens, outputAttentions = false, cache = true, repetitionPenalty = 1 } = options;
  const eos = options.eosTokenId === undefined ? [] : [options.eosTokenId].flat();
  const pad = options.padTokenId ?? eos[0];
  const N = inputIds.length;
  const { V, H } = causalShape(model.config);
  let ids = inputIds.map((r) => [...r]);
  let mask = (attentionMask ?? inputIds.map((r) => r.map(() => 1))).map((r) => [...r]);
  const unfinished = new Array(N).fill(true);
  const out = { sequences: null, newTokens: inputIds.map(() => []), margins: [], stepLogits: [] };
  if (outputAttentions) out.stepAttentions = [];
  let past = null;
  for (let step = 0; step < maxNewTokens; step++) {
    const positions = positionIdsFromMask(mask);
    const L = past ? 1 : ids[0].length;
    const result = referenceCausalLM(model, {
      inputIds: ids.map((r) => r.slice(r.length - L)),
      attentionMask: mask,
      positionIds: positions.map((r) => r.slice(r.length - L)),
      past: past ?? undefined,
    });
    if (cache) past = result.cache;
    const last = new Float64Array(N * V);
    const margins = [];
    for (let n = 0; n < N; n++) {
      const row = result.logits.slice((n * L + L - 1) * V, (n * L + L) * V);
      // RepetitionPenaltyLogitsProcessor (generation/logits_process.py): torch.gather the scores
      // of the ids so far, score < 0 ? score * penalty : score / penalty, scatter them back
      if (repetitionPenalty !== 1)
        for (const id of new Set(ids[n]))
          row[id] = row[id] < 0 ? row[id] * repetitionPenalty : row[id] / repetitionPenalty;
      last.set(row, n * V);
      const { id, margin } = argmax(row);
      const next = unfinished[n] ? id : pad;
      margins.push(unfinished[n] ? margin : Infinity);
      ids[n].push(next);
      if (unfinished[n]) out.newTokens[n].push(next);
      if (eos.includes(next)) unfinished[n] = false;
    }
    out.stepLogits.push(last);
    out.margins.push(margins);
    if (outputAttentions) {
      const T = result.shape.T;
      out.stepAttentions.push(
        result.attentions.map((a) => {
          const rowsOut = new Float64Array(N * H * T);
          for (let n = 0; n < N; n++)
            for (let h = 0; h < H; h++) {
              const src = ((n * H + h) * L + L - 1) * T;
              rowsOut.set(a.subarray(src, src + T), (n * H + h) * T);
            }
          return rowsOut;
        }),
      );
    }
    mask = mask.map((r) => [...r, 1]);
    if (unfinished.every((u) => !u)) break;
  }
  out.sequences = ids;
  return out;
}
