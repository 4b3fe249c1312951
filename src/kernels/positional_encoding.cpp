// Sinusoidal positional encoding: xsimd kernel and its scalar reference. See positional_encoding.hpp.
#include "kernels/positional_encoding.hpp"

#include <cmath>

#include "kernels/simd.hpp"

namespace aw::kernels {
namespace {

// float64: the angles pos / 10000^(2i/d) must not lose precision for large positions.
using batch = simd::double_batch;
constexpr std::size_t lanes = simd::double_lanes;
constexpr double base = 10000.0;

// One (sin, cos) pair: columns 2i and (if it exists) 2i + 1 of row `row` (d_model floats).
void write_pair(float* row, std::size_t d_model, std::size_t two_i, double sin_v, double cos_v) {
  row[two_i] = static_cast<float>(sin_v);
  if (two_i + 1 < d_model) row[two_i + 1] = static_cast<float>(cos_v);  // odd d_model: dropped
}

}  // namespace

void positional_encoding(float* pe, std::size_t max_length, std::size_t d_model) {
  const std::size_t pairs = (d_model + 1) / 2;  // even columns 0, 2, ... < d_model
  const batch d_v(static_cast<double>(d_model));
  for (std::size_t pos = 0; pos < max_length; ++pos) {
    float* row = pe + pos * d_model;  // (d_model)
    const batch pos_v(static_cast<double>(pos));
    simd::vector_then_scalar<lanes>(
        pairs,
        [&](std::size_t i) {
          // 2i for each lane, then denominator = 10000^(2i / d_model), angle = pos / denominator
          alignas(64) double two_i[lanes];
          for (std::size_t l = 0; l < lanes; ++l) two_i[l] = 2.0 * static_cast<double>(i + l);
          const batch denominator = xsimd::pow(batch(base), batch::load_aligned(two_i) / d_v);
          const auto sin_cos = xsimd::sincos(pos_v / denominator);
          // interleave sin and cos into the row (the stores are scalar: columns alternate)
          alignas(64) double s[lanes], c[lanes];
          sin_cos.first.store_aligned(s);
          sin_cos.second.store_aligned(c);
          for (std::size_t l = 0; l < lanes; ++l) write_pair(row, d_model, 2 * (i + l), s[l], c[l]);
        },
        [&](std::size_t i) {
          const double angle =
              static_cast<double>(pos) / std::pow(base, 2.0 * static_cast<double>(i) / static_cast<double>(d_model));
          write_pair(row, d_model, 2 * i, std::sin(angle), std::cos(angle));
        });
  }
}

void positional_encoding_reference(float* pe, std::size_t max_length, std::size_t d_model) {
  for (std::size_t pos = 0; pos < max_length; ++pos)
    for (std::size_t j = 0; j < d_model; ++j) {
      const double two_i = static_cast<double>(j - j % 2);
      const double angle = static_cast<double>(pos) / std::pow(base, two_i / static_cast<double>(d_model));
      pe[pos * d_model + j] = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
}

}  // namespace aw::kernels
