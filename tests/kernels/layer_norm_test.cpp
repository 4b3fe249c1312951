// Tests for src/kernels/layer_norm: xsimd against the scalar reference and against float64
// written here from the formula (biased variance), with and without weight/bias, over every
// SIMD tail, misaligned and in place; an offset mean and tiny variance; NaN/inf make the row NaN.
#include "kernels/layer_norm.hpp"

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;

namespace {

// out = (x - mean) / sqrt(var + eps) * weight + bias, in float64.
std::vector<double> layer_norm64(const float* x, const float* w, const float* b, std::size_t rows, std::size_t n,
                                 double eps) {
  std::vector<double> y(rows * n);
  for (std::size_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (std::size_t i = 0; i < n; ++i) mean += x[r * n + i];
    mean /= double(n);
    for (std::size_t i = 0; i < n; ++i) var += (x[r * n + i] - mean) * (x[r * n + i] - mean);
    var /= double(n);
    for (std::size_t i = 0; i < n; ++i)
      y[r * n + i] = (x[r * n + i] - mean) / std::sqrt(var + eps) * (w ? w[i] : 1.0) + (b ? b[i] : 0.0);
  }
  return y;
}

// Normalised values are O(1): float32 sums of up to 65 terms, 1e-5 relative + 1e-5 absolute.
constexpr Tolerance float64{1e-5, 1e-5};

void check(const Buffer& x, const Buffer* w, const Buffer* b, std::size_t rows, std::size_t n, float eps) {
  const std::size_t count = rows * n;
  Buffer y(count, x.offset), y_ref(count, x.offset), in_place(x);
  const Buffer x_before(x);
  const float* wp = w ? w->data() : nullptr;
  const float* bp = b ? b->data() : nullptr;
  aw::kernels::layer_norm(x.data(), wp, bp, y.data(), rows, n, eps);
  aw::kernels::layer_norm_reference(x.data(), wp, bp, y_ref.data(), rows, n, eps);
  aw::kernels::layer_norm(in_place.data(), wp, bp, in_place.data(), rows, n, eps);
  const auto want = layer_norm64(x.data(), wp, bp, rows, n, eps);
  check_simd_reference_float64("", y.data(), y_ref.data(), want, nullptr, float64, float64);
  CHECK(in_place.same_values(y));
  CHECK(x.same_values(x_before));
  CHECK(y.guards_intact());
  CHECK(y_ref.guards_intact());
  CHECK(in_place.guards_intact());
}

}  // namespace

TEST_CASE("layer_norm: xsimd == reference == float64 over every tail, with/without weight and bias",
          "[kernels][layer_norm]") {
  std::mt19937 rng(20240703);
  for (std::size_t offset : offsets)
    for (std::size_t rows : {std::size_t(1), std::size_t(3)})
      for (std::size_t n : sizes)
        for (int affine = 0; affine < 4; ++affine) {
          CAPTURE(offset, rows, n, affine);
          const Buffer x = normal_buffer(rng, rows * n, offset, 2.0f, 0.5f);
          const Buffer w = normal_buffer(rng, n, offset, 1.0f, 1.0f);
          const Buffer b = normal_buffer(rng, n, offset, 1.0f);
          check(x, affine & 1 ? &w : nullptr, affine & 2 ? &b : nullptr, rows, n, 1e-5f);
        }
}

TEST_CASE("layer_norm: a large mean with a small spread (two-pass variance) and eps", "[kernels][layer_norm]") {
  std::mt19937 rng(20240704);
  for (std::size_t n : {std::size_t(5), std::size_t(17), std::size_t(64)})
    for (float eps : {0.0f, 1e-5f, 0.1f}) {
      CAPTURE(n, eps);
      const Buffer x = normal_buffer(rng, 2 * n, 1, 1.0f, 100.0f);
      check(x, nullptr, nullptr, 2, n, eps);
    }
  // A constant row: var = 0, so out = 0 * rsqrt(eps) = 0 (+ bias).
  const std::vector<float> x(9, 7.0f), bias(9, 0.5f);
  std::vector<float> y(9);
  aw::kernels::layer_norm(x.data(), nullptr, bias.data(), y.data(), 1, 9, 1e-5f);
  for (float v : y) CHECK(v == 0.5f);
}

TEST_CASE("layer_norm: hand-checked values; a NaN or inf makes its row NaN, other rows intact",
          "[kernels][layer_norm]") {
  // [1, 2, 3, 4]: mean 2.5, var 1.25 -> (x - 2.5) / sqrt(1.25 + 1e-5)
  const float x[] = {1, 2, 3, 4};
  float y[4];
  aw::kernels::layer_norm(x, nullptr, nullptr, y, 1, 4, 1e-5f);
  const double s = std::sqrt(1.25 + 1e-5);
  CHECK(y[0] == Approx(-1.5 / s).margin(1e-6));
  CHECK(y[3] == Approx(1.5 / s).margin(1e-6));
  CHECK(y[0] == Approx(-1.3416).margin(1e-4));  // torch prints -1.3416

  for (float special : {not_a_number, infinity})
    for (std::size_t n : {std::size_t(3), std::size_t(17)}) {
      CAPTURE(special, n);
      Buffer xs(2 * n, 1);
      for (std::size_t i = 0; i < 2 * n; ++i) xs[i] = float(i % 5);
      xs[n - 1] = special;  // last element of row 0 (in the tail)
      check(xs, nullptr, nullptr, 2, n, 1e-5f);
      std::vector<float> ys(2 * n);
      aw::kernels::layer_norm(xs.data(), nullptr, nullptr, ys.data(), 2, n, 1e-5f);
      for (std::size_t i = 0; i < n; ++i) CHECK(std::isnan(ys[i]));
      for (std::size_t i = n; i < 2 * n; ++i) CHECK(std::isfinite(ys[i]));
    }
}

TEST_CASE("layer_norm: empty shapes write nothing", "[kernels][layer_norm]") {
  Buffer x(0, 1), y(0, 1);
  aw::kernels::layer_norm(x.data(), nullptr, nullptr, y.data(), 0, 5, 1e-5f);
  aw::kernels::layer_norm(x.data(), nullptr, nullptr, y.data(), 4, 0, 1e-5f);
  CHECK(y.guards_intact());
}
