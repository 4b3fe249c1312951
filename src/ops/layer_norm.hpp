#pragma once
#include "core/tensor.hpp"

namespace aw {

// torch.nn.functional.layer_norm(input, normalized_shape, weight, bias, eps): normalises over the
// trailing dims given by normalized_shape (biased variance):
//   out = (x - mean) * rsqrt(var + eps) * weight + bias
// weight and bias (each optional, nullptr for none) have shape normalized_shape. eps >= 0.
Tensor layer_norm(const TensorRef& input, const Shape& normalized_shape, const TensorRef* weight, const TensorRef* bias,
                  double eps);

}  // namespace aw
