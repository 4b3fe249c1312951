// Elementwise activation functions over contiguous float32 arrays (torch.nn.functional).
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment. y may be x (in place), but must not otherwise overlap it.
#pragma once

#include <cstddef>

namespace aw::kernels {

// ReLU: y = max(x, 0). x (n), y (n).
// NaN stays NaN, as torch.relu (a plain max(x, 0) would turn it into 0 on some archs).
void relu(const float* x, float* y, std::size_t n);
void relu_reference(const float* x, float* y, std::size_t n);

// GELU, exact (torch approximate='none'): y = x * 0.5 * (1 + erf(x / sqrt(2))). x (n), y (n).
// Special values follow the formula: NaN -> NaN, +inf -> +inf, -inf -> -inf * 0 = NaN (torch
// gives NaN for -inf too; torch's vectorised CPU path also gives NaN for +inf, pytorch#185770).
void gelu(const float* x, float* y, std::size_t n);
void gelu_reference(const float* x, float* y, std::size_t n);

// GELU, tanh approximation (torch approximate='tanh'):
//   y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))). x (n), y (n).
// Special values as the exact form: NaN -> NaN, +inf -> +inf, -inf -> NaN.
void gelu_tanh(const float* x, float* y, std::size_t n);
void gelu_tanh_reference(const float* x, float* y, std::size_t n);

// SiLU (swish): y = x * sigmoid(x) = x / (1 + exp(-x)). x (n), y (n).
// Special values follow the formula: NaN -> NaN, +inf -> +inf, -inf -> -inf / inf = NaN (as
// torch.nn.functional.silu).
void silu(const float* x, float* y, std::size_t n);
void silu_reference(const float* x, float* y, std::size_t n);

}  // namespace aw::kernels
