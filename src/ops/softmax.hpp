#pragma once
#include "core/tensor.hpp"

namespace aw {

// torch.softmax(input, dim): exp(x_i - max) / sum_j exp(x_j - max) along `dim`.
// A slice that is all -inf gives zeros (torch's _safe_softmax) rather than NaN.
Tensor softmax(const TensorRef& input, std::int64_t dim);

}  // namespace aw
