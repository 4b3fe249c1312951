// Layer normalisation: xsimd kernel and its scalar reference. See layer_norm.hpp.
#include "kernels/layer_norm.hpp"

#include <cmath>
#include <type_traits>

#include "kernels/simd.hpp"

namespace aw::kernels {
namespace {

using simd::batch;

struct Moments {
  float mean, rstd;
};

// From the first-pass mean and the second pass's sum d and sum d^2 (d = x - mean): the corrected
// mean and 1 / sqrt(var + eps), exact (xsimd::rsqrt is an approximation on some archs).
Moments corrected(float mean, float d_sum, float sq, std::size_t n, float eps) {
  const float count = static_cast<float>(n);
  const float raw = (sq - d_sum * d_sum / count) / count;
  const float var = raw < 0.0f ? 0.0f : raw;  // rounding can leave it just below 0; NaN stays NaN
  return {mean + d_sum / count, 1.0f / std::sqrt(var + eps)};
}

void layer_norm_row(const float* x, const float* weight, const float* bias, float* y, std::size_t n, float eps) {
  // mean
  batch sum_v(0.0f);
  float sum = 0.0f;
  simd::vector_then_scalar(
      n, [&](std::size_t i) { sum_v += batch::load_unaligned(x + i); }, [&] { sum = xsimd::reduce_add(sum_v); },
      [&](std::size_t i) { sum += x[i]; });
  const float mean = sum / static_cast<float>(n);  // first pass

  // biased variance, corrected two-pass (Chan, Golub, LeVeque): with d = x - mean,
  //   var = (sum d^2 - (sum d)^2 / n) / n, and the mean corrected by sum d / n, which removes
  //   the rounding error of the first pass (it matters for a large mean with a small spread).
  const batch mean_v(mean);
  batch d_v(0.0f), sq_v(0.0f);
  float d_sum = 0.0f, sq = 0.0f;
  simd::vector_then_scalar(
      n,
      [&](std::size_t i) {
        const batch d = batch::load_unaligned(x + i) - mean_v;
        d_v += d;
        sq_v = simd::fma(d, d, sq_v);
      },
      [&] {
        d_sum = xsimd::reduce_add(d_v);
        sq = xsimd::reduce_add(sq_v);
      },
      [&](std::size_t i) {
        d_sum += x[i] - mean;
        sq += (x[i] - mean) * (x[i] - mean);
      });
  const Moments m = corrected(mean, d_sum, sq, n, eps);

  // out = (x - mean) * rstd * weight + bias (x and y may be the same: each x[i] is read before y[i]);
  // one loop per combination of weight and bias, each without a branch
  const batch shift_v(m.mean), rstd_v(m.rstd);
  auto normalise = [&](auto with_weight, auto with_bias) {
    simd::vector_then_scalar(
        n,
        [&](std::size_t i) {
          const batch v = (batch::load_unaligned(x + i) - shift_v) * rstd_v;
          batch out = v;
          if constexpr (with_weight && with_bias)
            out = simd::fma(v, batch::load_unaligned(weight + i), batch::load_unaligned(bias + i));
          else if constexpr (with_weight)
            out = v * batch::load_unaligned(weight + i);
          else if constexpr (with_bias)
            out = v + batch::load_unaligned(bias + i);
          out.store_unaligned(y + i);
        },
        [&](std::size_t i) {
          float v = (x[i] - m.mean) * m.rstd;
          if constexpr (with_weight) v *= weight[i];
          if constexpr (with_bias) v += bias[i];
          y[i] = v;
        });
  };
  using yes = std::true_type;
  using no = std::false_type;
  if (weight && bias)
    normalise(yes{}, yes{});
  else if (weight)
    normalise(yes{}, no{});
  else if (bias)
    normalise(no{}, yes{});
  else
    normalise(no{}, no{});
}

}  // namespace

void layer_norm(const float* x, const float* weight, const float* bias, float* y, std::size_t rows, std::size_t n,
                float eps) {
  if (n == 0) return;
  for (std::size_t r = 0; r < rows; ++r) layer_norm_row(x + r * n, weight, bias, y + r * n, n, eps);
}

void layer_norm_reference(const float* x, const float* weight, const float* bias, float* y, std::size_t rows,
                          std::size_t n, float eps) {
  if (n == 0) return;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float sum = 0.0f;
    for (std::size_t i = 0; i < n; ++i) sum += xr[i];
    const float mean = sum / static_cast<float>(n);
    float d_sum = 0.0f, sq = 0.0f;
    for (std::size_t i = 0; i < n; ++i) {
      d_sum += xr[i] - mean;
      sq += (xr[i] - mean) * (xr[i] - mean);
    }
    const Moments m = corrected(mean, d_sum, sq, n, eps);
    for (std::size_t i = 0; i < n; ++i)
      yr[i] = (xr[i] - m.mean) * m.rstd * (weight ? weight[i] : 1.0f) + (bias ? bias[i] : 0.0f);
  }
}

}  // namespace aw::kernels
