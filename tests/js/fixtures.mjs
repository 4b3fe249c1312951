// The tiny Hugging Face model folders of scripts/make-fixtures.mjs, written into build/fixtures/
// on first use (deterministic; never committed), with the weights as drawn for the float64
// references (tests/js/reference/encoder.mjs, causal.mjs).
import { FIXTURES, fixture, writeFixture } from '../../scripts/make-fixtures.mjs';

export { FIXTURES };
/** The encoder fixtures (distilbert-*, bert-*) and the causal LMs' (gpt2-*, llama-*, qwen2-*), by name. */
export const ENCODER_FIXTURES = Object.keys(FIXTURES).filter((n) => ['distilbert', 'bert'].includes(FIXTURES[n].arch));
export const CAUSAL_FIXTURES = Object.keys(FIXTURES).filter((n) =>
  ['gpt2', 'llama', 'qwen2'].includes(FIXTURES[n].arch),
);

/** { dir, files: {name: Uint8Array}, config, weights: Map, spec } */
export async function loadFixture(name) {
  const dir = await writeFixture(name);
  return { dir, ...(await fixture(name)) };
}

/** The two sentences of document 004, E4.6. */
export const S1 = 'Write a poem about a man fishing on a river bank.';
export const S2 = 'Write a poem about a man withdrawing money from a bank.';

/**
 * A DistilBERT config.json and the safetensors header of its tensors (F32, back to back, data
 * not written): what the raw glue's _modelOpen reads. { config, header: Uint8Array, dataBytes }.
 * `edit(header)` may change the header object before it is encoded.
 */
export function distilbertHeader({ vocab = 10, dim = 4, ffn = 6, positions = 8, heads = 2 } = {}, edit = (h) => h) {
  const config = {
    model_type: 'distilbert',
    vocab_size: vocab,
    dim,
    n_layers: 1,
    n_heads: heads,
    hidden_dim: ffn,
    max_position_embeddings: positions,
  };
  const P = 'transformer.layer.0.';
  const shapes = [
    ['embeddings.word_embeddings.weight', [vocab, dim]],
    ['embeddings.position_embeddings.weight', [positions, dim]],
    ['embeddings.LayerNorm.weight', [dim]],
    ['embeddings.LayerNorm.bias', [dim]],
    ...['q_lin', 'k_lin', 'v_lin', 'out_lin'].flatMap((l) => [
      [`${P}attention.${l}.weight`, [dim, dim]],
      [`${P}attention.${l}.bias`, [dim]],
    ]),
    ...['sa_layer_norm', 'output_layer_norm'].flatMap((l) => [
      [`${P}${l}.weight`, [dim]],
      [`${P}${l}.bias`, [dim]],
    ]),
    [`${P}ffn.lin1.weight`, [ffn, dim]],
    [`${P}ffn.lin1.bias`, [ffn]],
    [`${P}ffn.lin2.weight`, [dim, ffn]],
    [`${P}ffn.lin2.bias`, [dim]],
  ];
  let offset = 0;
  const header = {};
  for (const [name, shape] of shapes) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  return { config, header: new TextEncoder().encode(JSON.stringify(edit(header))), dataBytes: offset };
}
