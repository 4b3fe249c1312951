#pragma once
#include "core/tensor.hpp"

namespace aw {

// torch.nn.functional.embedding(input, weight): out[..., :] = weight[input[...], :].
// ids (shape ids_shape) index the rows of weight (num_embeddings, embedding_dim);
// out (*ids_shape, embedding_dim).
Tensor embedding(const std::int32_t* ids, const Shape& ids_shape, const TensorRef& weight);

}  // namespace aw
