#include "ops/layer_norm.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "kernels/layer_norm.hpp"

namespace aw {

Tensor layer_norm(const TensorRef& input, const Shape& normalized_shape, const TensorRef* weight,
                  const TensorRef* bias, double eps) {
  const Shape& x = input.shape;
  std::string shapes = "input " + shape_str(x) + ", normalized_shape " + shape_str(normalized_shape);
  if (weight) shapes += ", weight " + shape_str(weight->shape);
  if (bias) shapes += ", bias " + shape_str(bias->shape);
  const std::size_t n = checked_numel(normalized_shape, "layer_norm: normalized_shape");
  if (!(eps >= 0.0)) {  // also NaN
    std::ostringstream got;
    got << eps;
    fail(ErrorKind::Range, "layer_norm: eps must be non-negative, got " + got.str() + " (input " + shape_str(x) + ")");
  }
  if (normalized_shape.empty())
    fail(ErrorKind::Shape, "layer_norm: normalized_shape must have at least 1 dimension, got " + shapes);
  const std::size_t k = normalized_shape.size();
  if (k > x.size() || !std::equal(normalized_shape.begin(), normalized_shape.end(), x.end() - static_cast<std::ptrdiff_t>(k)))
    fail(ErrorKind::Shape, "layer_norm: input must end with the dims of normalized_shape (expected [*, " +
                               shape_str(normalized_shape).substr(1) + "), got " + shapes);
  if (weight && weight->shape != normalized_shape)
    fail(ErrorKind::Shape, "layer_norm: weight must have shape normalized_shape " + shape_str(normalized_shape) +
                               ", got " + shapes);
  if (bias && bias->shape != normalized_shape)
    fail(ErrorKind::Shape, "layer_norm: bias must have shape normalized_shape " + shape_str(normalized_shape) +
                               ", got " + shapes);
  Tensor out = make_tensor(x, "layer_norm: result");
  if (out.data.empty()) return out;
  aw::layer_norm(input.data, weight ? weight->data : nullptr, bias ? bias->data : nullptr, out.data.data(),
                 out.data.size() / n, n, static_cast<float>(eps));
  return out;
}

}  // namespace aw
