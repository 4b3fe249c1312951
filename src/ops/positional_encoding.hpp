#pragma once
#include "core/tensor.hpp"

namespace aw {

// Sinusoidal positional encoding (max_length, d_model):
//   PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d_model)).
// An odd d_model drops the last cos column (document 004's PositionalEncoder). Both sizes >= 0.
Tensor positional_encoding(std::int64_t max_length, std::int64_t d_model);

}  // namespace aw
