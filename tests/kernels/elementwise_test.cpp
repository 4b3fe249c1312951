// Tests for src/kernels/elementwise: add and mul with each operand contiguous (step 1) or one
// stretched value (step 0), xsimd against the scalar reference and float64, over every SIMD
// tail, misaligned, in place (y = a or y = b); IEEE special values pass through unchanged.
#include "kernels/elementwise.hpp"

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;

namespace {

using Kernel = void (*)(const float*, std::size_t, const float*, std::size_t, float*, std::size_t);

struct Case {
  const char* name;
  Kernel simd, reference;
  bool is_add;
};
const Case cases[] = {{"add", aw::kernels::add, aw::kernels::add_reference, true},
                      {"mul", aw::kernels::mul, aw::kernels::mul_reference, false}};

// float32 sum/product of float inputs, computed in float64: within 1 rounding of float.
constexpr Tolerance float64{1e-7, 1e-37};

std::vector<double> want(const Case& c, const float* a, std::size_t as, const float* b, std::size_t bs, std::size_t n) {
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = a[i * as], v = b[i * bs];
    y[i] = c.is_add ? u + v : u * v;
  }
  return y;
}

}  // namespace

TEST_CASE("elementwise: xsimd == reference == float64 for steps (1,1), (1,0), (0,1), (0,0)", "[kernels][elementwise]") {
  std::mt19937 rng(20240702);
  for (const Case& c : cases)
    for (std::size_t offset : offsets)
      for (std::size_t n : sizes)
        for (std::size_t a_step : {0, 1})
          for (std::size_t b_step : {0, 1}) {
            CAPTURE(c.name, offset, n, a_step, b_step);
            const Buffer a = normal_buffer(rng, a_step ? n : 1, offset, 3.0f);
            const Buffer b = normal_buffer(rng, b_step ? n : 1, offset, 3.0f);
            Buffer y(n, offset), y_ref(n, offset);
            c.simd(a.data(), a_step, b.data(), b_step, y.data(), n);
            c.reference(a.data(), a_step, b.data(), b_step, y_ref.data(), n);
            const auto w = want(c, a.data(), a_step, b.data(), b_step, n);
            const Comparison simd_vs_f64 = compare(y.data(), w, float64);
            const Comparison ref_vs_f64 = compare(y_ref.data(), w, float64);
            INFO("xsimd vs float64: " << describe(simd_vs_f64));
            INFO("reference vs float64: " << describe(ref_vs_f64));
            CHECK(simd_vs_f64.ok);
            CHECK(ref_vs_f64.ok);
            CHECK(y.same_values(y_ref));
            CHECK(y.guards_intact());
            CHECK(y_ref.guards_intact());
            // in place: y = a (a contiguous) or y = b (b contiguous)
            if (a_step) {
              Buffer in_place(a);
              c.simd(in_place.data(), 1, b.data(), b_step, in_place.data(), n);
              CHECK(in_place.same_values(y));
              CHECK(in_place.guards_intact());
            }
            if (b_step) {
              Buffer in_place(b);
              c.simd(a.data(), a_step, in_place.data(), 1, in_place.data(), n);
              CHECK(in_place.same_values(y));
            }
          }
}

TEST_CASE("elementwise: NaN and inf follow IEEE (inf - inf = NaN, 0 * inf = NaN)", "[kernels][elementwise]") {
  const float a[] = {not_a_number, infinity, infinity, -infinity, 0.0f, 1.0f, 2.0f, 3.0f, infinity};
  const float b[] = {1.0f, -infinity, 1.0f, -infinity, infinity, not_a_number, 2.0f, 3.0f, 0.0f};
  float sum[9], prod[9];
  aw::kernels::add(a, 1, b, 1, sum, 9);
  aw::kernels::mul(a, 1, b, 1, prod, 9);
  for (int i = 0; i < 9; ++i) {
    const float s = a[i] + b[i], p = a[i] * b[i];
    CHECK((sum[i] == s || (std::isnan(sum[i]) && std::isnan(s))));
    CHECK((prod[i] == p || (std::isnan(prod[i]) && std::isnan(p))));
  }
  CHECK(std::isnan(sum[1]));
  CHECK(std::isnan(prod[4]));
}
