// Softmax over one axis of a row-major contiguous float32 array.
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment.
#pragma once

#include <cstddef>

namespace aw::kernels {

// Softmax over the middle axis of x viewed as (outer, n, inner):
//   y[o, i, j] = exp(x[o, i, j] - max_i x[o, i, j]) / sum_i exp(x[o, i, j] - max_i x[o, i, j])
// The max is subtracted for numerical stability. inner == 1 is softmax over contiguous rows.
// x (outer, n, inner), y (outer, n, inner). y may be x (in place), but must not otherwise overlap.
//
// Special values, as torch:
// - a slice whose every value is -inf gives zeros, never NaN (torch's _safe_softmax, which
//   scaled_dot_product_attention uses for fully masked rows since torch 2.5);
// - a NaN anywhere in a slice makes the whole slice NaN;
// - +inf: x - max is inf - inf = NaN, so a slice holding +inf is NaN.
void softmax(const float* x, float* y, std::size_t outer, std::size_t n, std::size_t inner);
void softmax_reference(const float* x, float* y, std::size_t outer, std::size_t n, std::size_t inner);

}  // namespace aw::kernels
