// Tests for src/kernels/cosine_similarity: xsimd against the scalar reference and float64 over
// every SIMD tail, misaligned, with each vector contiguous (step 1), one value stretched (step 0)
// or strided (step 3); torch's eps clamp (a zero vector gives 0, a short one is divided by eps),
// and NaN / inf as the formula gives them.
#include "kernels/cosine_similarity.hpp"

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;

namespace {

// The elements a vector of n values at `step` spans (one for a stretched value).
std::size_t span(std::size_t n, std::size_t step) { return n == 0 ? 0 : step == 0 ? 1 : (n - 1) * step + 1; }

struct Want {
  double value, scale;  // the float64 result; sum |a_i b_i| / (|a| |b|) (<= 1), what the rounding scales with
};

// float64 from the definition: sum_i (a_i / max(|a|, eps)) (b_i / max(|b|, eps)).
Want cosine64(const float* a, std::size_t a_step, const float* b, std::size_t b_step, std::size_t n, double eps) {
  double aa = 0, bb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    aa += double(a[i * a_step]) * a[i * a_step];
    bb += double(b[i * b_step]) * b[i * b_step];
  }
  const double na = std::max(std::sqrt(aa), eps), nb = std::max(std::sqrt(bb), eps);
  double dot = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = (a[i * a_step] / na) * (b[i * b_step] / nb);
    dot += t;
    scale += std::fabs(t);
  }
  return {dot, scale};
}

}  // namespace

TEST_CASE("cosine_similarity: xsimd == reference == float64 for steps 1, 0 and 3", "[kernels][cosine_similarity]") {
  std::mt19937 rng(20240811);
  // float32 sums of n terms of size <= 1: a few roundings per term, relative to sum |terms|
  constexpr Tolerance tight{1e-5, 1e-7}, loose{1e-5, 1e-7};
  for (std::size_t offset : offsets)
    for (std::size_t n : sizes)
      for (std::size_t a_step : {1, 0, 3})
        for (std::size_t b_step : {1, 0, 3})
          for (float stddev : {1.0f, 1e-3f, 1e3f}) {
            CAPTURE(offset, n, a_step, b_step, stddev);
            const Buffer a = normal_buffer(rng, span(n, a_step), offset, stddev);
            const Buffer b = normal_buffer(rng, span(n, b_step), offset, 1.0f, 0.5f);
            const float simd = aw::kernels::cosine_similarity(a.data(), a_step, b.data(), b_step, n, 1e-8f);
            const float ref = aw::kernels::cosine_similarity_reference(a.data(), a_step, b.data(), b_step, n, 1e-8f);
            const Want want = cosine64(a.data(), a_step, b.data(), b_step, n, 1e-8);
            check_simd_reference_float64("", &simd, &ref, {want.value}, nullptr, tight, loose);
            const Comparison scaled = compare(&simd, {want.value}, {want.scale}, loose);
            INFO("xsimd vs float64 relative to sum |terms|: " << describe(scaled));
            CHECK(scaled.ok);
            CHECK(std::fabs(simd) <= 1.0f + 1e-6f);
            if (n == 0) CHECK(simd == 0.0f);
          }
}

TEST_CASE("cosine_similarity: parallel 1, opposite -1, orthogonal 0, scale-free", "[kernels][cosine_similarity]") {
  const float a[] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, twice[] = {2, 4, 6, 8, 10, 12, 14, 16, 18};
  const float minus[] = {-1, -2, -3, -4, -5, -6, -7, -8, -9}, x[] = {1, 0, 0, 0, 0, 0, 0, 0, 0},
              y[] = {0, 1, 0, 0, 0, 0, 0, 0, 0};
  for (auto kernel : {aw::kernels::cosine_similarity, aw::kernels::cosine_similarity_reference}) {
    CHECK(kernel(a, 1, twice, 1, 9, 1e-8f) == Approx(1.0f).epsilon(1e-6));
    CHECK(kernel(a, 1, minus, 1, 9, 1e-8f) == Approx(-1.0f).epsilon(1e-6));
    CHECK(kernel(x, 1, y, 1, 9, 1e-8f) == 0.0f);
    // a's first value stretched over 9 against itself stretched: parallel
    CHECK(kernel(a, 0, a, 0, 9, 1e-8f) == Approx(1.0f).epsilon(1e-6));
  }
}

TEST_CASE("cosine_similarity: a zero vector gives 0; a norm below eps is replaced by eps",
          "[kernels][cosine_similarity]") {
  const float zero[8] = {}, a[8] = {3, 4, 0, 0, 0, 0, 0, 0}, tiny[8] = {3e-9f, 4e-9f, 0, 0, 0, 0, 0, 0};
  for (auto kernel : {aw::kernels::cosine_similarity, aw::kernels::cosine_similarity_reference}) {
    CHECK(kernel(zero, 1, a, 1, 8, 1e-8f) == 0.0f);
    CHECK(kernel(zero, 1, zero, 1, 8, 1e-8f) == 0.0f);
    CHECK(kernel(a, 1, zero, 0, 8, 1e-8f) == 0.0f);
    // |tiny| = 5e-9 < eps = 1e-8: (tiny / 1e-8) . (a / 5) = (0.3 * 3 + 0.4 * 4) / 5 = 0.5
    CHECK(kernel(tiny, 1, a, 1, 8, 1e-8f) == Approx(0.5f).epsilon(1e-5));
    // eps = 0: 0 / 0 for a zero vector (torch's result with eps 0 too)
    CHECK(std::isnan(kernel(zero, 1, a, 1, 8, 0.0f)));
  }
}

TEST_CASE("cosine_similarity: NaN gives NaN, inf gives NaN (inf / inf)", "[kernels][cosine_similarity]") {
  const float a[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const float b[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  for (std::size_t at : {0, 5, 8}) {
    for (float special : {not_a_number, infinity, -infinity}) {
      CAPTURE(at, special);
      float c[9];
      std::copy(a, a + 9, c);
      c[at] = special;
      CHECK(std::isnan(aw::kernels::cosine_similarity(c, 1, b, 1, 9, 1e-8f)));
      CHECK(std::isnan(aw::kernels::cosine_similarity_reference(c, 1, b, 1, 9, 1e-8f)));
      CHECK(std::isnan(aw::kernels::cosine_similarity(b, 1, c, 1, 9, 1e-8f)));
    }
  }
}
