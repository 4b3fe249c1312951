// Float64 reference of Hugging Face's encoders in eval mode (dropout off), written from
// transformers' own code, not from the library:
//   DistilBertModel  src/transformers/models/distilbert/modeling_distilbert.py (huggingface/
//                    transformers at 00b326f4caca): Embeddings.forward, MultiHeadSelfAttention.forward,
//                    FFN.ff_chunk, TransformerBlock.forward, Transformer.forward
//   BertModel        src/transformers/models/bert/modeling_bert.py (at 004ad5f50b62): BertEmbeddings,
//                    BertSelfAttention (eager), BertSelfOutput, BertIntermediate, BertOutput,
//                    BertLayer, BertEncoder, BertPooler; the extended attention mask of
//                    modeling_utils.get_extended_attention_mask, (1 - mask) * finfo(float32).min
// Activations as ACT2FN: gelu (erf), gelu_new (tanh approximation), relu.
//
// weights: Map of the base model's parameter names -> {data, shape} (values as in the file).
// Returns float64 arrays: hiddenStates (n_layers + 1 of N*L*D, embeddings first), attentions
// (n_layers of N*H*L*L), lastHiddenState, poolerOutput (N*D, when the weights have a pooler).
import assert from 'node:assert/strict';
import * as ops from './ops.mjs';
import { gelu, geluTanh, relu, softmaxRow } from './ops.mjs';

const FINFO_MIN = -3.4028234663852886e38; // torch.finfo(torch.float32).min
const ACT2FN = { gelu, gelu_new: geluTanh, gelu_pytorch_tanh: geluTanh, relu };

// nn.Linear and nn.LayerNorm (over the last dim D) of flat float64 rows
// y (rows, out) = x (rows, in) W^T + b
const linear = (x, rows, w, b) => ops.linear({ data: x, shape: [rows, w.shape[1]] }, w, b).data;
const layerNorm = (x, rows, D, w, b, eps) => ops.layerNorm({ data: x, shape: [rows, D] }, 1, w, b, eps).data;
const add = (a, b) => a.map((x, i) => x + b[i]);

/**
 * @param {{arch: 'distilbert'|'bert', config: object, weights: Map}} model
 * @param {{inputIds: number[][], attentionMask?: number[][], tokenTypeIds?: number[][]}} input
 */
export function referenceEncoder({ arch, config, weights }, { inputIds, attentionMask, tokenTypeIds }) {
  const W = (name) => {
    const t = weights.get(name);
    assert.ok(t, `reference: no weight ${name}`);
    return t;
  };
  const distil = arch === 'distilbert';
  const D = distil ? config.dim : config.hidden_size;
  const H = distil ? config.n_heads : config.num_attention_heads;
  const layers = distil ? config.n_layers : config.num_hidden_layers;
  const act = ACT2FN[distil ? config.activation : config.hidden_act];
  const eps = distil ? 1e-12 : config.layer_norm_eps; // distilbert: nn.LayerNorm(dim, eps=1e-12)
  const N = inputIds.length,
    L = inputIds[0].length,
    rows = N * L,
    Dh = D / H;
  const mask = attentionMask ?? inputIds.map((r) => r.map(() => 1));

  // Embeddings: word_embeddings(input_ids) + position_embeddings(arange(L)) (+ token_type_embeddings), LayerNorm
  const word = W('embeddings.word_embeddings.weight'),
    position = W('embeddings.position_embeddings.weight');
  const types = distil ? null : W('embeddings.token_type_embeddings.weight');
  let x = new Float64Array(rows * D);
  for (let n = 0; n < N; n++) {
    for (let l = 0; l < L; l++) {
      const id = inputIds[n][l],
        type = tokenTypeIds ? tokenTypeIds[n][l] : 0;
      for (let d = 0; d < D; d++) {
        x[(n * L + l) * D + d] =
          word.data[id * D + d] + position.data[l * D + d] + (types ? types.data[type * D + d] : 0);
      }
    }
  }
  x = layerNorm(x, rows, D, W('embeddings.LayerNorm.weight'), W('embeddings.LayerNorm.bias'), eps);

  const hiddenStates = [x];
  const attentions = [];
  for (let i = 0; i < layers; i++) {
    const p = distil ? `transformer.layer.${i}.` : `encoder.layer.${i}.`;
    const name = distil
      ? {
          q: 'attention.q_lin',
          k: 'attention.k_lin',
          v: 'attention.v_lin',
          o: 'attention.out_lin',
          n1: 'sa_layer_norm',
          f1: 'ffn.lin1',
          f2: 'ffn.lin2',
          n2: 'output_layer_norm',
        }
      : {
          q: 'attention.self.query',
          k: 'attention.self.key',
          v: 'attention.self.value',
          o: 'attention.output.dense',
          n1: 'attention.output.LayerNorm',
          f1: 'intermediate.dense',
          f2: 'output.dense',
          n2: 'output.LayerNorm',
        };
    const lin = (input, key) => linear(input, rows, W(`${p}${name[key]}.weight`), W(`${p}${name[key]}.bias`));
    const q = lin(x, 'q'),
      k = lin(x, 'k'),
      v = lin(x, 'v');
    // per head: scores = q k^T / sqrt(Dh) (distilbert divides q first: the same in float64),
    // masked keys: distilbert masked_fill(mask == 0, finfo.min); bert adds (1 - mask) * finfo.min
    const weightsOut = new Float64Array(N * H * L * L);
    const context = new Float64Array(rows * D);
    for (let n = 0; n < N; n++) {
      for (let h = 0; h < H; h++) {
        for (let a = 0; a < L; a++) {
          const scores = new Float64Array(L);
          for (let b = 0; b < L; b++) {
            let s = 0;
            for (let e = 0; e < Dh; e++) s += q[(n * L + a) * D + h * Dh + e] * k[(n * L + b) * D + h * Dh + e];
            s /= Math.sqrt(Dh);
            scores[b] = distil ? (mask[n][b] === 0 ? FINFO_MIN : s) : s + (1 - mask[n][b]) * FINFO_MIN;
          }
          const probs = softmaxRow(scores);
          for (let b = 0; b < L; b++) {
            const w = probs[b];
            weightsOut[((n * H + h) * L + a) * L + b] = w;
            for (let e = 0; e < Dh; e++) context[(n * L + a) * D + h * Dh + e] += w * v[(n * L + b) * D + h * Dh + e];
          }
        }
      }
    }
    attentions.push(weightsOut);
    const attended = layerNorm(
      add(lin(context, 'o'), x),
      rows,
      D,
      W(`${p}${name.n1}.weight`),
      W(`${p}${name.n1}.bias`),
      eps,
    );
    const hidden = lin(attended, 'f1').map(act);
    const F = W(`${p}${name.f1}.weight`).shape[0];
    const ffn = linear(hidden, rows, W(`${p}${name.f2}.weight`), W(`${p}${name.f2}.bias`));
    assert.equal(hidden.length, rows * F);
    x = layerNorm(add(ffn, attended), rows, D, W(`${p}${name.n2}.weight`), W(`${p}${name.n2}.bias`), eps);
    hiddenStates.push(x);
  }
  const out = { hiddenStates, attentions, lastHiddenState: x, shape: { N, L, D, H } };
  if (!distil && weights.has('pooler.dense.weight')) {
    // BertPooler: tanh(dense(hidden_states[:, 0]))
    const first = new Float64Array(N * D);
    for (let n = 0; n < N; n++) first.set(x.subarray(n * L * D, n * L * D + D), n * D);
    out.poolerOutput = linear(first, N, W('pooler.dense.weight'), W('pooler.dense.bias')).map(Math.tanh);
  }
  return out;
}

/** sentence-transformers' mean pooling (mask-weighted) and optional L2 normalisation, in float64. */
export function referenceMeanPool(hidden, mask, N, L, D, normalize) {
  const out = new Float64Array(N * D);
  for (let n = 0; n < N; n++) {
    let count = 0;
    for (let l = 0; l < L; l++) {
      if (!mask[n][l]) continue;
      count++;
      for (let d = 0; d < D; d++) out[n * D + d] += hidden[(n * L + l) * D + d];
    }
    for (let d = 0; d < D; d++) out[n * D + d] /= Math.max(count, 1e-9);
    if (normalize) {
      let norm = 0;
      for (let d = 0; d < D; d++) norm += out[n * D + d] ** 2;
      norm = Math.max(Math.sqrt(norm), 1e-12);
      for (let d = 0; d < D; d++) out[n * D + d] /= norm;
    }
  }
  return out;
}
