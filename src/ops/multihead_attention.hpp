// torch.nn.MultiheadAttention's forward (F.multi_head_attention_forward) for inference:
//   q = query Wq^T + bq,  k = key Wk^T + bk,  v = value Wv^T + bv       (in projection)
//   split the E features into num_heads heads of head_dim = E / num_heads: (N, H, L|S, Dh)
//   o = SDPA(q, k, v, M)                                                (ops/attention: all heads
//       at once, the fused kernel over the thread pool; materialised when weights are returned)
//   output = concat_h(o_h) Wo^T + bo                                    (out projection)
//
// Shapes (E = embed_dim, H = num_heads):
//   query (L, N, E), key (S, N, kdim), value (S, N, vdim); batch_first: (N, L, E) ...;
//   unbatched: (L, E), (S, kdim), (S, vdim).
//   output (L, N, E) / (N, L, E) / (L, E);
//   weights (N, L, S) averaged over heads, or (N, H, L, S); unbatched (L, S) / (H, L, S).
// Masks use torch's MHA polarity: a boolean key_padding_mask (N, S) / (S) or attn_mask
// (L, S) / (N*H, L, S) is true where a position must NOT be attended to; float masks are added
// to the scores. Both become one additive mask M = attn_mask + key_padding_mask, as torch merges
// them, in the smallest form that broadcasts: (N, 1, 1, S) for key padding alone, (L, S) or
// (N, H, L, S) for attn_mask alone, (N, H|1, L, S) for both. is_causal adds the upper-left causal
// mask tril(ones(L, S)) (torch takes it as a hint about attn_mask and requires one; here it may
// stand alone). A query row with nothing to attend to gives output 0 and weights 0 (torch's
// need_weights path gives NaN there).
#pragma once
#include <string>

#include "core/error.hpp"
#include "core/tensor.hpp"
#include "ops/linear_weight.hpp"
#include "ops/quantized_linear.hpp"

namespace aw {

// Parameters, torch's names. Either in_proj_weight (3E, E) (kdim == vdim == E) or the three
// separate q (E, E), k (E, kdim), v (E, vdim) weights. Biases may be null (bias=False). The out
// projection's weight may be int8 instead (out_proj_weight_q8; ops/quantized_linear).
struct MhaParams {
  const TensorRef* in_proj_weight = nullptr;   // (3E, E)
  const TensorRef* q_proj_weight = nullptr;    // (E, E)
  const TensorRef* k_proj_weight = nullptr;    // (E, kdim)
  const TensorRef* v_proj_weight = nullptr;    // (E, vdim)
  const TensorRef* in_proj_bias = nullptr;     // (3E)
  const TensorRef* out_proj_weight = nullptr;  // (E, E)
  const TensorRef* out_proj_bias = nullptr;    // (E)
  // (E, E) int8, in place of out_proj_weight
  const QuantizedLinearWeight* out_proj_weight_q8 = nullptr;
};

// A module's linear layer whose weight is float32 (w, torch's layout) or int8 (w_q8), whichever
// is set: its shape ({} for neither), and the LinearWeight the ops run (ops/linear_weight.hpp).
Shape weight_shape(const TensorRef* w, const QuantizedLinearWeight* w_q8);
LinearWeight module_linear(const TensorRef* w, const QuantizedLinearWeight* w_q8, const TensorRef* b);

// How messages name the function and its masks (torch's names, marked with api_name): a caller
// that exposes this op under its own names passes them (TransformerEncoderLayer: src_mask,
// src_key_padding_mask).
struct MhaNames {
  std::string function = "MultiheadAttention.forward";
  std::string key_padding_mask = api_name("key_padding_mask");
  std::string attn_mask = api_name("attn_mask");
};

struct MhaOptions {
  std::int64_t num_heads = 1;
  bool batch_first = false;
  const TensorRef* key_padding_mask_float = nullptr;     // (N, S) or (S) unbatched; added
  const BoolTensorRef* key_padding_mask_bool = nullptr;  // true = ignore this key
  const TensorRef* attn_mask_float = nullptr;            // (L, S) or (N*H, L, S); added
  const BoolTensorRef* attn_mask_bool = nullptr;         // true = not allowed
  bool is_causal = false;
  bool need_weights = true;
  bool average_attn_weights = true;
  MhaNames names;
};

struct MhaResult {
  Tensor output;   // like query
  Tensor weights;  // when need_weights
};

MhaResult multihead_attention(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                              const MhaParams& params, const MhaOptions& options);

// An additive mask for SDPA and its storage (ref.data nullptr: none).
struct MergedMask {
  Tensor storage;
  TensorRef ref;
};

// Every check multihead_attention makes (parameters, inputs, masks; the same messages), then the
// mask it would give SDPA: attn_mask + key_padding_mask in the smallest form that broadcasts over
// (N, H, L, S), with is_causal folded in when there is a mask. TransformerEncoderLayer runs the
// same self-attention through the transformer block (models/transformer_block) with it.
MergedMask check_multihead_attention(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                                     const MhaParams& params, const MhaOptions& options);

}  // namespace aw
