#pragma once
#include "core/tensor.hpp"

namespace aw {

// torch.add(input, other): input + other, shapes broadcast as torch (align right, 1 stretches).
Tensor add(const TensorRef& input, const TensorRef& other);

// torch.mul(input, other): input * other, broadcast as add.
Tensor mul(const TensorRef& input, const TensorRef& other);

}  // namespace aw
