// The encoder benchmarks' model (scripts/bench-encoder.mjs in Node, scripts/bench-browser/encoder.mjs
// in Chromium): DistilBERT-base's config, random weights by transformers' names, its safetensors
// bytes and the token ids of a run. No Node modules: the page imports it too.

export const DISTILBERT_BASE = {
  activation: 'gelu',
  architectures: ['DistilBertModel'],
  dim: 768,
  hidden_dim: 3072,
  max_position_embeddings: 512,
  model_type: 'distilbert',
  n_heads: 12,
  n_layers: 6,
  pad_token_id: 0,
  sinusoidal_pos_embds: false,
  vocab_size: 30522,
};

/** The encoder's tensors (transformers' names), random: weights U(-0.05, 0.05), LayerNorm weights 1, biases 0.01. */
export function randomTensors(config, seed = 1) {
  const { dim: D, hidden_dim: F, n_layers: layers, vocab_size: V, max_position_embeddings: P } = config;
  let x = seed >>> 0;
  const fill = (n, f) => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0; // xorshift32
      a[i] = f((x / 4294967296) * 2 - 1);
    }
    return a;
  };
  const tensors = new Map();
  const add = (name, shape, f = (u) => 0.05 * u) =>
    tensors.set(name, {
      data: fill(
        shape.reduce((a, b) => a * b, 1),
        f,
      ),
      shape,
    });
  const norm = (name) => {
    add(`${name}.weight`, [D], () => 1);
    add(`${name}.bias`, [D], () => 0);
  };
  const linear = (name, out, inp) => {
    add(`${name}.weight`, [out, inp]);
    add(`${name}.bias`, [out], () => 0.01);
  };
  add('embeddings.word_embeddings.weight', [V, D]);
  add('embeddings.position_embeddings.weight', [P, D]);
  norm('embeddings.LayerNorm');
  for (let i = 0; i < layers; i++) {
    const p = `transformer.layer.${i}`;
    for (const n of ['q_lin', 'k_lin', 'v_lin', 'out_lin']) linear(`${p}.attention.${n}`, D, D);
    norm(`${p}.sa_layer_norm`);
    linear(`${p}.ffn.lin1`, F, D);
    linear(`${p}.ffn.lin2`, D, F);
    norm(`${p}.output_layer_norm`);
  }
  return tensors;
}

/** The safetensors file of `tensors` (F32, in insertion order): [header length, header, data]. */
export function safetensorsParts(tensors) {
  const header = {};
  let offset = 0;
  for (const [name, t] of tensors) {
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const length = new Uint8Array(8);
  new DataView(length.buffer).setUint32(0, json.length, true);
  return [
    length,
    json,
    ...[...tensors.values()].map((t) => new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength)),
  ];
}

/** L token ids: [CLS], L - 2 pseudo-random word pieces, [SEP] (the same in every benchmark). */
export function encoderIds(L) {
  let x = 7 + L;
  return Array.from({ length: L }, (_, i) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return i === 0 ? 101 : i === L - 1 ? 102 : 1000 + (x % 29000);
  });
}

/** The cosine of each token's row (dim values) of a to the same row of b (q8 against
 * float32 in the encoder benchmarks). */
export function tokenCosines(a, b, dim) {
  return Array.from({ length: a.length / dim }, (_, t) => {
    let ab = 0,
      aa = 0,
      bb = 0;
    for (let d = t * dim; d < (t + 1) * dim; d++) ((ab += a[d] * b[d]), (aa += a[d] * a[d]), (bb += b[d] * b[d]));
    return ab / Math.sqrt(aa * bb);
  });
}
