#include "ops/activation.hpp"

#include "core/error.hpp"
#include "kernels/activation.hpp"

namespace aw {

Tensor relu(const TensorRef& input) {
  Tensor out = make_tensor(input.shape, "relu: result");
  kernels::relu(input.data, out.data.data(), out.data.size());
  return out;
}

Tensor gelu(const TensorRef& input, const std::string& approximate) {
  if (approximate != "none" && approximate != "tanh")
    fail(ErrorKind::Range, "gelu: approximate must be 'none' or 'tanh', got '" + approximate + "' (input " +
                               shape_str(input.shape) + ")");
  Tensor out = make_tensor(input.shape, "gelu: result");
  if (approximate == "tanh")
    kernels::gelu_tanh(input.data, out.data.data(), out.data.size());
  else
    kernels::gelu(input.data, out.data.data(), out.data.size());
  return out;
}

}  // namespace aw
