// torch.nn.functional.scaled_dot_product_attention with torch's semantics:
//   out = softmax(scale * Q K^T + M) V
// query (N..., Hq, L, E), key (N..., H, S, E), value (N..., H, S, Ev) -> out (N..., Hq, L, Ev).
// Leading dims broadcast; with enable_gqa, H divides Hq and query head h reads key/value head
// h / (Hq / H). M comes from attn_mask (float: added; bool: true = takes part, false = -inf) or
// is_causal (upper-left tril(ones(L, S))). A row with nothing to attend to gives zeros.
//
// The pretrained encoders (src/models) call it on (N, H, L, Dh) tensors with a float
// key-padding mask (N, 1, 1, S): the fused kernel over the thread pool, the mask read in place.
#pragma once
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/tensor.hpp"

namespace aw {

struct SdpaOptions {
  const TensorRef* float_mask = nullptr;     // broadcastable to (N..., L, S); added to the scores
  const BoolTensorRef* bool_mask = nullptr;  // broadcastable to (N..., L, S); 1 = takes part
  bool is_causal = false;
  std::optional<double> scale;  // default 1 / sqrt(E)
  bool enable_gqa = false;
  bool return_weights = false;
  bool return_intermediates = false;  // scores (Q K^T), scaled, masked, weights
  // Without weights to return, the fused kernel (kernels/flash_attention) runs in O(tile) memory;
  // true forces the materialised (L, S) head kernel instead (tests compare the two).
  bool force_materialized = false;
  // The function that messages name (marked with api_name when it is torch's): a caller that
  // exposes this op under its own name passes it (MultiheadAttention.forward).
  std::string function = api_name("scaled_dot_product_attention");
};

struct SdpaResult {
  Tensor output;                  // (N..., Hq, L, Ev)
  Tensor weights;                 // (N..., Hq, L, S) when return_weights or return_intermediates
  Tensor scores, scaled, masked;  // (N..., Hq, L, S) when return_intermediates
};

SdpaResult scaled_dot_product_attention(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                                        const SdpaOptions& options = {});

}  // namespace aw
