// Tiny random DistilBERT, BERT, GPT-2 and Llama models in Hugging Face's folder layout, for the tests
// (generated at test time into build/fixtures/, never committed). Deterministic: a seeded
// generator, so every run writes the same bytes.
//
// Each folder holds what a hub folder holds: config.json with transformers' field names,
// model.safetensors (F32, F16 or BF16; tensor names of the base model with or without the
// 'distilbert.' / 'bert.' prefix, the masked-LM / pretraining heads that hub checkpoints carry,
// old LayerNorm names gamma/beta, the position_ids buffer as I64), and tokenizer.json and/or
// vocab.txt + tokenizer_config.json with bert-base-uncased's 30,522 tokens (dist/, built by
// scripts/convert-vocab.mjs). Sizes are small and odd (dim 18 with 3 heads of 6, feed-forward
// 37, ...) so that the kernels' SIMD tails are taken.
//
// The task heads (issue 20) as the hub's fine-tuned checkpoints have them (`head`): config.json's
// architectures[0], id2label / label2id, problem_type; the head's tensors under transformers'
// names, at the top level beside the 'distilbert.' / 'bert.' base (modeling_distilbert.py,
// modeling_bert.py); a masked-LM head's output projection tied to the word embeddings and so not
// in the file (save_pretrained and the hub's conversions drop _tied_weights_keys: DistilBERT's
// vocab_projector.weight, BERT's cls.predictions.decoder.*), its bias there. These use a
// 270-token subset of bert-base-uncased's vocabulary (`vocab: 'small'`) so that each folder is a
// few tens of KB.
//
// The causal LMs (gpt2-*, llama-*, qwen2-*) carry config.json and generation_config.json as their hub
// checkpoints have them, model.safetensors with transformers' names (causalTensorSpecs), and a
// BPE tokenizer trained here on a fixed text (scripts/fixture-tokenizers.mjs): byte-level for
// GPT-2 and SmolLM, SentencePiece with byte fallback for Llama 2 / TinyLlama.
//
// The weights are drawn on grids that the file's dtype holds exactly (k / 1024 for F16, k / 128
// for BF16, float32 for F32), so the float64 reference can use the values as drawn.
//
// Usage: node scripts/make-fixtures.mjs [folder]   (default build/fixtures)
//        import { fixture } from './scripts/make-fixtures.mjs'   -> { files, config, weights, spec }
//        (causal LMs also: generation, tokenizer: { specials, size })
import { mkdirSync, writeFileSync, renameSync, rmSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rng as random } from '../tests/js/reference/random.mjs'; // seeded Mulberry32 in [0, 1)

const DIST = new URL('../dist/', import.meta.url);

// The encoders' sizes, small and odd so that the kernels' SIMD tails are taken (DistilBERT: dim
// 18 = 3 heads of 6, feed-forward 37; BERT: dim 20 = 4 heads of 5, feed-forward 43), and their
// activation: each encoder fixture, base or task head, is one of these with its own differences.
const DISTILBERT = { arch: 'distilbert', dim: 18, heads: 3, ffn: 37, layers: 2, positions: 40, activation: 'gelu' };
const BERT = { arch: 'bert', dim: 20, heads: 4, ffn: 43, layers: 2, positions: 40, activation: 'gelu' };

// The causal language models (scripts/fixture-tokenizers.mjs trains their tokenizers), each a
// fixture in F32 and one in BF16. Heads of odd size (GPT-2: 5) and feed-forward widths of odd size
// so that the kernels' tails are taken.
const GPT2_TINY = { arch: 'gpt2', dim: 20, heads: 4, layers: 2, positions: 32, tokenizer: 'gpt2', merges: 120 };
// TinyLlama / Llama 2 layout: grouped-query attention (4 heads, 2 key/value heads), untied
// lm_head, SentencePiece BPE with byte fallback, bos <s> 1, eos </s> 2, pad 0 in generation_config
const LLAMA_TINY = {
  arch: 'llama',
  dim: 24,
  heads: 4,
  kvHeads: 2,
  ffn: 37,
  layers: 2,
  positions: 64,
  ropeTheta: 10000,
  rmsNormEps: 1e-5,
  tied: false,
  tokenizer: 'sentencepiece',
  merges: 120,
};
// SmolLM layout: tie_word_embeddings true and no lm_head in the file, 3 heads sharing one
// key/value head (SmolLM-135M: 9 and 3), rope_theta 100000 (SmolLM2), byte-level BPE with
// Digits, <|endoftext|> 0 as bos and eos
const LLAMA_TINY_TIED = {
  arch: 'llama',
  dim: 18,
  heads: 3,
  kvHeads: 1,
  ffn: 29,
  layers: 3,
  positions: 64,
  ropeTheta: 100000,
  rmsNormEps: 1e-5,
  tied: true,
  tokenizer: 'smollm',
  merges: 120,
};

/** The fixtures: architecture, sizes, dtype and how the folder is laid out. */
export const FIXTURES = {
  // distilbert-base-uncased's layout: prefixed names, the masked-LM head (vocab_projector tied to
  // the word embeddings: only its bias in the file), every tokenizer file
  'distilbert-f32': {
    ...DISTILBERT,
    dtype: 'F32',
    prefixed: true,
    head: 'masked-lm',
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 11,
  },
  // distilbert-base-uncased's 6 layers x 12 heads and 512 positions at a tiny width (3 per head):
  // the page's model view at the real model's size, and sequences of up to 512 tokens
  'distilbert-6x12': {
    ...DISTILBERT,
    dtype: 'F32',
    dim: 36,
    heads: 12,
    layers: 6,
    positions: 512,
    prefixed: true,
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 14,
  },
  // bare names, no head, relu, only vocab.txt
  'distilbert-f16': {
    ...DISTILBERT,
    dtype: 'F16',
    activation: 'relu',
    prefixed: false,
    tokenizer: ['vocab.txt'],
    seed: 12,
  },
  'distilbert-bf16': {
    ...DISTILBERT,
    dtype: 'BF16',
    prefixed: true,
    tokenizer: ['tokenizer.json'],
    seed: 13,
  },
  // bert-base-uncased's layout: 'bert.' prefix, pooler, pretraining heads (the masked-LM decoder
  // tied: cls.predictions.bias only; cls.seq_relationship), gamma/beta LayerNorm names
  'bert-f32': {
    ...BERT,
    dtype: 'F32',
    prefixed: true,
    head: 'pretraining',
    pooler: true,
    gammaBeta: true,
    tokenizer: ['vocab.txt'],
    seed: 21,
  },
  // a sentence-transformers BERT (all-MiniLM-L6-v2's layout): bare names, pooler, position_ids buffer
  'bert-bf16': {
    ...BERT,
    dtype: 'BF16',
    layers: 3,
    activation: 'gelu_new',
    prefixed: false,
    pooler: true,
    positionIds: true,
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 22,
  },
  // no pooler (BertModel(add_pooling_layer=False)), F16
  'bert-f16': {
    ...BERT,
    dtype: 'F16',
    activation: 'relu',
    prefixed: false,
    pooler: false,
    tokenizer: ['vocab.txt'],
    seed: 23,
  },

  // Task heads (issue 20), each with the small vocabulary. DistilBERT: distilbert-base-uncased's
  // fine-tuned layout ('distilbert.' base, the head at the top level); BERT: bare or prefixed.
  // DistilBertForMaskedLM as distilbert-base-uncased: vocab_transform, GELU, vocab_layer_norm,
  // vocab_projector tied to the word embeddings (its bias in the file)
  'distilbert-mlm': {
    ...DISTILBERT,
    dtype: 'F32',
    prefixed: true,
    head: 'masked-lm',
    vocab: 'small',
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 51,
  },
  // DistilBertForSequenceClassification as distilbert-base-uncased-finetuned-sst-2-english:
  // pre_classifier + ReLU + classifier, NEGATIVE / POSITIVE, no problem_type
  'distilbert-seq': {
    ...DISTILBERT,
    dtype: 'F32',
    prefixed: true,
    head: 'sequence-classification',
    labels: ['NEGATIVE', 'POSITIVE'],
    finetuningTask: 'sst-2',
    vocab: 'small',
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 52,
  },
  // DistilBertForTokenClassification (a BIO tag set), BF16
  'distilbert-tok': {
    ...DISTILBERT,
    dtype: 'BF16',
    prefixed: true,
    head: 'token-classification',
    labels: ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC'],
    vocab: 'small',
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 53,
  },
  // DistilBertForQuestionAnswering as distilbert-base-cased-distilled-squad: qa_outputs (2, dim);
  // 40 positions, so that a context of a few sentences takes several windows
  'distilbert-qa': {
    ...DISTILBERT,
    dtype: 'F32',
    prefixed: true,
    head: 'question-answering',
    vocab: 'small',
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 54,
  },
  // BertForMaskedLM: cls.predictions.transform (dense, act, LayerNorm) and the decoder tied to the
  // word embeddings (cls.predictions.bias in the file); no pooler (add_pooling_layer=False)
  'bert-mlm': {
    ...BERT,
    dtype: 'F32',
    prefixed: true,
    head: 'masked-lm',
    pooler: false,
    vocab: 'small',
    tokenizer: ['vocab.txt'],
    seed: 61,
  },
  // BertForSequenceClassification, single label over three classes (an NLI model: pairs),
  // problem_type single_label_classification: softmax
  'bert-seq': {
    ...BERT,
    dtype: 'F32',
    prefixed: true,
    head: 'sequence-classification',
    pooler: true,
    labels: ['contradiction', 'entailment', 'neutral'],
    problemType: 'single_label_classification',
    vocab: 'small',
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 62,
  },
  // multi_label_classification (sigmoid per label), F16, bare names
  'bert-multilabel': {
    ...BERT,
    dtype: 'F16',
    prefixed: false,
    head: 'sequence-classification',
    pooler: true,
    labels: ['toxic', 'obscene', 'insult', 'threat'],
    problemType: 'multi_label_classification',
    vocab: 'small',
    tokenizer: ['vocab.txt'],
    seed: 63,
  },
  // a cross-encoder as cross-encoder/ms-marco-MiniLM-L-6-v2: one label (LABEL_0), no problem_type
  // (the pipeline's sigmoid), query and passage as a pair
  'bert-rerank': {
    ...BERT,
    dtype: 'F32',
    layers: 3,
    positions: 64,
    prefixed: true,
    head: 'sequence-classification',
    pooler: true,
    labels: ['LABEL_0'],
    vocab: 'small',
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 64,
  },
  // BertForTokenClassification as dslim/bert-base-NER: CoNLL-2003's nine BIO tags, no pooler
  'bert-tok': {
    ...BERT,
    dtype: 'F32',
    prefixed: true,
    head: 'token-classification',
    pooler: false,
    labels: ['O', 'B-MISC', 'I-MISC', 'B-PER', 'I-PER', 'B-ORG', 'I-ORG', 'B-LOC', 'I-LOC'],
    vocab: 'small',
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 65,
  },
  // BertForQuestionAnswering: qa_outputs (2, hidden), no pooler, BF16
  'bert-qa': {
    ...BERT,
    dtype: 'BF16',
    prefixed: true,
    head: 'question-answering',
    pooler: false,
    vocab: 'small',
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 66,
  },

  // Causal language models (GPT2_TINY, LLAMA_TINY, LLAMA_TINY_TIED above, in F32 and BF16).
  // GPT2LMHeadModel as save_pretrained writes it today: 'transformer.' names, lm_head tied to wte
  // and so absent, no attn.bias buffers, every config field
  'gpt2-tiny': {
    ...GPT2_TINY,
    dtype: 'F32',
    prefixed: true,
    layout: 'saved',
    seed: 31,
  },
  // a GPT-2 of gpt2's 12 heads over 6 layers (distilgpt2's depth) with a context of 640 positions
  // at a tiny width (3 per head, n_inner 37): the generation explorer's views at 512 positions and more
  'gpt2-6x12': {
    ...GPT2_TINY,
    dtype: 'F32',
    dim: 36,
    heads: 12,
    ffn: 37,
    layers: 6,
    positions: 640,
    prefixed: true,
    layout: 'saved',
    seed: 33,
  },
  // openai-community/gpt2's own file: bare names (h.0..., wte, wpe, ln_f), the causal-mask buffer
  // h.N.attn.bias (1, 1, n_positions, n_positions) of ones below the diagonal, the original short
  // config.json; vocab.json + merges.txt beside tokenizer.json
  'gpt2-tiny-bf16': { ...GPT2_TINY, dtype: 'BF16', prefixed: false, layout: 'original', seed: 32 },
  'llama-tiny': { ...LLAMA_TINY, dtype: 'F32', seed: 41 },
  'llama-tiny-bf16': { ...LLAMA_TINY, dtype: 'BF16', seed: 42 },
  'llama-tiny-tied': { ...LLAMA_TINY_TIED, dtype: 'F32', seed: 43 },
  'llama-tiny-tied-bf16': { ...LLAMA_TINY_TIED, dtype: 'BF16', seed: 44 },
};

// Variants of llama-tiny (its sizes, other seeds)
Object.assign(FIXTURES, {
  // Llama 3.1 / 3.2 layout: rope_scaling llama3 (factor 8, low_freq_factor 1, high_freq_factor 4),
  // at a rope_theta, head size and original_max_position_embeddings where the head's four
  // frequencies fall one in each band (kept, smoothed, divided by the factor)
  'llama-tiny-rope-llama3': {
    ...FIXTURES['llama-tiny'],
    dim: 32,
    ropeTheta: 100,
    ropeScaling: {
      factor: 8.0,
      high_freq_factor: 4.0,
      low_freq_factor: 1.0,
      original_max_position_embeddings: 32,
      rope_type: 'llama3',
    },
    seed: 46,
  },
  // linear position interpolation in the older form ({ type: 'linear', factor }, as LongChat's
  // and Vicuna-16k's config.json have it)
  'llama-tiny-rope-linear': { ...FIXTURES['llama-tiny'], ropeScaling: { factor: 4.0, type: 'linear' }, seed: 47 },
  // Qwen2 / Qwen2.5 layout: Llama's with biases on q_proj, k_proj and v_proj, tied embeddings
  // (Qwen2.5-0.5B) or not, rope_theta 1000000, byte-level BPE with <|endoftext|> as eos
  'qwen2-tiny': {
    ...FIXTURES['llama-tiny'],
    arch: 'qwen2',
    ropeTheta: 1000000,
    rmsNormEps: 1e-6,
    tied: true,
    tokenizer: 'smollm',
    seed: 48,
  },
});
FIXTURES['qwen2-tiny-bf16'] = { ...FIXTURES['qwen2-tiny'], dtype: 'BF16', tied: false, seed: 49 };

const CAUSAL = new Set(['gpt2', 'llama', 'qwen2']);

// A value in [-scale, scale] (|value| < 2) on a grid the dtype holds exactly.
function drawer(dtype, rand) {
  const grid = dtype === 'F16' ? 1024 : dtype === 'BF16' ? 128 : 0;
  return (center, scale) => {
    const x = center + (rand() * 2 - 1) * scale;
    return grid ? Math.round(x * grid) / grid : Math.fround(x);
  };
}

/** The model's tensors as transformers names them (modeling_distilbert.py / modeling_bert.py). */
function tensorSpecs(s, V) {
  const D = s.dim,
    F = s.ffn,
    P = s.positions;
  const t = []; // [name, shape, kind]: kind 'w' weight, 'b' bias, 'ln' / 'lnb' LayerNorm, 'e' embedding
  const ln = (name) => {
    const [w, b] = s.gammaBeta ? ['gamma', 'beta'] : ['weight', 'bias'];
    t.push([`${name}.${w}`, [D], 'ln'], [`${name}.${b}`, [D], 'lnb']);
  };
  const lin = (name, out, inp) => t.push([`${name}.weight`, [out, inp], 'w'], [`${name}.bias`, [out], 'b']);
  const base = [];
  if (s.arch === 'distilbert') {
    t.push(['embeddings.word_embeddings.weight', [V, D], 'e'], ['embeddings.position_embeddings.weight', [P, D], 'e']);
    ln('embeddings.LayerNorm');
    for (let i = 0; i < s.layers; i++) {
      const p = `transformer.layer.${i}`;
      for (const n of ['q_lin', 'k_lin', 'v_lin', 'out_lin']) lin(`${p}.attention.${n}`, D, D);
      ln(`${p}.sa_layer_norm`);
      lin(`${p}.ffn.lin1`, F, D);
      lin(`${p}.ffn.lin2`, D, F);
      ln(`${p}.output_layer_norm`);
    }
  } else {
    t.push(
      ['embeddings.word_embeddings.weight', [V, D], 'e'],
      ['embeddings.position_embeddings.weight', [P, D], 'e'],
      ['embeddings.token_type_embeddings.weight', [2, D], 'e'],
    );
    ln('embeddings.LayerNorm');
    for (let i = 0; i < s.layers; i++) {
      const p = `encoder.layer.${i}`;
      for (const n of ['query', 'key', 'value']) lin(`${p}.attention.self.${n}`, D, D);
      lin(`${p}.attention.output.dense`, D, D);
      ln(`${p}.attention.output.LayerNorm`);
      lin(`${p}.intermediate.dense`, F, D);
      lin(`${p}.output.dense`, D, F);
      ln(`${p}.output.LayerNorm`);
    }
    if (s.pooler) lin('pooler.dense', D, D);
  }
  for (const x of t) base.push(x[0]);
  const prefix = s.prefixed ? `${s.arch}.` : '';
  const named = t.map(([n, shape, kind]) => [prefix + n, shape, kind]);
  named.push(...headTensorSpecs(s, V, D));
  return { named, prefix };
}

/** The number of labels of a head: id2label's length (PretrainedConfig), 2 for question answering. */
const numLabels = (s) => (s.head === 'question-answering' ? 2 : (s.labels?.length ?? 2));

/**
 * The head's tensors at the top level of the ForX model (no base prefix), as the hub's files have
 * them. The masked-LM output projection is tied to the word embeddings and absent; its bias is
 * there (DistilBERT: vocab_projector.bias; BERT: cls.predictions.bias, which the tied
 * cls.predictions.decoder.bias shares).
 */
function headTensorSpecs(s, V, D) {
  const t = [];
  const lin = (name, out, inp) => t.push([`${name}.weight`, [out, inp], 'w'], [`${name}.bias`, [out], 'b']);
  const ln = (name) => {
    const [w, b] = s.gammaBeta ? ['gamma', 'beta'] : ['weight', 'bias'];
    t.push([`${name}.${w}`, [D], 'ln'], [`${name}.${b}`, [D], 'lnb']);
  };
  const K = numLabels(s);
  const distil = s.arch === 'distilbert';
  switch (s.head) {
    case undefined:
      break;
    case 'masked-lm': // DistilBertForMaskedLM / BertForMaskedLM (BertOnlyMLMHead)
    case 'pretraining': // BertForPreTraining (BertPreTrainingHeads)
      if (distil) {
        lin('vocab_transform', D, D);
        t.push(['vocab_layer_norm.weight', [D], 'ln'], ['vocab_layer_norm.bias', [D], 'lnb']);
        t.push(['vocab_projector.bias', [V], 'b']);
      } else {
        t.push(['cls.predictions.bias', [V], 'b']);
        lin('cls.predictions.transform.dense', D, D);
        ln('cls.predictions.transform.LayerNorm');
        if (s.head === 'pretraining') lin('cls.seq_relationship', 2, D);
      }
      break;
    case 'sequence-classification': // DistilBERT: pre_classifier, ReLU, classifier; BERT: the pooler, classifier
      if (distil) lin('pre_classifier', D, D);
      lin('classifier', K, D);
      break;
    case 'token-classification':
      lin('classifier', K, D);
      break;
    case 'question-answering':
      lin('qa_outputs', 2, D);
      break;
    default:
      throw new Error(`make-fixtures: head ${s.head}`);
  }
  return t;
}

/** transformers' class for a fixture's head (config.json's architectures[0]). */
function architectureName(s) {
  const base = s.arch === 'distilbert' ? 'DistilBert' : 'Bert';
  const suffix = {
    'masked-lm': 'ForMaskedLM',
    pretraining: 'ForPreTraining',
    'sequence-classification': 'ForSequenceClassification',
    'token-classification': 'ForTokenClassification',
    'question-answering': 'ForQuestionAnswering',
  }[s.head];
  return base + (suffix ?? 'Model');
}

/** config.json's label fields of a classification head: id2label, label2id (and problem_type). */
function labelFields(s) {
  if (!['sequence-classification', 'token-classification'].includes(s.head)) return {};
  const fields = {
    id2label: Object.fromEntries(s.labels.map((l, i) => [String(i), l])),
    label2id: Object.fromEntries(s.labels.map((l, i) => [l, i])),
  };
  if (s.problemType) fields.problem_type = s.problemType;
  if (s.finetuningTask) fields.finetuning_task = s.finetuningTask;
  return fields;
}

/**
 * The small vocabulary of the head fixtures: bert-base-uncased's lines (in its order) that are
 * a special token, one printable ASCII character, '##' and one letter or digit, or one of the
 * words of the tests' sentences; other words split into characters (WordPiece subwords).
 */
const SMALL_VOCAB_WORDS = `the a an of and in on to is was i my me you he she it we they this that what where who how
many do does did have has be not no yes at by for from with about man woman person people write poem fishing river
bank money withdrawing capital france paris city new york berlin london live lives name company based museum art
famous population love movie film terrible great good bad music guitar playing plays play is are there one two three
day time world work house water sun sky blue big small old young`;

export function smallVocabulary(fullText) {
  const words = new Set(SMALL_VOCAB_WORDS.split(/\s+/));
  const keep = (t) =>
    /^\[(PAD|UNK|CLS|SEP|MASK)\]$/.test(t) || /^[!-~]$/.test(t) || /^##[a-z0-9]$/.test(t) || words.has(t);
  const lines = fullText.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.filter(keep).join('\n') + '\n';
}

const BYTES = { F32: 4, F16: 2, BF16: 2 };

// Float32 bits of an exactly representable value -> F16 / BF16 bits (no rounding needed: the
// values are drawn on grids the dtype holds).
const f32 = new DataView(new ArrayBuffer(4));
function encode(dtype, view, offset, x) {
  if (dtype === 'F32') return view.setFloat32(offset, x, true);
  const f = f32;
  f.setFloat32(0, x);
  const bits = f.getUint32(0);
  if (dtype === 'BF16') return view.setUint16(offset, bits >>> 16, true);
  const sign = (bits >>> 16) & 0x8000,
    exponent = (bits >>> 23) & 0xff,
    mantissa = bits & 0x7fffff;
  const half = exponent === 0 ? sign : sign | ((exponent - 112) << 10) | (mantissa >>> 13);
  view.setUint16(offset, half, true);
}

/**
 * model.safetensors bytes of `tensors` ({name, shape, dtype, data}): the data section in a
 * shuffled order (by `seed`), the header keys in another (readers must sort by offset).
 */
function safetensors(tensors, seed) {
  const order = tensors.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 101) - ((b * 7919 + seed) % 101) || a - b);
  const header = {};
  let offset = 0;
  const placed = [];
  for (const i of order) {
    const t = tensors[i];
    const size = t.dtype === 'I64' ? 8 : BYTES[t.dtype];
    const bytes = t.data.length * size;
    placed.push({ t, offset });
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const keys = Object.keys(header).sort(); // as safetensors' Python writer: sorted names
  const json = { __metadata__: { format: 'pt' }, ...Object.fromEntries(keys.map((k) => [k, header[k]])) };
  let headerBytes = new TextEncoder().encode(JSON.stringify(json));
  const pad = (8 - (headerBytes.length % 8)) % 8; // the writer pads the header with spaces to 8 bytes
  headerBytes = new TextEncoder().encode(JSON.stringify(json) + ' '.repeat(pad));
  const file = new Uint8Array(8 + headerBytes.length + offset);
  const view = new DataView(file.buffer);
  view.setUint32(0, headerBytes.length, true);
  file.set(headerBytes, 8);
  const start = 8 + headerBytes.length;
  for (const { t, offset: o } of placed) {
    if (t.dtype === 'I64') {
      t.data.forEach((x, i) => view.setBigInt64(start + o + 8 * i, BigInt(x), true));
    } else {
      t.data.forEach((x, i) => encode(t.dtype, view, start + o + BYTES[t.dtype] * i, x));
    }
  }
  return file;
}

/**
 * Builds a fixture in memory: { files: {name: Uint8Array}, config, weights: Map(bare name ->
 * {data: Float64Array, shape}) of the values written, spec }.
 */
export async function fixture(name) {
  const s = FIXTURES[name];
  if (!s) throw new Error(`make-fixtures: no fixture ${name}`);
  if (CAUSAL.has(s.arch)) return causalFixture(s);
  const fullVocab = readFileSync(new URL('vocab-bert-base-uncased.txt', DIST), 'utf8');
  const vocabText = s.vocab === 'small' ? smallVocabulary(fullVocab) : fullVocab;
  const V = vocabText.split('\n').length - 1;
  const rand = random(s.seed);
  const draw = drawer(s.dtype, rand);
  const { named, prefix } = tensorSpecs(s, V);

  // values, drawn in a fixed order
  const weights = new Map();
  const tensors = named.map(([tensorName, shape, kind]) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float64Array(n);
    const [center, scale] = { w: [0, 0.5], b: [0, 0.25], ln: [1, 0.25], lnb: [0, 0.25], e: [0, 1] }[kind];
    for (let i = 0; i < n; i++) data[i] = draw(center, scale);
    const bare = tensorName.startsWith(prefix) ? tensorName.slice(prefix.length) : tensorName;
    weights.set(bare.replace(/LayerNorm\.gamma$/, 'LayerNorm.weight').replace(/LayerNorm\.beta$/, 'LayerNorm.bias'), {
      data,
      shape,
    });
    return { name: tensorName, shape, dtype: s.dtype, data };
  });
  if (s.positionIds) {
    // the buffer older checkpoints saved: int64 arange
    tensors.push({
      name: 'embeddings.position_ids',
      shape: [1, s.positions],
      dtype: 'I64',
      data: Float64Array.from({ length: s.positions }, (_, i) => i),
    });
  }

  const file = safetensors(tensors, s.seed);

  const config =
    s.arch === 'distilbert'
      ? {
          activation: s.activation,
          architectures: [architectureName(s)],
          ...labelFields(s),
          attention_dropout: 0.1,
          dim: s.dim,
          dropout: 0.1,
          hidden_dim: s.ffn,
          initializer_range: 0.02,
          max_position_embeddings: s.positions,
          model_type: 'distilbert',
          n_heads: s.heads,
          n_layers: s.layers,
          pad_token_id: 0,
          qa_dropout: 0.1,
          seq_classif_dropout: 0.2,
          sinusoidal_pos_embds: false,
          tie_weights_: true,
          transformers_version: '4.10.0.dev0',
          vocab_size: V,
        }
      : {
          architectures: [architectureName(s)],
          ...labelFields(s),
          attention_probs_dropout_prob: 0.1,
          gradient_checkpointing: false,
          hidden_act: s.activation,
          hidden_dropout_prob: 0.1,
          hidden_size: s.dim,
          initializer_range: 0.02,
          intermediate_size: s.ffn,
          layer_norm_eps: 1e-12,
          max_position_embeddings: s.positions,
          model_type: 'bert',
          num_attention_heads: s.heads,
          num_hidden_layers: s.layers,
          pad_token_id: 0,
          position_embedding_type: 'absolute',
          transformers_version: '4.6.0.dev0',
          type_vocab_size: 2,
          use_cache: true,
          vocab_size: V,
        };
  const text = (x) => new TextEncoder().encode(typeof x === 'string' ? x : JSON.stringify(x, null, 2));
  const files = { 'config.json': text(config), 'model.safetensors': file };
  files['tokenizer_config.json'] = text({
    do_lower_case: true,
    model_max_length: 512,
    tokenizer_class: s.arch === 'bert' ? 'BertTokenizer' : 'DistilBertTokenizer',
  });
  if (s.tokenizer.includes('vocab.txt')) files['vocab.txt'] = text(vocabText);
  if (s.tokenizer.includes('tokenizer.json')) {
    const { bertTokenizerJson } = await import(new URL('tokenizer.js', DIST).href);
    files['tokenizer.json'] = text(bertTokenizerJson(vocabText, { do_lower_case: true }));
  }
  return { files, config, weights, spec: s };
}

/**
 * A causal LM's tensors as transformers names them, from its config.json: [name, shape, kind]
 * with kind 'w' weight, 'b' bias, 'ln' / 'lnb' norm weight / bias, 'e' embedding, 'mask' GPT-2's
 * causal-mask buffer (attn.bias, ones on and below the diagonal).
 *   gpt2   modeling_gpt2.py GPT2Model / GPT2Block: wte, wpe, h.N.{ln_1, attn.c_attn, attn.c_proj,
 *          ln_2, mlp.c_fc, mlp.c_proj}, ln_f. The Conv1D weights are (in, out) (pytorch_utils.Conv1D:
 *          y = x W + b), the transpose of nn.Linear's; lm_head is tied to wte and not in the file.
 *   llama  modeling_llama.py LlamaForCausalLM: model.embed_tokens, model.layers.N.{input_layernorm,
 *          self_attn.{q,k,v,o}_proj, post_attention_layernorm, mlp.{gate,up,down}_proj},
 *          model.norm, and lm_head unless tie_word_embeddings. No biases (attention_bias false).
 *   qwen2  modeling_qwen2.py Qwen2ForCausalLM: Llama's names, with self_attn.{q,k,v}_proj.bias.
 * @param {object} config config.json
 * @param {{prefixed?: boolean, buffers?: boolean}} [layout] gpt2: 'transformer.' names (what
 *   save_pretrained writes) or bare ones (openai-community/gpt2's file), with the attn.bias buffers
 */
export function causalTensorSpecs(config, { prefixed = true, buffers = false } = {}) {
  const t = [];
  if (config.model_type === 'gpt2') {
    const D = config.n_embd,
      F = config.n_inner ?? 4 * D,
      P = config.n_positions;
    const p = prefixed ? 'transformer.' : '';
    const ln = (n) => t.push([`${n}.weight`, [D], 'ln'], [`${n}.bias`, [D], 'lnb']);
    const conv1d = (n, inp, out) => t.push([`${n}.weight`, [inp, out], 'w'], [`${n}.bias`, [out], 'b']);
    t.push([`${p}wte.weight`, [config.vocab_size, D], 'e'], [`${p}wpe.weight`, [P, D], 'e']);
    for (let i = 0; i < config.n_layer; i++) {
      const h = `${p}h.${i}`;
      ln(`${h}.ln_1`);
      if (buffers) t.push([`${h}.attn.bias`, [1, 1, P, P], 'mask']);
      conv1d(`${h}.attn.c_attn`, D, 3 * D);
      conv1d(`${h}.attn.c_proj`, D, D);
      ln(`${h}.ln_2`);
      conv1d(`${h}.mlp.c_fc`, D, F);
      conv1d(`${h}.mlp.c_proj`, F, D);
    }
    ln(`${p}ln_f`);
    return t;
  }
  if (config.model_type === 'llama' || config.model_type === 'qwen2') {
    const bias = config.model_type === 'qwen2'; // Qwen2Attention: q, k and v with biases
    const D = config.hidden_size,
      H = config.num_attention_heads,
      Hkv = config.num_key_value_heads ?? H,
      Dh = config.head_dim ?? D / H,
      F = config.intermediate_size;
    const linear = (n, out, inp) => t.push([`${n}.weight`, [out, inp], 'w']);
    t.push(['model.embed_tokens.weight', [config.vocab_size, D], 'e']);
    for (let i = 0; i < config.num_hidden_layers; i++) {
      const l = `model.layers.${i}`;
      t.push([`${l}.input_layernorm.weight`, [D], 'ln']);
      for (const [n, out] of [
        ['q_proj', H * Dh],
        ['k_proj', Hkv * Dh],
        ['v_proj', Hkv * Dh],
      ]) {
        linear(`${l}.self_attn.${n}`, out, D);
        if (bias) t.push([`${l}.self_attn.${n}.bias`, [out], 'b']);
      }
      linear(`${l}.self_attn.o_proj`, D, H * Dh);
      t.push([`${l}.post_attention_layernorm.weight`, [D], 'ln']);
      linear(`${l}.mlp.gate_proj`, F, D);
      linear(`${l}.mlp.up_proj`, F, D);
      linear(`${l}.mlp.down_proj`, D, F);
    }
    t.push(['model.norm.weight', [D], 'ln']);
    if (!(config.tie_word_embeddings ?? false)) t.push(['lm_head.weight', [config.vocab_size, D], 'e']);
    return t;
  }
  throw new Error(`causalTensorSpecs: model_type ${config.model_type}`);
}

const TRANSFORMERS_VERSION = '4.40.1';

/** config.json and generation_config.json as the hub's checkpoints of this kind have them. */
function causalConfigs(s, V, specials) {
  if (s.arch === 'gpt2') {
    const eos = specials['<|endoftext|>'];
    // openai-community/gpt2's config.json (n_inner, scale_attn_weights ... left to their defaults)
    const original = {
      activation_function: 'gelu_new',
      architectures: ['GPT2LMHeadModel'],
      attn_pdrop: 0.1,
      bos_token_id: eos,
      embd_pdrop: 0.1,
      eos_token_id: eos,
      initializer_range: 0.02,
      layer_norm_epsilon: 1e-5,
      model_type: 'gpt2',
      n_ctx: s.positions,
      n_embd: s.dim,
      n_head: s.heads,
      n_layer: s.layers,
      n_positions: s.positions,
      resid_pdrop: 0.1,
      summary_activation: null,
      summary_first_dropout: 0.1,
      summary_proj_to_labels: true,
      summary_type: 'cls_index',
      summary_use_proj: true,
      task_specific_params: { 'text-generation': { do_sample: true, max_length: 50 } },
      vocab_size: V,
    };
    // what GPT2Config.save_pretrained writes today: every field, sorted
    const saved = {
      ...original,
      n_inner: s.ffn ?? null,
      reorder_and_upcast_attn: false,
      scale_attn_by_inverse_layer_idx: false,
      scale_attn_weights: true,
      torch_dtype: 'float32',
      transformers_version: TRANSFORMERS_VERSION,
      use_cache: true,
    };
    const config = s.layout === 'original' ? original : Object.fromEntries(Object.entries(saved).sort());
    return {
      config,
      generation: {
        _from_model_config: true,
        bos_token_id: eos,
        eos_token_id: eos,
        transformers_version: TRANSFORMERS_VERSION,
      },
    };
  }
  // the fields LlamaConfig and Qwen2Config share, in their config.json's (alphabetical) order
  const sorted = (o) => Object.fromEntries(Object.entries(o).sort());
  const common = (bos, eos) => ({
    attention_dropout: 0.0,
    bos_token_id: bos,
    eos_token_id: eos,
    hidden_act: 'silu',
    hidden_size: s.dim,
    initializer_range: 0.02,
    intermediate_size: s.ffn,
    max_position_embeddings: s.positions,
    num_attention_heads: s.heads,
    num_hidden_layers: s.layers,
    num_key_value_heads: s.kvHeads,
    rms_norm_eps: s.rmsNormEps,
    rope_theta: s.ropeTheta,
    tie_word_embeddings: s.tied,
    torch_dtype: s.dtype === 'BF16' ? 'bfloat16' : 'float32',
    transformers_version: TRANSFORMERS_VERSION,
    use_cache: true,
    vocab_size: V,
  });
  if (s.arch === 'qwen2') {
    const eos = specials['<|endoftext|>'];
    // Qwen/Qwen2.5-0.5B's config.json at the fixture's sizes
    const config = sorted({
      ...common(eos, eos),
      architectures: ['Qwen2ForCausalLM'],
      max_window_layers: s.layers,
      model_type: 'qwen2',
      sliding_window: s.positions,
      use_sliding_window: false,
    });
    return {
      config,
      generation: {
        bos_token_id: eos,
        eos_token_id: eos,
        max_new_tokens: 2048,
        transformers_version: TRANSFORMERS_VERSION,
      },
    };
  }
  const smol = s.tokenizer === 'smollm';
  const [bos, eos] = smol ? [0, 0] : [1, 2];
  const config = sorted({
    ...common(bos, eos),
    architectures: ['LlamaForCausalLM'],
    attention_bias: false,
    model_type: 'llama',
    pretraining_tp: 1,
    rope_scaling: s.ropeScaling ?? null,
  });
  const generation = smol
    ? { _from_model_config: true, bos_token_id: bos, eos_token_id: eos, transformers_version: TRANSFORMERS_VERSION }
    : {
        bos_token_id: bos,
        eos_token_id: eos,
        max_length: 2048,
        pad_token_id: 0,
        transformers_version: TRANSFORMERS_VERSION,
      };
  return { config, generation };
}

/** tokenizer.json and the files beside it, for the fixture's tokenizer style. */
async function causalTokenizerFiles(s) {
  const { byteLevelBpe, sentencePieceBpe } = await import('./fixture-tokenizers.mjs');
  const added = (tokens) =>
    Object.fromEntries(
      Object.entries(tokens).map(([content, id]) => [
        String(id),
        { content, lstrip: false, normalized: false, rstrip: false, single_word: false, special: true },
      ]),
    );
  if (s.tokenizer === 'sentencepiece') {
    const t = sentencePieceBpe({ merges: s.merges });
    const config = {
      add_bos_token: true,
      add_eos_token: false,
      added_tokens_decoder: added(t.specials),
      bos_token: '<s>',
      clean_up_tokenization_spaces: false,
      eos_token: '</s>',
      legacy: false,
      model_max_length: s.positions,
      pad_token: '</s>',
      padding_side: 'right',
      sp_model_kwargs: {},
      tokenizer_class: 'LlamaTokenizer',
      unk_token: '<unk>',
      use_default_system_prompt: false,
    };
    return { t, files: { 'tokenizer.json': t.tokenizer, 'tokenizer_config.json': config } };
  }
  const t = byteLevelBpe({ merges: s.merges, style: s.tokenizer });
  const files = {
    'tokenizer.json': t.tokenizer,
    'vocab.json': Object.fromEntries(Object.entries(t.vocab).filter(([token]) => !(token in t.specials))),
    'merges.txt': `#version: 0.2\n${t.merges.map(([a, b]) => `${a} ${b}`).join('\n')}\n`,
  };
  files['tokenizer_config.json'] =
    s.tokenizer === 'gpt2'
      ? { model_max_length: s.positions } // openai-community/gpt2's whole tokenizer_config.json
      : {
          add_prefix_space: false,
          added_tokens_decoder: added(t.specials),
          additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
          bos_token: '<|endoftext|>',
          clean_up_tokenization_spaces: false,
          eos_token: '<|endoftext|>',
          model_max_length: s.positions,
          tokenizer_class: 'GPT2Tokenizer',
          unk_token: '<|endoftext|>',
          vocab_size: t.size,
        };
  return { t, files };
}

/** A GPT-2 or Llama fixture: { files, config, weights, spec, tokenizer: {specials} }. */
async function causalFixture(s) {
  const { t, files: tokenizerFiles } = await causalTokenizerFiles(s);
  const { config, generation } = causalConfigs(s, t.size, t.specials);
  const draw = drawer(s.dtype, random(s.seed));
  const specs = causalTensorSpecs(config, { prefixed: s.prefixed ?? true, buffers: s.layout === 'original' });
  const weights = new Map();
  const tensors = specs.map(([name, shape, kind]) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float64Array(n);
    if (kind === 'mask') {
      const P = shape[3];
      for (let i = 0; i < P; i++) for (let j = 0; j <= i; j++) data[i * P + j] = 1; // torch.tril(ones)
    } else {
      const [center, scale] = { w: [0, 0.5], b: [0, 0.25], ln: [1, 0.25], lnb: [0, 0.25], e: [0, 1] }[kind];
      for (let i = 0; i < n; i++) data[i] = draw(center, scale);
      // the reference's names: GPT-2's without 'transformer.' (GPT2Model's), Llama's as in the file
      weights.set(name.replace(/^transformer\./, ''), { data, shape });
    }
    return { name, shape, dtype: s.dtype, data };
  });
  const text = (x) => new TextEncoder().encode(typeof x === 'string' ? x : JSON.stringify(x, null, 2));
  const files = {
    'config.json': text(config),
    'generation_config.json': text(generation),
    'model.safetensors': safetensors(tensors, s.seed),
  };
  for (const [file, content] of Object.entries(tokenizerFiles)) files[file] = text(content);
  return { files, config, generation, weights, spec: s, tokenizer: { specials: t.specials, size: t.size } };
}

// Folders are named after this script's contents (and its tokenizers'): a changed generator
// writes new ones.
const VERSION = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .update(readFileSync(fileURLToPath(new URL('fixture-tokenizers.mjs', import.meta.url))))
  .digest('hex')
  .slice(0, 10);

/**
 * Writes a fixture's folder under `root` (once: an existing folder is kept) and returns its
 * path. Written to a temporary folder and renamed, so that test files running in parallel
 * never see half a folder.
 */
export async function writeFixture(name, root = fileURLToPath(new URL('../build/fixtures/', import.meta.url))) {
  const dir = join(root, `${name}-${VERSION}`);
  if (existsSync(join(dir, 'config.json'))) return dir;
  mkdirSync(root, { recursive: true });
  const { files } = await fixture(name);
  const tmp = mkdtempSync(join(root, `.${name}-`));
  for (const [file, bytes] of Object.entries(files)) writeFileSync(join(tmp, file), bytes);
  try {
    renameSync(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true }); // another process wrote it first
    if (!existsSync(join(dir, 'config.json'))) throw e;
  }
  return dir;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = process.argv[2] ?? fileURLToPath(new URL('../build/fixtures/', import.meta.url));
  for (const name of Object.keys(FIXTURES)) console.log(await writeFixture(name, root));
}
