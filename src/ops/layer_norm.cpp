#include "ops/layer_norm.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "kernels/layer_norm.hpp"

namespace aw {

Tensor layer_norm(const TensorRef& input, const Shape& normalized_shape, const TensorRef* weight, const TensorRef* bias,
                  double eps) {
  const std::string fn = api_name("layer_norm"), norm = api_name("normalized_shape");
  const Shape& x = input.shape;
  std::string shapes = "input " + shape_str(x) + ", " + norm + " " + shape_str(normalized_shape);
  if (weight) shapes += ", weight " + shape_str(weight->shape);
  if (bias) shapes += ", bias " + shape_str(bias->shape);
  const std::size_t n = checked_numel(normalized_shape, fn + ": " + norm);
  if (!(eps >= 0.0)) {  // also NaN
    std::ostringstream got;
    got << eps;
    fail(ErrorKind::Range, fn + ": eps must be non-negative, got " + got.str() + " (input " + shape_str(x) + ")");
  }
  if (normalized_shape.empty())
    fail(ErrorKind::Shape, fn + ": " + norm + " must have at least 1 dimension, got " + shapes);
  const std::size_t k = normalized_shape.size();
  if (k > x.size() ||
      !std::equal(normalized_shape.begin(), normalized_shape.end(), x.end() - static_cast<std::ptrdiff_t>(k)))
    fail(ErrorKind::Shape, fn + ": input must end with the dims of " + norm + " (expected [*, " +
                               shape_str(normalized_shape).substr(1) + "), got " + shapes);
  for (const auto& [t, name] : {std::pair{weight, "weight"}, std::pair{bias, "bias"}})
    if (t && t->shape != normalized_shape)
      fail(ErrorKind::Shape,
           fn + ": " + name + " must have shape " + norm + " " + shape_str(normalized_shape) + ", got " + shapes);
  Tensor out = make_tensor(x, fn + ": result");
  if (out.data.empty()) return out;
  kernels::layer_norm(input.data, weight ? weight->data : nullptr, bias ? bias->data : nullptr, out.data.data(),
                      out.data.size() / n, n, static_cast<float>(eps));
  return out;
}

}  // namespace aw
