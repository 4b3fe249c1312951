#include "ops/cosine_similarity.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "kernels/cosine_similarity.hpp"

namespace aw {
namespace {

// The vectors of one operand along dim d: where each starts, for every position of the result
// (row-major over the common shape with dim d set to 1), and the step between its values (0 when
// the operand's dim d is 1 and stretched, else the operand's stride of d). `operand` has the
// common shape's rank.
struct Vectors {
  std::vector<std::size_t> starts;
  std::size_t step;
};
Vectors vectors_along(const Shape& common, const Shape& operand, std::size_t d) {
  Shape result = common, collapsed = operand;
  result[d] = 1;
  collapsed[d] = 1;
  std::size_t inner = 1;
  for (std::size_t i = d + 1; i < operand.size(); ++i) inner *= static_cast<std::size_t>(operand[i]);
  const auto n = static_cast<std::size_t>(operand[d]);
  Vectors v{broadcast_offsets(result, collapsed), n == 1 ? 0 : inner};
  // an offset into `collapsed` -> into `operand`: each step of the dims before d is n times longer
  for (std::size_t& s : v.starts) s = s / inner * n * inner + s % inner;
  return v;
}

}  // namespace

Tensor cosine_similarity(const TensorRef& x1, const TensorRef& x2, std::int64_t dim, double eps) {
  const std::string fn = api_name("cosine_similarity");
  const std::string inputs = "x1 " + shape_str(x1.shape) + " and x2 " + shape_str(x2.shape);
  const Shape common = broadcast_shapes(x1.shape, x2.shape, fn + ": " + inputs);
  if (!(eps >= 0.0)) {  // also NaN
    std::ostringstream got;
    got << eps;
    fail(ErrorKind::Range, fn + ": eps must be non-negative, got " + got.str() + " (" + inputs + ")");
  }

  // dim of the common shape; a 0-d shape takes -1 or 0, as one dim of size 1
  const std::size_t rank = common.size();
  const auto r = static_cast<std::int64_t>(rank == 0 ? 1 : rank);
  if (dim < -r || dim >= r)
    fail(ErrorKind::Range, fn + ": dim " + std::to_string(dim) + " is out of range [" + std::to_string(-r) + ", " +
                               std::to_string(r - 1) + "] for " + inputs + " (broadcast to " + shape_str(common) + ")" +
                               (dim == 1 && r == 1 ? "; dim defaults to 1: for two vectors give dim -1" : ""));
  const std::size_t d = normalize_dim(dim, rank, fn + ": dim");

  // result: the common shape without d
  Shape out_shape = common;
  if (rank) out_shape.erase(out_shape.begin() + static_cast<std::ptrdiff_t>(d));
  Tensor out = make_uninitialised_tensor(out_shape, fn + ": result");
  if (out.data.empty()) return out;
  const Shape padded = rank ? common : Shape{1};  // a 0-d pair: one vector of one value each
  const auto n = static_cast<std::size_t>(padded[d]);
  if (n == 0) {  // sums of nothing (and no vector to point at)
    std::fill(out.data.begin(), out.data.end(), 0.0f);
    return out;
  }
  const Vectors a = vectors_along(padded, left_padded(x1.shape, padded.size()), d);
  const Vectors b = vectors_along(padded, left_padded(x2.shape, padded.size()), d);
  // eps as float, as torch clamps a float32 norm (a larger eps is inf: every result 0)
  const float eps_f =
      eps > std::numeric_limits<float>::max() ? std::numeric_limits<float>::infinity() : static_cast<float>(eps);
  for (std::size_t i = 0; i < out.data.size(); ++i)
    out.data[i] = kernels::cosine_similarity(x1.data + a.starts[i], a.step, x2.data + b.starts[i], b.step, n, eps_f);
  return out;
}

}  // namespace aw
