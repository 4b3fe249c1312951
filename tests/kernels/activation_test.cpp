// Tests for src/kernels/activation: relu, gelu (exact, erf), gelu_tanh and silu, xsimd against the
// scalar reference and against float64 written here from the formulas, over every SIMD tail,
// misaligned and in place; special values as torch (NaN stays NaN; -inf -> NaN for GELU).
#include "kernels/activation.hpp"

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;

namespace {

using Kernel = void (*)(const float*, float*, std::size_t);

// float64 from the formulas (torch's definitions).
double relu64(double x) { return std::isnan(x) ? x : (x < 0 ? 0.0 : x); }
double gelu64(double x) { return x * 0.5 * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh64(double x) {
  const double pi = 3.14159265358979323846;
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
}
double silu64(double x) { return x / (1.0 + std::exp(-x)); }

struct Case {
  const char* name;
  Kernel simd, reference;
  double (*f64)(double);
  // GELU's x/2 (1 + erf(...)) cancels for negative x: 1 + erf is known to an ulp of 1 (float32,
  // as in torch), so its error grows as |x| ulp(1) / 2 where the value itself vanishes
  bool cancels;
};
const Case cases[] = {
    {"relu", aw::kernels::relu, aw::kernels::relu_reference, relu64, false},
    {"gelu", aw::kernels::gelu, aw::kernels::gelu_reference, gelu64, true},
    {"gelu_tanh", aw::kernels::gelu_tanh, aw::kernels::gelu_tanh_reference, gelu_tanh64, true},
    {"silu", aw::kernels::silu, aw::kernels::silu_reference, silu64, false},
};

// Against float64: 2e-6 of |y| (GELU's rational erf, xsimd's tanh: within a few ulp), plus, where
// GELU cancels, 3e-7 |x| (5 ulp of 1 times |x| / 2: the erf is within 3.4 ulp of 1, and the
// reference's erff within 1); a floor of 1e-30 for the zeros.
constexpr Tolerance float64{2e-6, 1e-30};
constexpr double cancellation = 0.15;  // 2e-6 x 0.15 |x| = 3e-7 |x|

void check(const Case& c, const Buffer& x) {
  const std::size_t n = x.count;
  Buffer y(n, x.offset), y_ref(n, x.offset), in_place(x);
  const Buffer x_before(x);
  c.simd(x.data(), y.data(), n);
  c.reference(x.data(), y_ref.data(), n);
  c.simd(in_place.data(), in_place.data(), n);
  std::vector<double> want(n), scale(n);
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = c.f64(x.data()[i]);
    scale[i] = std::fabs(want[i]) + (c.cancels ? cancellation * std::fabs(x.data()[i]) : 0.0);
  }
  check_simd_reference_float64(std::string(c.name) + " ", y.data(), y_ref.data(), want, &scale, float64, float64);
  CHECK(in_place.same_values(y));
  CHECK(x.same_values(x_before));
  CHECK(y.guards_intact());
  CHECK(y_ref.guards_intact());
  CHECK(in_place.guards_intact());
}

}  // namespace

TEST_CASE("activations: xsimd == reference == float64 over every tail, misaligned, in place", "[kernels][activation]") {
  for (unsigned seed = 20240701; seed < 20240701 + 8; ++seed) {  // several draws: no seed is special
    std::mt19937 rng(seed);
    for (const Case& c : cases)
      for (std::size_t offset : offsets)
        for (std::size_t n : sizes)
          for (float stddev : {1.0f, 4.0f}) {
            CAPTURE(seed, c.name, offset, n, stddev);
            check(c, normal_buffer(rng, n, offset, stddev));
          }
  }
}

TEST_CASE("activations: special values as torch (NaN stays NaN; GELU(-inf) = NaN, GELU(+inf) = +inf)",
          "[kernels][activation]") {
  // Placed at every position of a 9-element row (vector part and tail), next to ordinary values.
  const float specials[] = {not_a_number, infinity, -infinity, 0.0f, -0.0f, 1e30f, -1e30f, 20.0f, -20.0f};
  for (const Case& c : cases)
    for (float s : specials)
      for (std::size_t at = 0; at < 9; ++at) {
        CAPTURE(c.name, s, at);
        Buffer x(9, 1);
        for (std::size_t i = 0; i < 9; ++i) x[i] = 0.25f * float(i) - 1.0f;
        x[at] = s;
        check(c, x);
      }
  float y[3];
  const float x[3] = {not_a_number, infinity, -infinity};
  aw::kernels::relu(x, y, 3);
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == infinity);
  CHECK(y[2] == 0.0f);
  for (Kernel gelu : {Kernel(aw::kernels::gelu), Kernel(aw::kernels::gelu_tanh)}) {
    gelu(x, y, 3);
    CHECK(std::isnan(y[0]));
    CHECK(y[1] == infinity);
    CHECK(std::isnan(y[2]));  // -inf * 0.5 * (1 + (-1)), as torch
  }
  aw::kernels::silu(x, y, 3);
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == infinity);
  CHECK(std::isnan(y[2]));  // -inf / (1 + inf), as torch
}

TEST_CASE("activations: hand-checked values", "[kernels][activation]") {
  const float x[] = {-1.0f, 0.0f, 0.5f, 1.0f, 2.0f};
  float relu_y[5], gelu_y[5], tanh_y[5], silu_y[5];
  aw::kernels::relu(x, relu_y, 5);
  aw::kernels::gelu(x, gelu_y, 5);
  aw::kernels::gelu_tanh(x, tanh_y, 5);
  aw::kernels::silu(x, silu_y, 5);
  // torch.relu / F.gelu / F.gelu(approximate='tanh') of [-1, 0, 0.5, 1, 2]
  const double relu_want[] = {0, 0, 0.5, 1, 2};
  const double gelu_want[] = {-0.158655254, 0, 0.345731436, 0.841344746, 1.954499736};
  const double tanh_want[] = {-0.158808009, 0, 0.345714009, 0.841191991, 1.954597694};
  const double silu_want[] = {-0.268941421, 0, 0.311229666, 0.731058579, 1.761594156};  // F.silu
  for (int i = 0; i < 5; ++i) {
    CHECK(relu_y[i] == relu_want[i]);
    CHECK(gelu_y[i] == Approx(gelu_want[i]).margin(1e-6));
    CHECK(tanh_y[i] == Approx(tanh_want[i]).margin(1e-6));
    CHECK(silu_y[i] == Approx(silu_want[i]).margin(1e-6));
  }
}

TEST_CASE("activations: a value's bytes do not depend on its place in the call (split rows == whole)",
          "[kernels][activation]") {
  // The int8 layer's fused epilogue runs the activation over 64 columns of a row at a time, the
  // model's unfused path over the whole output: the same bytes only if no value's result depends
  // on whether it fell in a vector or in the tail.
  std::mt19937 rng(20261128);
  for (const Case& c : cases)
    for (std::size_t n : sizes) {
      const Buffer x = normal_buffer(rng, n, 0, 4.0f);
      Buffer whole(n, 0);
      c.simd(x.data(), whole.data(), n);
      for (std::size_t split = 1; split < n; ++split) {
        CAPTURE(c.name, n, split);
        Buffer parts(n, 0);
        c.simd(x.data(), parts.data(), split);
        c.simd(x.data() + split, parts.data() + split, n - split);
        CHECK(parts.same_values(whole));
      }
    }
}
