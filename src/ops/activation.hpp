#pragma once
#include <string>

#include "core/tensor.hpp"

namespace aw {

// torch.relu(input): max(x, 0); NaN stays NaN.
Tensor relu(const TensorRef& input);

// torch.nn.functional.gelu(input, approximate): approximate "none" (exact, erf) or "tanh".
Tensor gelu(const TensorRef& input, const std::string& approximate = "none");

}  // namespace aw
