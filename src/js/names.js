// The JS API's names for what the C++ API's messages name in torch's spelling. The C++ marks
// each such name (api_name() in src/core/error.hpp); every module instance hands this table to
// its bindings once (AttentionWasm's constructor), which spell each marked name of every error
// message from it. A marked name not listed here is the same in both APIs (a parameter's
// state-dict name such as in_proj_weight, say). tests/js/names.test.mjs checks that every name the
// C++ sources mark is listed.
export const JS_NAMES = Object.freeze({
  scaled_dot_product_attention: 'scaledDotProductAttention',
  attn_mask: 'attnMask',
  is_causal: 'isCausal',
  enable_gqa: 'enableGqa',
  layer_norm: 'layerNorm',
  normalized_shape: 'normalizedShape',
  positional_encoding: 'positionalEncoding',
  max_length: 'maxLength',
  d_model: 'dModel',
  key_padding_mask: 'keyPaddingMask',
  embed_dim: 'embedDim',
  num_heads: 'numHeads',
  batch_first: 'batchFirst',
  src_mask: 'srcMask',
  src_key_padding_mask: 'srcKeyPaddingMask',
  dim_feedforward: 'dimFeedforward',
  cosine_similarity: 'cosineSimilarity',
  // pretrained models (src/models/model.cpp): transformers' model(input_ids, ...) is model.forward
  'encoder.forward': 'model.forward',
  word_embeddings: 'model.wordEmbeddings',
  input_ids: 'inputIds',
  attention_mask: 'attentionMask',
  token_type_ids: 'tokenTypeIds',
  hidden_states: 'hiddenStates',
  max_position_embeddings: 'maxPositions',
  // causal language models (src/models/causal_lm.cpp): transformers' model(input_ids, ...) is lm.forward
  'lm.forward': 'lm.forward',
  position_ids: 'positionIds',
  cache: 'cache',
});
