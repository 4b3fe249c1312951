// Sinusoidal positional encoding ("Attention Is All You Need", section 3.5).
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment.
#pragma once

#include <cstddef>

namespace aw::kernels {

// pe (max_length, d_model), row-major:
//   pe[pos, 2i]     = sin(pos / 10000^(2i / d_model))
//   pe[pos, 2i + 1] = cos(pos / 10000^(2i / d_model))
// As the PositionalEncoder of document 004 builds it (numpy): the denominators are formed for the
// even columns 2i = 0, 2, 4, ... < d_model and shared by each (sin, cos) pair; for an odd d_model
// the last pair's cos column is dropped, so the last column is sin(pos / 10000^((d_model-1)/d_model)).
// Computed in float64 (as numpy) and rounded once to float32, so large positions stay accurate.
void positional_encoding(float* pe, std::size_t max_length, std::size_t d_model);
void positional_encoding_reference(float* pe, std::size_t max_length, std::size_t d_model);

}  // namespace aw::kernels
