// Softmax: xsimd kernel and its scalar reference. See softmax.hpp.
#include "kernels/softmax.hpp"

#include <cmath>
#include <limits>

#include "kernels/simd.hpp"

namespace aw::kernels {
namespace {

using simd::batch;
using simd::lanes;
constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

// How the special values come out without a branch per element (same in every path below):
// - A slice of only -inf has max -inf; x - max would be -inf - -inf = NaN. Subtracting 0
//   instead gives exp(-inf) = 0 everywhere, so sum = 0, and 1/sum is replaced by 0: zeros.
// - Otherwise the max element contributes exp(0) = 1, so sum >= 1 unless sum is NaN.
// - A NaN element (whether or not the max saw it: SIMD max is not NaN-propagating on every
//   arch) gives exp(NaN) = NaN, so sum = NaN and every output is NaN. The same holds for
//   -inf mixed with NaN, which torch does not treat as fully masked either.
// - A +inf max gives inf - inf = NaN at that element, so sum = NaN: the slice is NaN.

// Softmax of one slice of n values at stride `stride`: y[i*stride] from x[i*stride].
// The scalar reference, and the SIMD kernel's tail for inner > 1.
void softmax_strided_scalar(const float* x, float* y, std::size_t n, std::size_t stride) {
  // find max value (for numerical stability)
  float max = minus_infinity;
  for (std::size_t i = 0; i < n; ++i) max = std::fmax(max, x[i * stride]);
  const float shift = max == minus_infinity ? 0.0f : max;  // all -inf: see above

  // exp and sum
  float sum = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    const float e = std::exp(x[i * stride] - shift);
    y[i * stride] = e;
    sum += e;
  }

  // normalize (sum == 0 only for a slice of -inf: zeros)
  const float inv_sum = sum == 0.0f ? 0.0f : 1.0f / sum;
  for (std::size_t i = 0; i < n; ++i) y[i * stride] *= inv_sum;
}

// Softmax of one contiguous row: y[0:n] from x[0:n].
void softmax_row(const float* x, float* y, std::size_t n) {
  // find max value (for numerical stability)
  batch max_v(minus_infinity);
  float max = minus_infinity;
  simd::vector_then_scalar(
      n, [&](std::size_t i) { max_v = xsimd::max(max_v, batch::load_unaligned(x + i)); },
      [&] { max = xsimd::reduce_max(max_v); }, [&](std::size_t i) { max = std::fmax(max, x[i]); });
  const float shift = max == minus_infinity ? 0.0f : max;  // all -inf: see above

  // exp and sum
  const batch shift_v(shift);
  batch sum_v(0.0f);
  float sum = 0.0f;
  simd::vector_then_scalar(
      n,
      [&](std::size_t i) {
        const batch e = xsimd::exp(batch::load_unaligned(x + i) - shift_v);
        e.store_unaligned(y + i);
        sum_v += e;
      },
      [&] { sum = xsimd::reduce_add(sum_v); },
      [&](std::size_t i) {
        const float e = std::exp(x[i] - shift);
        y[i] = e;
        sum += e;
      });

  // normalize (sum == 0 only for a row of -inf: zeros)
  const float inv_sum = sum == 0.0f ? 0.0f : 1.0f / sum;
  const batch inv_sum_v(inv_sum);
  simd::map(
      y, y, n, [&](batch e) { return e * inv_sum_v; }, [&](float e) { return e * inv_sum; });
}

// Softmax of `lanes` neighbouring slices at once (inner > 1): the lanes run along the
// contiguous inner axis, the loops along n, so no reduction across lanes is needed.
// x, y: (n, inner) views starting at the first of the slices.
void softmax_lanes_along_inner(const float* x, float* y, std::size_t n, std::size_t inner) {
  // find max value (for numerical stability)
  batch max_v(minus_infinity);
  for (std::size_t i = 0; i < n; ++i) max_v = xsimd::max(max_v, batch::load_unaligned(x + i * inner));
  const batch shift_v = xsimd::select(max_v == batch(minus_infinity), batch(0.0f), max_v);

  // exp and sum
  batch sum_v(0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    const batch e = xsimd::exp(batch::load_unaligned(x + i * inner) - shift_v);
    e.store_unaligned(y + i * inner);
    sum_v += e;
  }

  // normalize (sum == 0 only for a slice of -inf: zeros)
  const batch inv_sum_v = xsimd::select(sum_v == batch(0.0f), batch(0.0f), batch(1.0f) / sum_v);
  for (std::size_t i = 0; i < n; ++i) (batch::load_unaligned(y + i * inner) * inv_sum_v).store_unaligned(y + i * inner);
}

}  // namespace

void softmax(const float* x, float* y, std::size_t outer, std::size_t n, std::size_t inner) {
  if (inner == 1) {
    // fast path: contiguous rows
    for (std::size_t o = 0; o < outer; ++o) softmax_row(x + o * n, y + o * n, n);
    return;
  }
  // `lanes` slices at a time along the inner axis, then one at a time for the last inner % lanes
  for (std::size_t o = 0; o < outer; ++o) {
    const float* x_o = x + o * n * inner;  // (n, inner)
    float* y_o = y + o * n * inner;
    simd::vector_then_scalar(
        inner, [&](std::size_t j) { softmax_lanes_along_inner(x_o + j, y_o + j, n, inner); },
        [&](std::size_t j) { softmax_strided_scalar(x_o + j, y_o + j, n, inner); });
  }
}

void softmax_reference(const float* x, float* y, std::size_t outer, std::size_t n, std::size_t inner) {
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t j = 0; j < inner; ++j)
      softmax_strided_scalar(x + o * n * inner + j, y + o * n * inner + j, n, inner);
}

}  // namespace aw::kernels
