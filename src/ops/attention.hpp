// torch.nn.functional.scaled_dot_product_attention with torch's semantics:
//   out = softmax(scale * Q K^T + M) V
// query (N..., Hq, L, E), key (N..., H, S, E), value (N..., H, S, Ev) -> out (N..., Hq, L, Ev).
// Leading dims broadcast; with enable_gqa, H divides Hq and query head h reads key/value head
// h / (Hq / H). M comes from attn_mask (float: added; bool: true = takes part, false = -inf) or
// is_causal (upper-left tril(ones(L, S))). A row with nothing to attend to gives zeros.
//
// The transformer block (src/models/transformer_block) calls it on (N, H, L, Dh) tensors with a
// float key-padding mask (N, 1, 1, S): the fused kernel over the thread pool, the mask read in
// place; with a KV cache, on the cache's first S rows (key_value_capacity) with the causal mask
// aligned to the bottom-right (causal_lower_right).
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
  // Not torch's SDPA arguments (the transformer block's, for a KV cache):
  // causal_lower_right: causal aligned to the bottom-right, as torch.nn.attention.bias's
  // causal_lower_right: query i sees keys j <= i + S - L (the L queries are the last of S
  // positions); L <= S. Unlike is_causal it combines with float_mask (a key-padding mask).
  bool causal_lower_right = false;
  // key_value_capacity: key and value are the first S rows of matrices of this many rows each
  // (a KV cache of that capacity: (..., H, capacity, E) in memory, of which the shape's S are
  // read); 0: S, the usual contiguous layout.
  std::size_t key_value_capacity = 0;
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
