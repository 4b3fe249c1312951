#pragma once
#include "core/tensor.hpp"

namespace aw {

// torch.nn.functional.cosine_similarity(x1, x2, dim, eps): x1 and x2 broadcast to a common shape
// (as torch.add), then along `dim` of that shape (negative counts from the end; a 0-d shape takes
// -1 or 0) the cosine similarity of each pair of vectors, in torch's current formula
//   sum_i (x1_i / max(||x1||, eps)) * (x2_i / max(||x2||, eps))
// (aten/src/ATen/native/Distance.cpp; a zero vector gives 0). The result is the common shape
// without `dim`. eps must be non-negative (as torch).
Tensor cosine_similarity(const TensorRef& x1, const TensorRef& x2, std::int64_t dim = 1, double eps = 1e-8);

}  // namespace aw
