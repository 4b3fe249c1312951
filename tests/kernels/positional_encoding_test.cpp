// Tests for src/kernels/positional_encoding: the xsimd kernel (float64 lanes) against its
// scalar reference and against float64 written here from document 004's numpy code
// (denominator = 10000 ** (even_i / d_model), sin/cos interleaved, odd d_model drops the last
// column), E4.1's printed matrix, E4.2's size (100 x 400), and every SIMD tail of d_model.
#include "kernels/positional_encoding.hpp"

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;

namespace {

// Document 004, PositionalEncoder.generate_positional_encoding without the rounding:
//   even_i = arange(0, d_model, 2); denominator = 10000 ** (even_i / d_model)
//   stack(sin(pos / denominator), cos(pos / denominator)) interleaved; odd d_model: drop last column
std::vector<double> document004_float64(std::size_t max_length, std::size_t d_model) {
  const std::size_t pairs = (d_model + 1) / 2;
  std::vector<double> pe(max_length * d_model);
  for (std::size_t pos = 0; pos < max_length; ++pos) {
    std::vector<double> row;  // 2 * pairs columns, before the drop
    for (std::size_t k = 0; k < pairs; ++k) {
      const double denominator = std::pow(10000.0, double(2 * k) / double(d_model));
      row.push_back(std::sin(double(pos) / denominator));
      row.push_back(std::cos(double(pos) / denominator));
    }
    for (std::size_t j = 0; j < d_model; ++j) pe[pos * d_model + j] = row[j];  // drops row[d_model] if odd
  }
  return pe;
}

// One float32 rounding of values in [-1, 1]: 1e-7 relative + 1e-7 absolute.
constexpr Tolerance float64{1e-7, 1e-7};

void check(std::size_t max_length, std::size_t d_model, std::size_t offset) {
  const std::size_t count = max_length * d_model;
  Buffer pe(count, offset), pe_ref(count, offset);
  aw::kernels::positional_encoding(pe.data(), max_length, d_model);
  aw::kernels::positional_encoding_reference(pe_ref.data(), max_length, d_model);
  const auto want = document004_float64(max_length, d_model);
  check_simd_reference_float64("", pe.data(), pe_ref.data(), want, nullptr, float64, float64);
  CHECK(pe.guards_intact());
  CHECK(pe_ref.guards_intact());
}

}  // namespace

TEST_CASE("positional_encoding: xsimd == reference == document 004 in float64 over every d_model tail",
          "[kernels][positional_encoding]") {
  for (std::size_t offset : offsets)
    for (std::size_t max_length : {std::size_t(0), std::size_t(1), std::size_t(5), std::size_t(17)})
      for (std::size_t d_model : sizes) {
        CAPTURE(offset, max_length, d_model);
        check(max_length, d_model, offset);
      }
}

TEST_CASE("positional_encoding: E4.2's matrix (max_length 100, d_model 400), odd sizes, long sequences",
          "[kernels][positional_encoding]") {
  check(100, 400, 0);
  check(100, 401, 1);
  check(31, 129, 1);
  check(5000, 3, 0);  // angles up to 4999 radians stay accurate (float64 inside)
}

TEST_CASE("positional_encoding: E4.1 PositionalEncoder(d_model=3, max_length=5, rounding=2)",
          "[kernels][positional_encoding]") {
  const double printed[5][3] = {
      {0, 1, 0}, {0.84, 0.54, 0}, {0.91, -0.42, 0}, {0.14, -0.99, 0.01}, {-0.76, -0.65, 0.01}};
  float pe[15];
  aw::kernels::positional_encoding(pe, 5, 3);
  for (std::size_t pos = 0; pos < 5; ++pos)
    for (std::size_t j = 0; j < 3; ++j) {
      CAPTURE(pos, j, pe[pos * 3 + j]);
      CHECK(std::round(pe[pos * 3 + j] * 100.0) / 100.0 == Approx(printed[pos][j]).margin(1e-9));
    }
  // The last column uses the second denominator 10000^(2/3), not 10000^(1/3) nor a cos.
  CHECK(pe[3 * 3 + 2] == Approx(std::sin(3.0 / std::pow(10000.0, 2.0 / 3.0))).margin(1e-7));
}
