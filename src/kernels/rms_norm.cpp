// RMS normalisation: xsimd kernel and its scalar reference. See rms_norm.hpp.
#include "kernels/rms_norm.hpp"

#include <cmath>

#include "kernels/simd.hpp"

namespace aw::kernels {
namespace {

using simd::batch;

// 1 / sqrt(sum x^2 / n + eps), exact (xsimd::rsqrt is an approximation on some archs).
float inverse_rms(float squares, std::size_t n, float eps) {
  return 1.0f / std::sqrt(squares / static_cast<float>(n) + eps);
}

void rms_norm_row(const float* x, const float* weight, float* y, std::size_t n, float eps) {
  // sum x^2
  batch sq_v(0.0f);
  float sq = 0.0f;
  simd::vector_then_scalar(
      n,
      [&](std::size_t i) {
        const batch v = batch::load_unaligned(x + i);
        sq_v = simd::fma(v, v, sq_v);
      },
      [&] { sq = xsimd::reduce_add(sq_v); }, [&](std::size_t i) { sq += x[i] * x[i]; });
  const float r = inverse_rms(sq, n, eps);

  // out = x * r * weight (x and y may be the same: each x[i] is read before y[i])
  const batch r_v(r);
  if (weight)
    simd::vector_then_scalar(
        n,
        [&](std::size_t i) {
          (batch::load_unaligned(x + i) * r_v * batch::load_unaligned(weight + i)).store_unaligned(y + i);
        },
        [&](std::size_t i) { y[i] = x[i] * r * weight[i]; });
  else
    simd::map(
        x, y, n, [&](batch v) { return v * r_v; }, [&](float v) { return v * r; });
}

}  // namespace

void rms_norm(const float* x, const float* weight, float* y, std::size_t rows, std::size_t n, float eps) {
  if (n == 0) return;
  for (std::size_t r = 0; r < rows; ++r) rms_norm_row(x + r * n, weight, y + r * n, n, eps);
}

void rms_norm_reference(const float* x, const float* weight, float* y, std::size_t rows, std::size_t n, float eps) {
  if (n == 0) return;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float sq = 0.0f;
    for (std::size_t i = 0; i < n; ++i) sq += xr[i] * xr[i];
    const float inv = inverse_rms(sq, n, eps);
    for (std::size_t i = 0; i < n; ++i) yr[i] = xr[i] * inv * (weight ? weight[i] : 1.0f);
  }
}

}  // namespace aw::kernels
