#include "ops/attention_mask.hpp"

#include <limits>

namespace aw {

Tensor additive_mask(const BoolTensorRef& mask, BoolMaskMeaning meaning, const std::string& where) {
  Tensor out = make_uninitialised_tensor(mask.shape, where);  // every element is written below
  const bool masked_value = meaning == BoolMaskMeaning::Masked;
  const float minus_infinity = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < out.data.size(); ++i)
    out.data[i] = (mask.data[i] != 0) == masked_value ? minus_infinity : 0.0f;
  return out;
}

std::string describe_qkv(const TensorRef& query, const TensorRef& key, const TensorRef& value) {
  return "query " + shape_str(query.shape) + ", key " + shape_str(key.shape) + ", value " + shape_str(value.shape);
}

}  // namespace aw
