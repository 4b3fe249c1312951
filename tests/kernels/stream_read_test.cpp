// Tests for src/kernels/stream_read: xsimd against the scalar reference and float64 over every
// SIMD tail (every length to 130, past two of the kernel's four-vector steps), misaligned; exact on integers; NaN and
// inf as a sum gives them.
#include "kernels/stream_read.hpp"

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;

TEST_CASE("stream_read_sum: xsimd == reference == float64", "[kernels][stream_read]") {
  std::mt19937 rng(20250301);
  // float32 sums of n terms: a rounding per term, relative to sum |x_i|
  constexpr Tolerance tight{1e-5, 1e-7}, loose{1e-5, 1e-7};
  // every remainder of the kernel's step (four vectors: 16 floats in wasm, up to 64 natively),
  // then longer sums
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 130; ++n) lengths.push_back(n);
  lengths.push_back(1000);
  for (std::size_t offset : offsets)
    for (std::size_t n : lengths) {
      CAPTURE(offset, n);
      const Buffer x = normal_buffer(rng, n, offset, 1.0f, 0.25f);
      const float simd = aw::kernels::stream_read_sum(x.data(), n);
      const float ref = aw::kernels::stream_read_sum_reference(x.data(), n);
      double want = 0, scale = 0;
      for (std::size_t i = 0; i < n; ++i) {
        want += x.data()[i];
        scale += std::fabs(x.data()[i]);
      }
      const std::vector<double> scales{scale};
      check_simd_reference_float64("", &simd, &ref, {want}, &scales, tight, loose);
      CHECK(x.guards_intact());
      if (n == 0) CHECK(simd == 0.0f);
    }
}

TEST_CASE("stream_read_sum: exact on small integers; NaN and inf propagate", "[kernels][stream_read]") {
  std::vector<float> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i % 7);  // sums stay below 2^24
  double want = 0;
  for (float v : x) want += v;
  for (auto kernel : {aw::kernels::stream_read_sum, aw::kernels::stream_read_sum_reference}) {
    CHECK(kernel(x.data(), x.size()) == float(want));
    std::vector<float> y = x;
    y[999] = not_a_number;
    CHECK(std::isnan(kernel(y.data(), y.size())));
    y[999] = infinity;
    CHECK(kernel(y.data(), y.size()) == infinity);
    y[3] = -infinity;
    CHECK(std::isnan(kernel(y.data(), y.size())));
  }
}
