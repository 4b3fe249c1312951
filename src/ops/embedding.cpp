#include "ops/embedding.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace aw {

Tensor embedding(const std::int32_t* ids, const Shape& ids_shape, const TensorRef& weight) {
  const std::string where = "input " + shape_str(ids_shape) + ", weight " + shape_str(weight.shape);
  if (weight.shape.size() != 2)
    fail(ErrorKind::Shape, "embedding: weight must be 2-D (num_embeddings, embedding_dim), got " + where);
  const std::size_t count = checked_numel(ids_shape, "embedding: input");
  const std::int64_t rows = weight.shape[0];
  const auto dim = static_cast<std::size_t>(weight.shape[1]);
  for (std::size_t i = 0; i < count; ++i)  // validate every index before writing anything
    if (ids[i] < 0 || ids[i] >= rows)
      fail(ErrorKind::Range, "embedding: index " + std::to_string(ids[i]) + " (input position " + std::to_string(i) +
                                 ") is out of range [0, " + std::to_string(rows) + ") for " + where);
  Shape out_shape = ids_shape;
  out_shape.push_back(weight.shape[1]);
  Tensor out = make_tensor(out_shape, "embedding: result");
  for (std::size_t i = 0; i < count; ++i)
    std::copy_n(weight.data + static_cast<std::size_t>(ids[i]) * dim, dim, out.data.data() + i * dim);
  return out;
}

}  // namespace aw
