// What the two attention ops (SDPA, ops/attention; MultiheadAttention, ops/multihead_attention)
// share: the one conversion of a boolean mask into an additive one, and how their messages name
// the inputs.
#pragma once
#include <string>

#include "core/tensor.hpp"

namespace aw {

// What `true` means in a boolean mask: torch's SDPA and MultiheadAttention use opposite polarities.
enum class BoolMaskMeaning {
  TakesPart,  // SDPA's attn_mask: true = may be attended to, false = masked
  Masked,     // MultiheadAttention's key_padding_mask / attn_mask: true = masked
};

// The additive float mask of a boolean one: 0 where a position takes part, -inf where it is
// masked. Same shape; `where` names the mask in an out-of-memory message.
Tensor additive_mask(const BoolTensorRef& mask, BoolMaskMeaning meaning, const std::string& where);

// "query [2, 3, 4], key [2, 5, 4], value [2, 5, 6]": the inputs' shapes, for messages.
std::string describe_qkv(const TensorRef& query, const TensorRef& key, const TensorRef& value);

}  // namespace aw
