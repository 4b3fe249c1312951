// Tests for src/kernels/softmax: the xsimd kernel against its scalar reference and against a
// float64 softmax, over sizes that hit every SIMD tail for 4, 8 and 16 lanes, on both paths
// (inner == 1: contiguous rows; inner > 1: lanes along the inner axis), and the special
// values torch defines: all -inf -> zeros, NaN propagates, +inf -> NaN.
#include "kernels/softmax.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;

namespace {

// Tolerances: relative to the value, plus an absolute floor for values near 0.
// Against float64: 1e-5 relative, 1e-6 absolute. xsimd against the scalar reference (xsimd::exp
// against std::exp, sums in another order): 2e-6 relative, 1e-7 absolute.
constexpr Tolerance float64{1e-5, 1e-6};
constexpr Tolerance tight{2e-6, 1e-7};

// Softmax over the middle axis of (outer, n, inner) in float64, written from the formula:
//   y = exp(x - max) / sum exp(x - max); a slice of only -inf gives zeros (torch _safe_softmax);
//   NaN anywhere makes the slice NaN; +inf gives inf - inf = NaN.
std::vector<double> softmax_float64(const float* x, std::size_t outer, std::size_t n, std::size_t inner) {
  std::vector<double> y(outer * n * inner);
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t j = 0; j < inner; ++j) {
      auto at = [&](std::size_t i) { return o * n * inner + i * inner + j; };
      bool all_minus_inf = true, any_nan = false;
      double max = -std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < n; ++i) {
        const double v = x[at(i)];
        all_minus_inf = all_minus_inf && v == -std::numeric_limits<double>::infinity();
        any_nan = any_nan || std::isnan(v);
        if (v > max) max = v;
      }
      double sum = 0;
      for (std::size_t i = 0; i < n; ++i) sum += std::exp(double(x[at(i)]) - max);
      for (std::size_t i = 0; i < n; ++i) {
        if (all_minus_inf)
          y[at(i)] = 0;
        else if (any_nan)
          y[at(i)] = std::numeric_limits<double>::quiet_NaN();
        else
          y[at(i)] = std::exp(double(x[at(i)]) - max) / sum;  // NaN if max is +inf
      }
    }
  return y;
}

// Runs xsimd and reference, out of place and in place, on x (outer, n, inner) and checks all
// four against float64 and xsimd against reference; also that nothing is written out of range.
void check_softmax(const Buffer& x, std::size_t outer, std::size_t n, std::size_t inner) {
  const std::size_t count = outer * n * inner;
  Buffer y(count, x.offset), y_ref(count, x.offset);
  Buffer in_place(x), in_place_ref(x);

  aw::kernels::softmax(x.data(), y.data(), outer, n, inner);
  aw::kernels::softmax_reference(x.data(), y_ref.data(), outer, n, inner);
  aw::kernels::softmax(in_place.data(), in_place.data(), outer, n, inner);
  aw::kernels::softmax_reference(in_place_ref.data(), in_place_ref.data(), outer, n, inner);

  const std::vector<double> want = softmax_float64(x.data(), outer, n, inner);
  check_simd_reference_float64("", y.data(), y_ref.data(), want, nullptr, tight, float64);
  const Comparison in_place_vs_f64 = compare(in_place.data(), want, float64);
  const Comparison in_place_ref_vs_f64 = compare(in_place_ref.data(), want, float64);
  INFO("xsimd in place vs float64: " << describe(in_place_vs_f64));
  INFO("reference in place vs float64: " << describe(in_place_ref_vs_f64));
  CHECK(in_place_vs_f64.ok);
  CHECK(in_place_ref_vs_f64.ok);
  CHECK(y.guards_intact());
  CHECK(y_ref.guards_intact());
  CHECK(in_place.guards_intact());
  CHECK(in_place_ref.guards_intact());
}

}  // namespace

TEST_CASE("softmax: xsimd == reference == float64 over every tail, contiguous rows and inner > 1",
          "[kernels][softmax]") {
  std::mt19937 rng(20240611);
  for (std::size_t offset : offsets)
    for (std::size_t outer : {std::size_t(1), std::size_t(3)})
      for (std::size_t n : sizes)
        for (std::size_t inner : sizes) {
          CAPTURE(offset, outer, n, inner);
          const Buffer x = normal_buffer(rng, outer * n * inner, offset, 3.0f);
          check_softmax(x, outer, n, inner);
        }
}

TEST_CASE("softmax: outputs are finite, non-negative and sum to 1", "[kernels][softmax]") {
  std::mt19937 rng(20240612);
  for (std::size_t n : sizes) {
    if (n == 0) continue;
    CAPTURE(n);
    const Buffer x = normal_buffer(rng, 2 * n * 3, 0, 3.0f);
    std::vector<float> rows(2 * n), cols(2 * n * 3);
    aw::kernels::softmax(x.data(), rows.data(), 2, n, 1);  // (2, n)
    aw::kernels::softmax(x.data(), cols.data(), 2, n, 3);  // (2, n, 3)
    for (std::size_t o = 0; o < 2; ++o) {
      double sum = 0;
      for (std::size_t i = 0; i < n; ++i) {
        CHECK(std::isfinite(rows[o * n + i]));
        CHECK(rows[o * n + i] >= 0.0f);
        sum += rows[o * n + i];
      }
      CHECK(sum == Approx(1.0).epsilon(1e-5));
      for (std::size_t j = 0; j < 3; ++j) {
        double col_sum = 0;
        for (std::size_t i = 0; i < n; ++i) col_sum += cols[o * n * 3 + i * 3 + j];
        CHECK(col_sum == Approx(1.0).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("softmax: large logits (x100, 1e4) give no NaN or inf", "[kernels][softmax]") {
  std::mt19937 rng(20240613);
  for (float stddev : {100.0f, 1e4f})
    for (std::size_t n : sizes)
      for (std::size_t inner : {std::size_t(1), std::size_t(17)}) {
        CAPTURE(stddev, n, inner);
        const Buffer x = normal_buffer(rng, 2 * n * inner, 1, stddev);
        check_softmax(x, 2, n, inner);
        std::vector<float> y(2 * n * inner);
        aw::kernels::softmax(x.data(), y.data(), 2, n, inner);
        for (float v : y) CHECK(std::isfinite(v));
      }
  // Every value huge and equal: exp(0) everywhere, uniform weights.
  const std::vector<float> x(33, 3e38f);
  std::vector<float> y(33);
  aw::kernels::softmax(x.data(), y.data(), 1, 33, 1);
  for (float v : y) CHECK(v == Approx(1.0 / 33).epsilon(1e-6));
}

TEST_CASE("softmax: a slice of only -inf gives zeros, never NaN", "[kernels][softmax]") {
  std::mt19937 rng(20240614);
  for (std::size_t n : sizes)
    for (std::size_t inner : {std::size_t(1), std::size_t(3), std::size_t(16), std::size_t(17)}) {
      CAPTURE(n, inner);
      // (3, n, inner); slice (1, :, j) is all -inf for every j (the whole middle block), and for
      // inner > 1 also slice (2, :, 1), next to ordinary slices in the same vector.
      Buffer x = normal_buffer(rng, 3 * n * inner, 1, 2.0f);
      for (std::size_t i = 0; i < n * inner; ++i) x.data()[n * inner + i] = -infinity;
      if (inner > 1)
        for (std::size_t i = 0; i < n; ++i) x.data()[2 * n * inner + i * inner + 1] = -infinity;
      // some -inf in ordinary slices too: they get weight exactly 0
      for (std::size_t i = 0; i < n; i += 3) x.data()[i * inner] = -infinity;
      check_softmax(x, 3, n, inner);

      std::vector<float> y(3 * n * inner, sentinel);
      aw::kernels::softmax(x.data(), y.data(), 3, n, inner);
      for (std::size_t i = 0; i < n * inner; ++i) CHECK(y[n * inner + i] == 0.0f);
      if (inner > 1)
        for (std::size_t i = 0; i < n; ++i) CHECK(y[2 * n * inner + i * inner + 1] == 0.0f);
      for (std::size_t i = 0; i < n; i += 3) CHECK(y[i * inner] == 0.0f);
    }
}

TEST_CASE("softmax: NaN propagates to its whole slice, as torch", "[kernels][softmax]") {
  std::mt19937 rng(20240615);
  for (std::size_t n : {std::size_t(1), std::size_t(5), std::size_t(17), std::size_t(33), std::size_t(65)})
    for (std::size_t inner : {std::size_t(1), std::size_t(17)})
      for (bool with_minus_inf : {false, true}) {
        // NaN in the vector part and in the tail of the slice
        for (std::size_t nan_at : {std::size_t(0), n / 2, n - 1}) {
          CAPTURE(n, inner, with_minus_inf, nan_at);
          // (2, n, inner): slice (0, :, 0) holds the NaN; with_minus_inf makes every other
          // value of it -inf (not a fully masked slice: torch gives NaN there too).
          Buffer x = normal_buffer(rng, 2 * n * inner, 1, 2.0f);
          if (with_minus_inf)
            for (std::size_t i = 0; i < n; ++i) x.data()[i * inner] = -infinity;
          x.data()[nan_at * inner] = not_a_number;
          check_softmax(x, 2, n, inner);

          std::vector<float> y(2 * n * inner);
          aw::kernels::softmax(x.data(), y.data(), 2, n, inner);
          for (std::size_t i = 0; i < n; ++i) CHECK(std::isnan(y[i * inner]));
          for (std::size_t i = 0; i < 2 * n * inner; ++i)
            if (i % inner != 0 || i >= n * inner) CHECK(std::isfinite(y[i]));  // others intact
        }
      }
}

TEST_CASE("softmax: +inf gives NaN (inf - inf), as torch", "[kernels][softmax]") {
  for (std::size_t n : {std::size_t(1), std::size_t(5), std::size_t(17), std::size_t(65)})
    for (std::size_t inner : {std::size_t(1), std::size_t(17)}) {
      CAPTURE(n, inner);
      Buffer x(2 * n * inner, 0);
      for (std::size_t i = 0; i < 2 * n * inner; ++i) x.data()[i] = float(i % 7) - 3.0f;
      x.data()[(n - 1) * inner] = infinity;  // slice (0, :, 0)
      check_softmax(x, 2, n, inner);

      std::vector<float> y(2 * n * inner);
      aw::kernels::softmax(x.data(), y.data(), 2, n, inner);
      for (std::size_t i = 0; i < n; ++i) CHECK(std::isnan(y[i * inner]));
      CHECK(std::isfinite(y[n * inner]));  // the next slice is unaffected
    }
}

TEST_CASE("softmax: hand-checked values", "[kernels][softmax]") {
  // softmax([2, 4, 4]) = [1, e^2, e^2] / (1 + 2 e^2)
  const float x[] = {2, 4, 4};
  float y[3], y_ref[3];
  aw::kernels::softmax(x, y, 1, 3, 1);
  aw::kernels::softmax_reference(x, y_ref, 1, 3, 1);
  const double e2 = std::exp(2.0);
  const double want[] = {1 / (1 + 2 * e2), e2 / (1 + 2 * e2), e2 / (1 + 2 * e2)};
  for (int i = 0; i < 3; ++i) {
    CHECK(y[i] == Approx(want[i]).epsilon(1e-6));
    CHECK(y_ref[i] == Approx(want[i]).epsilon(1e-6));
  }
}

TEST_CASE("softmax: empty shapes write nothing", "[kernels][softmax]") {
  Buffer x(0, 1), y(0, 1);
  aw::kernels::softmax(x.data(), y.data(), 0, 5, 3);
  aw::kernels::softmax(x.data(), y.data(), 4, 0, 3);
  aw::kernels::softmax(x.data(), y.data(), 4, 5, 0);
  aw::kernels::softmax(x.data(), y.data(), 4, 0, 1);
  CHECK(y.guards_intact());
}
