// Root-mean-square normalisation over the contiguous last axis (Zhang & Sennrich 2019; Llama's
// LlamaRMSNorm in transformers' modeling_llama.py, T5LayerNorm).
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment.
#pragma once

#include <cstddef>

namespace aw::kernels {

// For each of `rows` rows of n values:
//   out = x * rsqrt(mean(x^2) + eps) * weight
// x (rows, n), weight (n) or nullptr for 1, y (rows, n). No mean is subtracted and there is no
// bias. x and y may be the same; otherwise y must not overlap x or weight. As torch: a NaN in a
// row makes the whole row NaN; an inf makes its row 0 but for itself, NaN (x * rsqrt(inf) = x * 0).
void rms_norm(const float* x, const float* weight, float* y, std::size_t rows, std::size_t n, float eps);
void rms_norm_reference(const float* x, const float* weight, float* y, std::size_t rows, std::size_t n, float eps);

}  // namespace aw::kernels
