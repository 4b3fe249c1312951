// Activations: xsimd kernels and their scalar references. See activation.hpp.
#include "kernels/activation.hpp"

#include <cmath>

#include "kernels/simd.hpp"

namespace aw::kernels {
namespace {

using simd::batch;
using simd::map;

constexpr float sqrt1_2 = 0.70710678118654752440f;         // 1 / sqrt(2)
constexpr float sqrt_2_over_pi = 0.79788456080286535588f;  // sqrt(2 / pi)
constexpr float kappa = 0.044715f;

// The scalar functions of the references. The SIMD kernels of the transcendental ones (GELU, SiLU)
// run their tails as padded vectors instead (simd::map_vectors): a value's bytes are then the same
// wherever it sits in a call, which the fused epilogue of the int8 linear layer relies on (it runs
// GELU over 64 columns of a row at a time: the same bytes as over the whole output).
float relu_scalar(float x) { return x < 0.0f ? 0.0f : x; }  // NaN < 0 is false: NaN stays
float gelu_scalar(float x) { return x * 0.5f * (1.0f + std::erf(x * sqrt1_2)); }
float gelu_tanh_scalar(float x) {
  const float inner = sqrt_2_over_pi * (x + kappa * x * x * x);
  return 0.5f * x * (1.0f + std::tanh(inner));
}
float silu_scalar(float x) { return x / (1.0f + std::exp(-x)); }

}  // namespace

void relu(const float* x, float* y, std::size_t n) {
  // select rather than max: xsimd::max's NaN handling differs between archs.
  map(
      x, y, n, [](batch v) { return xsimd::select(v < batch(0.0f), batch(0.0f), v); }, relu_scalar);
}

void relu_reference(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = relu_scalar(x[i]);
}

void gelu(const float* x, float* y, std::size_t n) {
  simd::map_vectors(x, y, n, [](batch v) { return v * batch(0.5f) * (batch(1.0f) + xsimd::erf(v * batch(sqrt1_2))); });
}

void gelu_reference(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = gelu_scalar(x[i]);
}

void gelu_tanh(const float* x, float* y, std::size_t n) {
  simd::map_vectors(x, y, n, [](batch v) {
    const batch inner = batch(sqrt_2_over_pi) * simd::fma(batch(kappa) * v * v, v, v);  // x + kappa x^3
    return batch(0.5f) * v * (batch(1.0f) + xsimd::tanh(inner));
  });
}

void gelu_tanh_reference(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = gelu_tanh_scalar(x[i]);
}

void silu(const float* x, float* y, std::size_t n) {
  simd::map_vectors(x, y, n, [](batch v) { return v / (batch(1.0f) + xsimd::exp(-v)); });
}

void silu_reference(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = silu_scalar(x[i]);
}

}  // namespace aw::kernels
