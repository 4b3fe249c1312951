// Layer normalisation over the contiguous last axis (torch.nn.functional.layer_norm).
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment.
#pragma once

#include <cstddef>

namespace aw::kernels {

// For each of `rows` rows of n values:
//   mean = sum x / n,  var = sum (x - mean)^2 / n   (biased, as torch)
//   out = (x - mean) * rsqrt(var + eps) * weight + bias
// x (rows, n), weight (n) or nullptr for 1, bias (n) or nullptr for 0, y (rows, n).
// x and y may be the same; otherwise y must not overlap x, weight or bias.
// A NaN or inf in a row makes the whole row NaN (as torch).
void layer_norm(const float* x, const float* weight, const float* bias, float* y, std::size_t rows, std::size_t n,
                float eps);
void layer_norm_reference(const float* x, const float* weight, const float* bias, float* y, std::size_t rows,
                          std::size_t n, float eps);

}  // namespace aw::kernels
