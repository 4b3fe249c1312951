#include "ops/elementwise.hpp"

#include "core/error.hpp"
#include "kernels/elementwise.hpp"

namespace aw {
namespace {

using BinaryKernel = void (*)(const float*, std::size_t, const float*, std::size_t, float*, std::size_t);

// Broadcasts input and other to their common shape and runs `kernel` over its rows (last dim):
// each operand's row is found with broadcast_offsets over the leading dims, and its last dim is
// either contiguous (step 1) or a single stretched value (step 0).
Tensor broadcast_binary(const TensorRef& input, const TensorRef& other, const std::string& fn, BinaryKernel kernel) {
  const Shape out_shape = broadcast_shapes(
      input.shape, other.shape, fn + ": input " + shape_str(input.shape) + " and other " + shape_str(other.shape));
  Tensor out = make_tensor(out_shape, fn + ": result");
  if (out.data.empty()) return out;
  // View everything with at least one dim: a 0-d result is one row of one value.
  const std::size_t rank = std::max<std::size_t>(out_shape.size(), 1);
  const Shape o = left_padded(out_shape, rank), a = left_padded(input.shape, rank), b = left_padded(other.shape, rank);
  const auto n = static_cast<std::size_t>(o.back());
  const auto a_len = static_cast<std::size_t>(a.back()), b_len = static_cast<std::size_t>(b.back());
  const Shape lead = leading_dims(o, 1);
  const auto a_rows = broadcast_offsets(lead, leading_dims(a, 1));
  const auto b_rows = broadcast_offsets(lead, leading_dims(b, 1));
  for (std::size_t r = 0; r < a_rows.size(); ++r)
    kernel(input.data + a_rows[r] * a_len, a_len == n ? 1 : 0, other.data + b_rows[r] * b_len, b_len == n ? 1 : 0,
           out.data.data() + r * n, n);
  return out;
}

}  // namespace

Tensor add(const TensorRef& input, const TensorRef& other) {
  return broadcast_binary(input, other, "add", kernels::add);
}

Tensor mul(const TensorRef& input, const TensorRef& other) {
  return broadcast_binary(input, other, "mul", kernels::mul);
}

}  // namespace aw
