// The streaming read: xsimd kernel and its scalar reference. See stream_read.hpp.
#include "kernels/stream_read.hpp"

#include "kernels/simd.hpp"

namespace aw::kernels {

float stream_read_sum(const float* x, std::size_t n) {
  using simd::batch;
  constexpr std::size_t lanes = simd::lanes;
  // four independent accumulators: 4 vector loads and adds per step
  batch s0(0.0f), s1(0.0f), s2(0.0f), s3(0.0f);
  float sum = 0.0f;
  simd::vector_then_scalar<4 * lanes>(
      n,
      [&](std::size_t i) {
        s0 += batch::load_unaligned(x + i);
        s1 += batch::load_unaligned(x + i + lanes);
        s2 += batch::load_unaligned(x + i + 2 * lanes);
        s3 += batch::load_unaligned(x + i + 3 * lanes);
      },
      [&] { sum = xsimd::reduce_add((s0 + s1) + (s2 + s3)); }, [&](std::size_t i) { sum += x[i]; });
  return sum;
}

float stream_read_sum_reference(const float* x, std::size_t n) {
  float sum = 0.0f;
  for (std::size_t i = 0; i < n; ++i) sum += x[i];
  return sum;
}

}  // namespace aw::kernels
