// Tests for src/kernels/quantize: the row quantizers against their scalar references (the same
// bytes, scales and zero points) over every tail and misalignment, and against float64 (each value
// within its quantization step), with special rows (zeros, one sign, NaN, infinity).
#include "kernels/quantize.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;
using aw::kernels::ActivationQuantization;
using aw::kernels::WeightQuantization;

namespace {

// The rows every test sweeps: sizes through every tail of a 16-value group, with values of
// several shapes (both signs, one sign, a wide range).
std::vector<Buffer> test_rows(std::mt19937& rng, std::size_t k, std::size_t offset) {
  std::vector<Buffer> rows;
  rows.push_back(uniform_buffer(rng, k, offset));
  rows.push_back(normal_buffer(rng, k, offset, 3.0f, 0.5f));
  Buffer positive = uniform_buffer(rng, k, offset), negative = uniform_buffer(rng, k, offset);
  for (std::size_t i = 0; i < k; ++i) {
    positive[i] = std::fabs(positive[i]) + 0.25f;
    negative[i] = -std::fabs(negative[i]) * 1e-3f;
  }
  rows.push_back(positive);
  rows.push_back(negative);
  Buffer outlier = normal_buffer(rng, k, offset, 1.0f);
  if (k > 2) outlier[k / 2] = 40.0f;  // one large value, as real activations have
  rows.push_back(outlier);
  return rows;
}

// every remainder of a 16-value group (and of max_quad_abs_sum's blocks of 8), then past them
const std::size_t row_sizes[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,  11,
                                 12, 13, 14, 15, 16, 17, 31, 33, 64, 65, 100, 257};

}  // namespace

TEST_CASE("quantize_activation_row: kernel == reference, u7 within a step of float64", "[kernels][quantize]") {
  std::mt19937 rng(20260101);
  for (std::size_t offset : offsets)
    for (std::size_t k : row_sizes)
      for (const Buffer& row : test_rows(rng, k, offset)) {
        CAPTURE(k, offset);
        const float* x = row.data();
        std::vector<std::uint8_t> q(k + 1, 0xee), q_ref(k + 1, 0xee);
        std::vector<std::int16_t> q16(k + 1, 0x7eee);
        const ActivationQuantization a = aw::kernels::quantize_activation_row(x, k, q.data());
        const ActivationQuantization a16 = aw::kernels::quantize_activation_row(x, k, q16.data());
        const ActivationQuantization a_ref = aw::kernels::quantize_activation_row_reference(x, k, q_ref.data());
        CHECK(a.scale == a_ref.scale);
        CHECK(a.zero_point == a_ref.zero_point);
        CHECK(a16.scale == a_ref.scale);
        CHECK(a16.zero_point == a_ref.zero_point);
        CHECK(q == q_ref);  // the byte after the row untouched too
        CHECK(q[k] == 0xee);
        CHECK(q16[k] == 0x7eee);
        CHECK(a.zero_point >= 0);
        CHECK(a.zero_point <= 127);
        // scale = (max(x, 0) - min(x, 0)) / 127; each value within one step (a half, but the
        // top of the range may round up to 128 and be clamped) of its float64 value
        double lo = 0, hi = 0;
        for (std::size_t i = 0; i < k; ++i) lo = std::min(lo, double(x[i])), hi = std::max(hi, double(x[i]));
        CHECK(a.scale == Approx((hi - lo) / 127).epsilon(1e-6));
        for (std::size_t i = 0; i < k; ++i) {
          CAPTURE(i, x[i], int(q[i]));
          CHECK(int(q16[i]) == int(q[i]));
          CHECK(q[i] <= 127);
          const double back = double(a.scale) * (double(q[i]) - a.zero_point);
          CHECK(std::fabs(back - x[i]) <= a.scale * (1 + 1e-5));
          if (std::fabs(x[i]) < 0.9 * std::max(hi, -lo))  // away from the clamped ends: half a step
            CHECK(std::fabs(back - x[i]) <= 0.5 * a.scale * (1 + 1e-4) + 1e-6 * std::fabs(x[i]));
        }
      }
}

TEST_CASE("quantize_activation_row: a row of zeros, a constant row, NaN and infinity", "[kernels][quantize]") {
  for (std::size_t k : {1, 5, 16, 37}) {
    CAPTURE(k);
    std::vector<float> zeros(k, 0.0f), constant(k, -2.5f);
    std::vector<std::uint8_t> q(k), q_ref(k);
    ActivationQuantization a = aw::kernels::quantize_activation_row(zeros.data(), k, q.data());
    CHECK(a.scale == 0.0f);
    CHECK(a.zero_point == 0);
    CHECK(q == std::vector<std::uint8_t>(k, 0));
    // min(x, 0) = -2.5, max(x, 0) = 0: all at q = 0 with zero point 127
    a = aw::kernels::quantize_activation_row(constant.data(), k, q.data());
    CHECK(a.zero_point == 127);
    CHECK(q == std::vector<std::uint8_t>(k, 0));
    CHECK(a.scale * (0 - a.zero_point) == Approx(-2.5));
    for (float special : {not_a_number, infinity, -infinity}) {
      CAPTURE(special);
      std::vector<float> x(k, 1.0f);
      x[k / 2] = special;
      a = aw::kernels::quantize_activation_row(x.data(), k, q.data());
      const ActivationQuantization a_ref = aw::kernels::quantize_activation_row_reference(x.data(), k, q_ref.data());
      CHECK(std::isnan(a.scale));  // everything computed from this row is NaN
      CHECK(std::isnan(a_ref.scale));
      CHECK(q == q_ref);
      for (auto v : q) CHECK(v <= 127);
    }
  }
}

TEST_CASE("quantize_activation_row: rows at float32's extremes keep finite constants", "[kernels][quantize]") {
  // 127 / range overflows under ~3.7e-37 (the inverse is held at FLT_MAX), and hi - lo overflows
  // for values of both signs near FLT_MAX (scale hi / 127 - lo / 127): every value still within a
  // step of float64, never the garbage an infinite inverse gave (0 * inf = NaN)
  const float big = 3e38f;
  const std::vector<std::vector<float>> specials = {{1e-37f, 0.0f}, {-1e-37f, 0.0f},   {1e-38f, -3e-38f},
                                                    {1e-40f, 0.0f}, {big, -big, 1.0f}, {big, -1.0f}};
  for (const auto& values : specials)
    for (std::size_t k : {3, 5, 16, 37}) {
      std::vector<float> x(k, 0.0f);
      for (std::size_t i = 0; i < values.size(); ++i) x[(i * 7) % k] = values[i];
      CAPTURE(k, values[0]);
      std::vector<std::uint8_t> q(k), q_ref(k);
      const ActivationQuantization a = aw::kernels::quantize_activation_row(x.data(), k, q.data());
      const ActivationQuantization a_ref = aw::kernels::quantize_activation_row_reference(x.data(), k, q_ref.data());
      CHECK(a.scale == a_ref.scale);
      CHECK(a.zero_point == a_ref.zero_point);
      CHECK(q == q_ref);
      CHECK(std::isfinite(a.scale));
      CHECK(a.scale > 0.0f);
      CHECK(a.zero_point >= 0);
      CHECK(a.zero_point <= 127);
      for (std::size_t i = 0; i < k; ++i) {
        CAPTURE(i, x[i], int(q[i]));
        CHECK(q[i] <= 127);
        CHECK(std::fabs(double(a.scale) * (double(q[i]) - a.zero_point) - x[i]) <= a.scale * (1 + 1e-5));
      }
    }
}

TEST_CASE("weight_quantization: rows at float32's extremes keep finite constants", "[kernels][quantize]") {
  // a row under ~3.7e-37 (127 / max |w| overflows: the inverse is held at FLT_MAX) keeps its zeros
  // at 0 and its signs; a row whose quad sums overflow gets scale max |w| / 64
  const std::vector<std::vector<float>> specials = {
      {1e-37f, 0.0f, -5e-38f}, {-2e-39f, 1e-40f}, {2e38f, 2e38f, -3e38f, 1.0f}, {3.4e38f, -3.4e38f}};
  for (const auto& values : specials)
    for (std::size_t k : {3, 8, 9, 37}) {
      std::vector<float> w(k, 0.0f);
      for (std::size_t i = 0; i < values.size(); ++i) w[(i * 4) % k] = values[i];
      CAPTURE(k, values[0]);
      const WeightQuantization row = aw::kernels::weight_quantization(w.data(), k);
      const WeightQuantization row_ref = aw::kernels::weight_quantization_reference(w.data(), k);
      CHECK(row.scale == row_ref.scale);
      CHECK(row.inverse == row_ref.inverse);
      CHECK(std::isfinite(row.scale));
      CHECK(std::isfinite(row.inverse));
      std::vector<std::int8_t> q(k), q_ref(k);
      aw::kernels::quantize_weights(w.data(), k, row, q.data());
      aw::kernels::quantize_weights_reference(w.data(), k, row_ref, q_ref.data());
      CHECK(q == q_ref);
      for (std::size_t i = 0; i < k; ++i) {
        CAPTURE(i, w[i], int(q[i]));
        if (w[i] == 0.0f) CHECK(q[i] == 0);
        CHECK(std::fabs(double(row.scale) * q[i] - w[i]) <= 0.5 * row.scale * (1 + 1e-5));
      }
      for (std::size_t b = 0; b < k; b += 8)  // each quad's sum |q| within the int16 bound (258)
        for (std::size_t first : {b, b + 2}) {
          int sum = 0;
          for (std::size_t i : {first, first + 1, first + 4, first + 5})
            if (i < k) sum += std::abs(int(q[i]));
          CHECK(sum <= 258);
        }
    }
}

TEST_CASE("quantize_weights: kernel == reference, int8 within half a step of float64", "[kernels][quantize]") {
  std::mt19937 rng(20260102);
  for (std::size_t offset : offsets)
    for (std::size_t k : row_sizes)
      for (const Buffer& weights : test_rows(rng, k, offset)) {
        CAPTURE(k, offset);
        const float* w = weights.data();
        const WeightQuantization row = aw::kernels::weight_quantization(w, k);
        const WeightQuantization row_ref = aw::kernels::weight_quantization_reference(w, k);
        CHECK(row.scale == row_ref.scale);
        CHECK(row.inverse == row_ref.inverse);
        std::vector<std::int8_t> q(k + 1, 99), q_ref(k + 1, 99);
        aw::kernels::quantize_weights(w, k, row, q.data());
        aw::kernels::quantize_weights_reference(w, k, row, q_ref.data());
        CHECK(q == q_ref);
        CHECK(q[k] == 99);
        // float64: scale = max(max |w| / 127, the largest quad's sum |w| / 256)
        double max_abs = 0, max_quad = 0;
        for (std::size_t i = 0; i < k; ++i) max_abs = std::max(max_abs, std::fabs(double(w[i])));
        for (std::size_t b = 0; b < k; b += 8)
          for (std::size_t first : {0, 2}) {
            double sum = 0;
            for (std::size_t i : {first, first + 1, first + 4, first + 5})
              if (b + i < k) sum += std::fabs(double(w[b + i]));
            max_quad = std::max(max_quad, sum);
          }
        const bool by_quad = max_quad / 256 > max_abs / 127;
        CHECK(row.scale == Approx(std::max(max_abs / 127, max_quad / 256)).epsilon(1e-6));
        CHECK(aw::kernels::max_quad_abs_sum(w, k) == aw::kernels::max_quad_abs_sum_reference(w, k));
        CHECK(aw::kernels::max_quad_abs_sum(w, k) == Approx(max_quad).epsilon(1e-6));
        bool reaches_limit = k == 0;
        for (std::size_t i = 0; i < k; ++i) {
          CAPTURE(i, w[i], int(q[i]));
          CHECK(q[i] >= -127);
          CHECK(q[i] <= 127);
          reaches_limit = reaches_limit || (!by_quad && std::abs(int(q[i])) == 127);
          CHECK(std::fabs(double(row.scale) * q[i] - w[i]) <= 0.5 * row.scale * (1 + 1e-5) + 1e-7 * std::fabs(w[i]));
        }
        // every quad's sum |q| at most 258 (the int8 kernel's int16 sums), and the largest quad
        // (where it decides the scale) at 256 up to rounding
        for (std::size_t b = 0; b < k; b += 8)
          for (std::size_t first : {0, 2}) {
            int sum = 0;
            for (std::size_t i : {first, first + 1, first + 4, first + 5})
              if (b + i < k) sum += std::abs(int(q[b + i]));
            CHECK(sum <= 258);
            reaches_limit = reaches_limit || (by_quad && sum >= 254);
          }
        CHECK(reaches_limit);  // the largest |w| maps to +-127, or the largest quad to ~256
        // piece by piece (as quantize_weight_rows does): the same bytes
        if (k > 8) {
          std::vector<std::int8_t> pieces(k);
          aw::kernels::quantize_weights(w, 5, row, pieces.data());
          aw::kernels::quantize_weights(w + 5, k - 5, row, pieces.data() + 5);
          CHECK(std::vector<std::int8_t>(q.begin(), q.begin() + k) == pieces);
        }
      }
}

TEST_CASE("weight_quantization: a quad of large values sets the scale, its sum |q| stays within 258",
          "[kernels][quantize]") {
  // quads of a block of 8: values 0, 1, 4, 5 and 2, 3, 6, 7
  std::vector<float> w = {1.0f, 1.0f, 0.1f, 0.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.5f};
  for (bool reference : {false, true}) {
    const WeightQuantization row = reference ? aw::kernels::weight_quantization_reference(w.data(), w.size())
                                             : aw::kernels::weight_quantization(w.data(), w.size());
    CHECK(row.scale == 4.0f / 256.0f);  // not 1 / 127: four values of 1 in one quad
    std::vector<std::int8_t> q(w.size());
    aw::kernels::quantize_weights(w.data(), w.size(), row, q.data());
    CHECK(std::vector<int>(q.begin(), q.end()) == std::vector<int>{64, 64, 6, 0, 64, 64, 0, 0, 32});
  }
  // the largest quad (four values of 64 steps) sets the scale; in another quad, values just above
  // half a step round up: its sum |w| / scale is 255.04, its sum |q| 257 (at most 256 + 4 x 1/2)
  const float step = 1.0f / 64.0f;
  w = {64 * step,     64 * step,     0, 0, 64 * step,     64 * step,    0, 0,
       63.51f * step, 63.51f * step, 0, 0, 63.51f * step, 64.51f * step};
  for (bool reference : {false, true}) {
    const WeightQuantization row = reference ? aw::kernels::weight_quantization_reference(w.data(), w.size())
                                             : aw::kernels::weight_quantization(w.data(), w.size());
    CHECK(row.scale == step);
    std::vector<std::int8_t> q(w.size());
    aw::kernels::quantize_weights(w.data(), w.size(), row, q.data());
    CHECK(std::vector<int>(q.begin(), q.end()) == std::vector<int>{64, 64, 0, 0, 64, 64, 0, 0, 64, 64, 0, 0, 64, 65});
  }
}

TEST_CASE("weight_quantization: zeros give scale 0, NaN and infinity scale NaN", "[kernels][quantize]") {
  std::vector<float> w(9, 0.0f);
  CHECK(aw::kernels::weight_quantization(w.data(), w.size()).scale == 0.0f);
  CHECK(aw::kernels::weight_quantization_reference(w.data(), w.size()).scale == 0.0f);
  for (float special : {not_a_number, infinity, -infinity}) {
    w[4] = special;
    CHECK(std::isnan(aw::kernels::weight_quantization(w.data(), w.size()).scale));
    CHECK(std::isnan(aw::kernels::weight_quantization_reference(w.data(), w.size()).scale));
  }
}
