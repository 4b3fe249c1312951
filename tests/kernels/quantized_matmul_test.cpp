// Tests for src/kernels/quantized_matmul: the packed weight layout, the int8 linear kernel on every
// way of computing the products this build has against its scalar reference over every m / k / n
// tail (the same bytes in wasm, where no multiply-add can be fused; within rounding natively),
// exact integer sums, and the quantization error against float64.
#include "kernels/quantized_matmul.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/activation.hpp"
#include "kernels/kernel_test_util.hpp"
#include "kernels/quantize.hpp"

using namespace kernel_test;
using aw::kernels::Int8Product;
using aw::kernels::OutputActivation;

namespace {

const Int8Product all_products[] = {Int8Product::RelaxedDot, Int8Product::RelaxedI16Dot, Int8Product::Simd128Dot,
                                    Int8Product::Portable};

std::vector<Int8Product> available_products() {
  std::vector<Int8Product> out;
  for (Int8Product p : all_products)
    if (aw::kernels::int8_product_available(p)) out.push_back(p);
  return out;
}

// A weight (n, k) quantized into the packed layout, owning its storage.
struct PackedWeight {
  std::vector<std::int8_t> packed;
  std::vector<float> scales;
  std::vector<std::int32_t> sums;
  std::size_t n, k;
  PackedWeight(const float* w, std::size_t n_, std::size_t k_)
      : packed(aw::kernels::quantized_weight_bytes(n_, k_), 0x55),
        scales(aw::kernels::quantized_weight_channels(n_), 123.0f),
        sums(aw::kernels::quantized_weight_channels(n_), 12345),
        n(n_),
        k(k_) {
    aw::kernels::quantize_weight_rows(w, 0, n, n, k, packed.data(), scales.data(), sums.data());
  }
  aw::kernels::QuantizedWeightView view() const { return {packed.data(), scales.data(), sums.data(), n, k}; }
};

// Scratch for the kernel (and the reference, which uses k bytes of it), with guard bytes after.
struct Scratch {
  std::vector<unsigned char> bytes;
  std::size_t size;
  explicit Scratch(std::size_t k) : size(aw::kernels::quantized_linear_scratch_bytes(k)) {
    bytes.assign(size + 64, 0xab);
  }
  void* data() { return bytes.data(); }
  bool guards_intact() const {
    return std::all_of(bytes.begin() + size, bytes.end(), [](unsigned char b) { return b == 0xab; });
  }
};

#if defined(__wasm__)  // where the epilogue's bytes are compared (natively: within rounding)
bool same_bytes(const Buffer& a, const Buffer& b) {
  return std::memcmp(a.data(), b.data(), a.count * sizeof(float)) == 0;
}
#endif

}  // namespace

TEST_CASE("quantize_weight_rows: the packed layout holds each row's quantize_weights, zero padding",
          "[kernels][quantized_matmul]") {
  std::mt19937 rng(20260201);
  for (std::size_t n : {1, 3, 8, 9, 16, 17, 33})
    for (std::size_t k : {0, 1, 3, 4, 5, 16, 255, 256, 257, 300, 513}) {
      CAPTURE(n, k);
      const Buffer w = normal_buffer(rng, n * k, 0, 1.0f);
      const PackedWeight p(w.data(), n, k);
      const std::size_t channels = aw::kernels::quantized_weight_channels(n);
      const std::size_t k8 = (k + 7) / 8 * 8;  // a row padded to whole pairs of groups
      CHECK(p.packed.size() == channels * k8);
      for (std::size_t j = 0; j < channels; ++j) {
        CAPTURE(j);
        std::vector<std::int8_t> want(k8, 0);
        float scale = 0;
        if (j < n) {
          const auto row = aw::kernels::weight_quantization_reference(w.data() + j * k, k);
          aw::kernels::quantize_weights_reference(w.data() + j * k, k, row, want.data());
          scale = row.scale;
        }
        std::vector<std::int8_t> got(k8);
        for (std::size_t q = 0; q < k8; ++q) got[q] = aw::kernels::packed_weight_at(p.packed.data(), k, j, q);
        CHECK(got == want);
        CHECK(p.scales[j] == scale);
        CHECK(p.sums[j] == std::accumulate(want.begin(), want.end(), 0));
      }
      // every byte written (0x55 is not left anywhere a row or its padding lives)
      std::vector<std::int8_t> repacked(p.packed.size(), 0);
      for (std::size_t j = 0; j < channels; ++j)
        for (std::size_t q = 0; q < k8; ++q) {
          const std::size_t at = ((j / 8) * (k8 / 4) + q / 4) * 32 + (j % 8) * 4 + q % 4;
          repacked[at] = aw::kernels::packed_weight_at(p.packed.data(), k, j, q);
        }
      CHECK(repacked == p.packed);

      // rows written a few at a time, in another order: the same bytes
      PackedWeight pieces(w.data(), 0, k);
      pieces.packed.assign(p.packed.size(), 0x55);
      pieces.scales.assign(channels, 7.0f);
      pieces.sums.assign(channels, 7);
      for (std::size_t first = n; first > 0;) {
        const std::size_t rows = std::min<std::size_t>(first, 3);
        first -= rows;
        aw::kernels::quantize_weight_rows(w.data() + first * k, first, rows, n, k, pieces.packed.data(),
                                          pieces.scales.data(), pieces.sums.data());
      }
      CHECK(pieces.packed == p.packed);
      CHECK(pieces.scales == p.scales);
      CHECK(pieces.sums == p.sums);
    }
}

TEST_CASE("quantized_linear: every product == reference for every m, k, n tail, with and without bias",
          "[kernels][quantized_matmul]") {
  std::mt19937 rng(20260202);
  const std::vector<Int8Product> products = available_products();
  REQUIRE(!products.empty());
  CHECK(aw::kernels::int8_product_available(aw::kernels::preferred_int8_product()));
  for (bool with_bias : {true, false})
    for (std::size_t offset : offsets)
      for (std::size_t m : sizes)
        for (std::size_t k : sizes)
          for (std::size_t n : sizes) {
            CAPTURE(with_bias, offset, m, k, n);
            const Buffer x = normal_buffer(rng, m * k, offset, 1.0f, 0.1f);
            const Buffer w = uniform_buffer(rng, n * k, offset);
            const Buffer bias = uniform_buffer(rng, n, offset);
            const float* b = with_bias ? bias.data() : nullptr;
            const PackedWeight p(w.data(), n, k);
            Scratch scratch(k);
            Buffer y_ref(m * n, offset);
            aw::kernels::quantized_linear_reference(x.data(), p.view(), b, y_ref.data(), m, OutputActivation::None,
                                                    scratch.data());
            CHECK(y_ref.guards_intact());
            for (Int8Product product : products) {
              CAPTURE(static_cast<int>(product));
              Buffer y(m * n, offset);
              aw::kernels::quantized_linear(x.data(), p.view(), b, y.data(), m, OutputActivation::None, scratch.data(),
                                            product);
              CHECK(y.guards_intact());
              CHECK(scratch.guards_intact());
#if defined(__wasm__)
              // wasm has no fused multiply-add the compiler could form: the epilogue is the same
              // IEEE operations in the kernel and the reference
              CHECK(same_bytes(y, y_ref));
#else
              // natively g++ may fuse the epilogue's multiply and add in one and not the other
              const Comparison c = compare(y.data(), as_double(y_ref.data(), m * n), Tolerance{1e-6, 1e-7});
              INFO(describe(c));
              CHECK(c.ok);
#endif
            }
          }
}

TEST_CASE("quantized_linear: exact integer sums (scales 1), split rows byte-identical", "[kernels][quantized_matmul]") {
  // Integer activations spanning exactly 127 (scale (hi - lo) / 127 = 1) and integer weights whose
  // largest magnitude is 127 and whose quads sum to at most 127 + 3 x 42 < 256 (scale 1): every
  // product and sum is an integer below 2^24, so y must be the exact integer x W^T, whatever
  // rounding the epilogue does.
  std::mt19937 rng(20260203);
  std::uniform_int_distribution<int> weight(-42, 42), activation(-60, 67);
  const std::size_t ks[] = {1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 65, 300, 1000};
  for (Int8Product product : available_products())
    for (std::size_t m : {1, 3, 4, 5, 6, 7, 11, 95, 96, 97, 193})  // tiles of 2, 4, 6 rows; blocks of 96
      for (std::size_t k : ks)
        for (std::size_t n : {1, 7, 8, 9, 24}) {
          CAPTURE(static_cast<int>(product), m, k, n);
          std::vector<float> x(m * k), w(n * k);
          for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t p = 0; p < k; ++p) x[i * k + p] = float(activation(rng));
            x[i * k] = -60, x[i * k + k - 1] = 67;  // the range: exactly 127 (with k == 1: 67 - 0)
          }
          for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t p = 0; p < k; ++p) w[j * k + p] = float(weight(rng));
            w[j * k + (j % k)] = j % 2 ? 127.0f : -127.0f;
          }
          const PackedWeight p(w.data(), n, k);
          Scratch scratch(k);
          std::vector<float> y(m * n), y_split(m * n);
          aw::kernels::quantized_linear(x.data(), p.view(), nullptr, y.data(), m, OutputActivation::None,
                                        scratch.data(), product);
          for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) {
              // the largest row value 67 (k == 1) alone spans the range: scale 67 / 127, not exact
              if (k == 1) continue;
              std::int64_t want = 0;
              for (std::size_t q = 0; q < k; ++q) want += std::int64_t(x[i * k + q]) * std::int64_t(w[j * k + q]);
              CAPTURE(i, j);
              REQUIRE(p.scales[j] == 1.0f);
              CHECK(y[i * n + j] == float(want));
            }
          // rows in two calls (across the kernel's 96-row blocks): the same bytes
          const std::size_t half = m / 2;
          aw::kernels::quantized_linear(x.data(), p.view(), nullptr, y_split.data(), half, OutputActivation::None,
                                        scratch.data(), product);
          aw::kernels::quantized_linear(x.data() + half * k, p.view(), nullptr, y_split.data() + half * n, m - half,
                                        OutputActivation::None, scratch.data(), product);
          CHECK(std::memcmp(y.data(), y_split.data(), y.size() * sizeof(float)) == 0);
        }
}

TEST_CASE("quantized_linear: exact at the int16 sums' limit (quads of sum |q| 256, activations at 127)",
          "[kernels][quantized_matmul]") {
  // Activations all in [0, 127] with 127 present: scale 1, zero point 0, q = x. Weights whose
  // quads (8h + {0, 1, 4, 5}, 8h + {2, 3, 6, 7}) each sum |q| to 256 with one sign: an int16 lane
  // of RelaxedI16Dot's reaches +-127 x 256 = +-32512 where x is 127.
  const std::size_t quads[][4] = {{0, 1, 4, 5}, {2, 3, 6, 7}};
  const float patterns[][4] = {{64, 64, 64, 64}, {127, 127, 1, 1}, {127, 1, 127, 1}, {100, 56, 50, 50}};
  for (Int8Product product : available_products())
    for (std::size_t k : {8, 16, 24, 40, 768})
      for (std::size_t n : {8, 9, 16}) {
        CAPTURE(static_cast<int>(product), k, n);
        std::vector<float> w(n * k);
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t b = 0; b < k; b += 8)
            for (std::size_t h = 0; h < 2; ++h) {
              const float sign = (j + b / 8 + h) % 3 ? 1.0f : -1.0f;
              const float* pattern = patterns[(j + b / 8 * 2 + h) % 4];
              for (std::size_t i = 0; i < 4; ++i) w[j * k + b + quads[h][i]] = sign * pattern[i];
            }
        for (const bool all_127 : {true, false}) {
          const std::size_t m = 5;
          std::vector<float> x(m * k, 127.0f);
          if (!all_127)
            for (std::size_t i = 0; i < m * k; ++i) x[i] = float((i * 37 + 11) % 128);
          for (std::size_t i = 0; i < m; ++i) x[i * k] = 127.0f;  // the range: [0, 127]
          const PackedWeight p(w.data(), n, k);
          Scratch scratch(k);
          std::vector<float> y(m * n);
          aw::kernels::quantized_linear(x.data(), p.view(), nullptr, y.data(), m, OutputActivation::None,
                                        scratch.data(), product);
          for (std::size_t j = 0; j < n; ++j) REQUIRE(p.scales[j] == 1.0f);
          for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) {
              std::int64_t want = 0;
              for (std::size_t q = 0; q < k; ++q) want += std::int64_t(x[i * k + q]) * std::int64_t(w[j * k + q]);
              CAPTURE(all_127, i, j);
              CHECK(y[i * n + j] == float(want));
            }
        }
      }
}

TEST_CASE("quantized_linear: within the quantization error of float64, cosine ~ 1", "[kernels][quantized_matmul]") {
  // |x w - x^ w^| <= sum_p |w_p| |x_p - x^_p| + |x^_p| |w_p - w^_p| with |x - x^| <= sx (a step: the
  // top of the range may be clamped) and |w - w^| <= sw / 2, plus float32 rounding of the epilogue.
  std::mt19937 rng(20260204);
  for (std::size_t m : {1, 7, 33})
    for (std::size_t k : {16, 64, 257, 768})
      for (std::size_t n : {5, 16, 40}) {
        CAPTURE(m, k, n);
        Buffer x = normal_buffer(rng, m * k, 0, 1.0f);
        Buffer w = normal_buffer(rng, n * k, 0, 0.05f);
        Buffer bias = uniform_buffer(rng, n, 0);
        const PackedWeight p(w.data(), n, k);
        Scratch scratch(k);
        Buffer y(m * n, 0);
        aw::kernels::quantized_linear(x.data(), p.view(), bias.data(), y.data(), m, OutputActivation::None,
                                      scratch.data());
        double dot = 0, yy = 0, ww = 0;
        for (std::size_t i = 0; i < m; ++i) {
          double lo = 0, hi = 0;
          for (std::size_t q = 0; q < k; ++q)
            lo = std::min(lo, double(x[i * k + q])), hi = std::max(hi, double(x[i * k + q]));
          const double sx = (hi - lo) / 127;
          for (std::size_t j = 0; j < n; ++j) {
            double want = bias[j], bound = 0, magnitude = std::fabs(bias[j]);
            const double sw = p.scales[j];
            for (std::size_t q = 0; q < k; ++q) {
              const double xv = x[i * k + q], wv = w[j * k + q];
              want += xv * wv;
              bound += std::fabs(wv) * sx + (std::fabs(xv) + sx) * sw / 2;
              magnitude += std::fabs(xv * wv);
            }
            const double got = y[i * n + j];
            CAPTURE(i, j, got, want, bound);
            CHECK(std::fabs(got - want) <= bound + 1e-5 * magnitude);
            dot += got * want, yy += got * got, ww += want * want;
          }
        }
        const double cosine = dot / std::sqrt(yy * ww);
        CAPTURE(cosine);
        CHECK(cosine > (k >= 64 ? 0.9995 : 0.998));
      }
}

TEST_CASE("quantized_linear: fused activations match the reference's", "[kernels][quantized_matmul]") {
  std::mt19937 rng(20260205);
  for (OutputActivation act : {OutputActivation::Relu, OutputActivation::Gelu, OutputActivation::GeluTanh})
    for (std::size_t m : {1, 5, 9, 97})  // 97: past a block of rows
      for (std::size_t k : {3, 33})
        for (std::size_t n : {1, 8, 13, 17, 64, 65, 71, 136}) {  // the activation covers 64 columns at a time
          CAPTURE(static_cast<int>(act), m, k, n);
          const Buffer x = normal_buffer(rng, m * k, 1, 1.0f);
          const Buffer w = normal_buffer(rng, n * k, 1, 0.3f);
          const Buffer bias = uniform_buffer(rng, n, 1);
          const PackedWeight p(w.data(), n, k);
          Scratch scratch(k);
          Buffer y_ref(m * n, 1);
          aw::kernels::quantized_linear_reference(x.data(), p.view(), bias.data(), y_ref.data(), m, act,
                                                  scratch.data());
          for (Int8Product product : available_products()) {
            Buffer y(m * n, 1), y_none(m * n, 1);
            aw::kernels::quantized_linear(x.data(), p.view(), bias.data(), y.data(), m, act, scratch.data(), product);
            aw::kernels::quantized_linear(x.data(), p.view(), bias.data(), y_none.data(), m, OutputActivation::None,
                                          scratch.data(), product);
            CHECK(y.guards_intact());
            // the activation's kernel against its reference: float32 rounding apart, and GELU's
            // cancellation for negative x (its erf within 3.4 ulp of 1: 2e-7 |x|, 1e-6 at x = -5)
            const Comparison c = compare(y.data(), as_double(y_ref.data(), m * n), Tolerance{1e-6, 2e-6});
            INFO(describe(c));
            CHECK(c.ok);
            // and the same bytes as the activation's kernel run afterwards over the whole output in
            // one call, as the model's unfused path does (the values' places in the vectors and the
            // tail differ from the fused epilogue's 64 columns of a row when n % lanes != 0)
            Buffer y_after = y_none;
            float* all = y_after.data();
            if (act == OutputActivation::Relu) aw::kernels::relu(all, all, m * n);
            if (act == OutputActivation::Gelu) aw::kernels::gelu(all, all, m * n);
            if (act == OutputActivation::GeluTanh) aw::kernels::gelu_tanh(all, all, m * n);
            CHECK(y.same_values(y_after));
          }
        }
}

TEST_CASE("quantized_linear: a row with NaN or infinity gives NaN, other rows are unaffected",
          "[kernels][quantized_matmul]") {
  std::mt19937 rng(20260206);
  const std::size_t m = 6, k = 19, n = 11;
  Buffer x = normal_buffer(rng, m * k, 0, 1.0f);
  const Buffer w = normal_buffer(rng, n * k, 0, 1.0f);
  const PackedWeight p(w.data(), n, k);
  Scratch scratch(k);
  Buffer clean(m * n, 0), y(m * n, 0);
  aw::kernels::quantized_linear(x.data(), p.view(), nullptr, clean.data(), m, OutputActivation::None, scratch.data());
  x[2 * k + 5] = not_a_number;
  x[4 * k] = infinity;
  aw::kernels::quantized_linear(x.data(), p.view(), nullptr, y.data(), m, OutputActivation::None, scratch.data());
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      CAPTURE(i, j);
      if (i == 2 || i == 4)
        CHECK(std::isnan(y[i * n + j]));
      else
        CHECK(y[i * n + j] == clean[i * n + j]);
    }
}

TEST_CASE("quantized_matmul: the relaxed dot's lowering is a known one", "[kernels][quantized_matmul]") {
  const std::int32_t lowering = aw::kernels::relaxed_dot_lowering();
  INFO("relaxed_dot_i8x16_i7x16_add(127, -1) = " << lowering);
#if defined(__wasm_relaxed_simd__)
  // 129540 AVX-VNNI, 65534 pmaddubsw + pmaddwd, -508 signed; 131068 (twice 65534) from Node 20's
  // baseline compiler, whose relaxed dot doubles every sum (RelaxedDot is then not available)
  CHECK((lowering == 129540 || lowering == 65534 || lowering == 131068 || lowering == -508));
  if (lowering == 131068) CHECK(!aw::kernels::int8_product_available(Int8Product::RelaxedDot));
#else
  CHECK(lowering == 0);
#endif
}
