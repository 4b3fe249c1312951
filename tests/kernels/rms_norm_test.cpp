// Tests for src/kernels/rms_norm: xsimd against the scalar reference and against float64 written
// here from LlamaRMSNorm (transformers' modeling_llama.py: x * rsqrt(mean(x^2) + eps) * weight),
// with and without weight, over every SIMD tail, misaligned and in place; NaN and inf as torch.
#include "kernels/rms_norm.hpp"

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;

namespace {

std::vector<double> rms_norm64(const float* x, const float* w, std::size_t rows, std::size_t n, double eps) {
  std::vector<double> y(rows * n);
  for (std::size_t r = 0; r < rows; ++r) {
    double sq = 0;
    for (std::size_t i = 0; i < n; ++i) sq += double(x[r * n + i]) * x[r * n + i];
    const double inv = 1.0 / std::sqrt(sq / double(n) + eps);
    for (std::size_t i = 0; i < n; ++i) y[r * n + i] = x[r * n + i] * inv * (w ? w[i] : 1.0);
  }
  return y;
}

// Normalised values are O(1): float32 sums of up to 65 squares, 1e-5 relative + 1e-6 absolute.
constexpr Tolerance float64{1e-5, 1e-6};

void check(const Buffer& x, const Buffer* w, std::size_t rows, std::size_t n, float eps) {
  const std::size_t count = rows * n;
  Buffer y(count, x.offset), y_ref(count, x.offset), in_place(x);
  const Buffer x_before(x);
  const float* wp = w ? w->data() : nullptr;
  aw::kernels::rms_norm(x.data(), wp, y.data(), rows, n, eps);
  aw::kernels::rms_norm_reference(x.data(), wp, y_ref.data(), rows, n, eps);
  aw::kernels::rms_norm(in_place.data(), wp, in_place.data(), rows, n, eps);
  check_simd_reference_float64("", y.data(), y_ref.data(), rms_norm64(x.data(), wp, rows, n, eps), nullptr, float64,
                               float64);
  CHECK(in_place.same_values(y));
  CHECK(x.same_values(x_before));
  CHECK(y.guards_intact());
  CHECK(y_ref.guards_intact());
  CHECK(in_place.guards_intact());
}

}  // namespace

TEST_CASE("rms_norm: xsimd == reference == float64 over every tail, with/without weight, eps", "[kernels][rms_norm]") {
  std::mt19937 rng(20240711);
  for (std::size_t offset : offsets)
    for (std::size_t rows : {std::size_t(1), std::size_t(3)})
      for (std::size_t n : sizes)
        for (float eps : {1e-6f, 0.5f})
          for (bool weighted : {false, true}) {
            CAPTURE(offset, rows, n, eps, weighted);
            const Buffer x = normal_buffer(rng, rows * n, offset, 2.0f, 0.5f);
            const Buffer w = normal_buffer(rng, n, offset, 1.0f, 1.0f);
            check(x, weighted ? &w : nullptr, rows, n, eps);
          }
}

TEST_CASE("rms_norm: hand-checked values; NaN and inf as torch; empty shapes write nothing", "[kernels][rms_norm]") {
  // [1, 2, 3, 4]: mean of squares 7.5 -> x / sqrt(7.5 + 1e-6)
  const float x[] = {1, 2, 3, 4};
  const float w[] = {1, 2, 1, 0.5f};
  float y[4];
  aw::kernels::rms_norm(x, w, y, 1, 4, 1e-6f);
  const double s = std::sqrt(7.5 + 1e-6);
  CHECK(y[0] == Approx(1 / s).margin(1e-6));
  CHECK(y[1] == Approx(4 / s).margin(1e-6));
  CHECK(y[3] == Approx(2 / s).margin(1e-6));

  for (std::size_t n : {std::size_t(3), std::size_t(17)}) {
    CAPTURE(n);
    Buffer xs(2 * n, 1);
    for (std::size_t i = 0; i < 2 * n; ++i) xs[i] = float(i % 5) - 1.0f;
    std::vector<float> ys(2 * n);
    xs[n - 1] = not_a_number;  // last element of row 0 (in the tail)
    check(xs, nullptr, 2, n, 1e-5f);
    aw::kernels::rms_norm(xs.data(), nullptr, ys.data(), 2, n, 1e-5f);
    for (std::size_t i = 0; i < n; ++i) CHECK(std::isnan(ys[i]));
    for (std::size_t i = n; i < 2 * n; ++i) CHECK(std::isfinite(ys[i]));
    xs[n - 1] = infinity;  // x * rsqrt(inf) = x * 0
    aw::kernels::rms_norm(xs.data(), nullptr, ys.data(), 2, n, 1e-5f);
    for (std::size_t i = 0; i + 1 < n; ++i) CHECK(ys[i] == 0.0f);
    CHECK(std::isnan(ys[n - 1]));
  }

  Buffer e(0, 1), f(0, 1);
  aw::kernels::rms_norm(e.data(), nullptr, f.data(), 0, 5, 1e-5f);
  aw::kernels::rms_norm(e.data(), nullptr, f.data(), 4, 0, 1e-5f);
  CHECK(f.guards_intact());
}
