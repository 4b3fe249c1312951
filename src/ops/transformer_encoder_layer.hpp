// torch.nn.TransformerEncoderLayer's forward for inference (dropout off):
//   post-norm (norm_first = false):  x = norm1(x + SA(x));        x = norm2(x + FF(x))
//   pre-norm  (norm_first = true):   x = x + SA(norm1(x));        x = x + FF(norm2(x))
//   SA(x) = self_attn(x, x, x, src_mask, src_key_padding_mask, is_causal).output
//   FF(x) = linear2(activation(linear1(x)))       activation: relu or exact gelu
// src (L, N, E) / (N, L, E) with batch_first / (L, E) unbatched -> output of the same shape.
// Masks follow MultiheadAttention (torch's MHA polarity: boolean true = not allowed / ignore).
//
// The layer is the library's one transformer block (models/transformer_block: post- or pre-norm
// LayerNorm, relu or gelu, no cache), run on the weights as given (LinearFormat::Rows), after
// MultiheadAttention's own checks of its arguments.
#pragma once
#include "models/transformer_block.hpp"
#include "ops/multihead_attention.hpp"

namespace aw {

struct EncoderLayerParams {
  MhaParams self_attn;                        // in_proj_weight (3E, E) ...
  const TensorRef* linear1_weight = nullptr;  // (F, E)
  const TensorRef* linear1_bias = nullptr;    // (F) or null
  const TensorRef* linear2_weight = nullptr;  // (E, F)
  const TensorRef* linear2_bias = nullptr;    // (E) or null
  const TensorRef* norm1_weight = nullptr;    // (E) or null (1)
  const TensorRef* norm1_bias = nullptr;      // (E) or null (0)
  const TensorRef* norm2_weight = nullptr;
  const TensorRef* norm2_bias = nullptr;
  // int8 in place of linear1_weight / linear2_weight (ops/quantized_linear)
  const QuantizedLinearWeight* linear1_weight_q8 = nullptr;
  const QuantizedLinearWeight* linear2_weight_q8 = nullptr;
};

struct EncoderLayerOptions {
  MhaOptions attn;  // num_heads, batch_first, masks, is_causal (need_weights is ignored)
  bool norm_first = false;
  Activation activation = Activation::Relu;  // relu or gelu (torch's two)
  float eps = 1e-5f;
};

Tensor transformer_encoder_layer(const TensorRef& src, const EncoderLayerParams& params,
                                 const EncoderLayerOptions& options);

}  // namespace aw
