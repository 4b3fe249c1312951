#include "ops/softmax.hpp"

#include "kernels/softmax.hpp"

namespace aw {

Tensor softmax(const TensorRef& input, std::int64_t dim) {
  const std::size_t d = normalize_dim(dim, input.shape.size(), "softmax: dim for input " + shape_str(input.shape));
  Tensor out = make_tensor(input.shape, "softmax: result");
  if (out.data.empty()) return out;
  // View the input as (outer, n, inner) around `dim`.
  std::size_t outer = 1, n = 1, inner = 1;
  for (std::size_t i = 0; i < input.shape.size(); ++i) {
    const auto s = static_cast<std::size_t>(input.shape[i]);
    if (i < d)
      outer *= s;
    else if (i == d)
      n = s;
    else
      inner *= s;
  }
  kernels::softmax(input.data, out.data.data(), outer, n, inner);
  return out;
}

}  // namespace aw
