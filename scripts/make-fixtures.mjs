// Tiny random DistilBERT and BERT models in Hugging Face's folder layout, for the tests
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
// The weights are drawn on grids that the file's dtype holds exactly (k / 1024 for F16, k / 128
// for BF16, float32 for F32), so the float64 reference can use the values as drawn.
//
// Usage: node scripts/make-fixtures.mjs [folder]   (default build/fixtures)
//        import { fixture } from './scripts/make-fixtures.mjs'   -> { files, config, weights, spec }
import { mkdirSync, writeFileSync, renameSync, rmSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rng as random } from '../tests/js/reference/random.mjs'; // seeded Mulberry32 in [0, 1)

const DIST = new URL('../dist/', import.meta.url);

/** The fixtures: architecture, sizes, dtype and how the folder is laid out. */
export const FIXTURES = {
  // distilbert-base-uncased's layout: prefixed names, the masked-LM head, every tokenizer file
  'distilbert-f32': {
    arch: 'distilbert',
    dtype: 'F32',
    dim: 18,
    heads: 3,
    ffn: 37,
    layers: 2,
    positions: 40,
    activation: 'gelu',
    prefixed: true,
    heads_mlm: true,
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 11,
  },
  // distilbert-base-uncased's 6 layers x 12 heads and 512 positions at a tiny width (3 per head):
  // the page's model view at the real model's size, and sequences of up to 512 tokens
  'distilbert-6x12': {
    arch: 'distilbert',
    dtype: 'F32',
    dim: 36,
    heads: 12,
    ffn: 37,
    layers: 6,
    positions: 512,
    activation: 'gelu',
    prefixed: true,
    heads_mlm: false,
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 14,
  },
  // bare names, no head, relu, only vocab.txt
  'distilbert-f16': {
    arch: 'distilbert',
    dtype: 'F16',
    dim: 18,
    heads: 3,
    ffn: 37,
    layers: 2,
    positions: 40,
    activation: 'relu',
    prefixed: false,
    heads_mlm: false,
    tokenizer: ['vocab.txt'],
    seed: 12,
  },
  'distilbert-bf16': {
    arch: 'distilbert',
    dtype: 'BF16',
    dim: 18,
    heads: 3,
    ffn: 37,
    layers: 2,
    positions: 40,
    activation: 'gelu',
    prefixed: true,
    heads_mlm: false,
    tokenizer: ['tokenizer.json'],
    seed: 13,
  },
  // bert-base-uncased's layout: 'bert.' prefix, pooler, pretraining heads, gamma/beta LayerNorm names
  'bert-f32': {
    arch: 'bert',
    dtype: 'F32',
    dim: 20,
    heads: 4,
    ffn: 43,
    layers: 2,
    positions: 40,
    activation: 'gelu',
    prefixed: true,
    heads_mlm: true,
    pooler: true,
    gammaBeta: true,
    tokenizer: ['vocab.txt'],
    seed: 21,
  },
  // a sentence-transformers BERT (all-MiniLM-L6-v2's layout): bare names, pooler, position_ids buffer
  'bert-bf16': {
    arch: 'bert',
    dtype: 'BF16',
    dim: 20,
    heads: 4,
    ffn: 43,
    layers: 3,
    positions: 40,
    activation: 'gelu_new',
    prefixed: false,
    heads_mlm: false,
    pooler: true,
    positionIds: true,
    tokenizer: ['tokenizer.json', 'vocab.txt'],
    seed: 22,
  },
  // no pooler (BertModel(add_pooling_layer=False)), F16
  'bert-f16': {
    arch: 'bert',
    dtype: 'F16',
    dim: 20,
    heads: 4,
    ffn: 43,
    layers: 2,
    positions: 40,
    activation: 'relu',
    prefixed: false,
    heads_mlm: false,
    pooler: false,
    tokenizer: ['vocab.txt'],
    seed: 23,
  },
};

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
  if (s.heads_mlm && s.arch === 'distilbert') {
    // DistilBertForMaskedLM
    named.push(
      ['vocab_transform.weight', [D, D], 'w'],
      ['vocab_transform.bias', [D], 'b'],
      ['vocab_layer_norm.weight', [D], 'ln'],
      ['vocab_layer_norm.bias', [D], 'lnb'],
      ['vocab_projector.weight', [V, D], 'e'],
      ['vocab_projector.bias', [V], 'b'],
    );
  }
  if (s.heads_mlm && s.arch === 'bert') {
    // BertForPreTraining
    named.push(
      ['cls.predictions.bias', [V], 'b'],
      ['cls.predictions.transform.dense.weight', [D, D], 'w'],
      ['cls.predictions.transform.dense.bias', [D], 'b'],
      ['cls.predictions.transform.LayerNorm.gamma', [D], 'ln'],
      ['cls.predictions.transform.LayerNorm.beta', [D], 'lnb'],
      ['cls.predictions.decoder.weight', [V, D], 'e'],
      ['cls.seq_relationship.weight', [2, D], 'w'],
      ['cls.seq_relationship.bias', [2], 'b'],
    );
  }
  return { named, prefix };
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
 * Builds a fixture in memory: { files: {name: Uint8Array}, config, weights: Map(bare name ->
 * {data: Float64Array, shape}) of the values written, spec }.
 */
export async function fixture(name) {
  const s = FIXTURES[name];
  if (!s) throw new Error(`make-fixtures: no fixture ${name}`);
  const vocabText = readFileSync(new URL('vocab-bert-base-uncased.txt', DIST), 'utf8');
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

  // the data section in a shuffled order, the header keys in another (readers must sort by offset)
  const order = tensors
    .map((_, i) => i)
    .sort((a, b) => ((a * 7919 + s.seed) % 101) - ((b * 7919 + s.seed) % 101) || a - b);
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

  const config =
    s.arch === 'distilbert'
      ? {
          activation: s.activation,
          architectures: [s.heads_mlm ? 'DistilBertForMaskedLM' : 'DistilBertModel'],
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
          architectures: [s.heads_mlm ? 'BertForPreTraining' : 'BertModel'],
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

// Folders are named after this script's contents: a changed generator writes new ones.
const VERSION = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
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
