// Tests for src/kernels/rotary: xsimd against the scalar reference and against float64 written
// here from transformers' modeling_llama.py (q * cos + rotate_half(q) * sin, rotate_half(x) =
// cat(-x2, x1), cos and sin repeated over both halves), over every SIMD tail of the half width,
// misaligned; a rotation keeps each pair's norm and position 0 changes nothing.
#include "kernels/rotary.hpp"

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;

namespace {

constexpr Tolerance float64{2e-6, 1e-6};

// The angles of `rows` positions (3 r + 1), theta 10000, in float64 and as float tables.
struct Angles {
  Buffer cos, sin;
  std::vector<double> cos64, sin64;
  Angles(std::size_t rows, std::size_t half, std::size_t offset)
      : cos(rows * half, offset), sin(rows * half, offset), cos64(rows * half), sin64(rows * half) {
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t i = 0; i < half; ++i) {
        const double angle = double(3 * r + 1) * std::pow(10000.0, -2.0 * double(i) / double(2 * half));
        cos64[r * half + i] = std::cos(angle);
        sin64[r * half + i] = std::sin(angle);
        cos[r * half + i] = float(cos64[r * half + i]);
        sin[r * half + i] = float(sin64[r * half + i]);
      }
  }
};

// q * cos + rotate_half(q) * sin, with emb = cat(freqs, freqs): dims i and i + half share angle i.
std::vector<double> rotary64(const float* x, const Angles& a, std::size_t rows, std::size_t half) {
  const std::size_t d = 2 * half;
  std::vector<double> y(rows * d);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < d; ++j) {
      const std::size_t i = j % half;
      const double c = a.cos.data()[r * half + i], s = a.sin.data()[r * half + i];  // the float tables the kernel reads
      const double rotated = j < half ? -double(x[r * d + j + half]) : double(x[r * d + j - half]);
      y[r * d + j] = x[r * d + j] * c + rotated * s;
    }
  return y;
}

}  // namespace

TEST_CASE("rotary_embedding: xsimd == reference == float64 (rotate_half layout) over every tail", "[kernels][rotary]") {
  std::mt19937 rng(20240712);
  for (std::size_t offset : offsets)
    for (std::size_t rows : {std::size_t(1), std::size_t(3)})
      for (std::size_t half : sizes) {
        CAPTURE(offset, rows, half);
        const Angles a(rows, half, offset);
        const Buffer x = normal_buffer(rng, rows * 2 * half, offset, 1.5f);
        Buffer y(x), y_ref(x);
        aw::kernels::rotary_embedding(y.data(), a.cos.data(), a.sin.data(), rows, half);
        aw::kernels::rotary_embedding_reference(y_ref.data(), a.cos.data(), a.sin.data(), rows, half);
        check_simd_reference_float64("", y.data(), y_ref.data(), rotary64(x.data(), a, rows, half), nullptr, float64,
                                     float64);
        CHECK(y.guards_intact());
        CHECK(y_ref.guards_intact());
        // each pair (i, i + half) is rotated: its norm is kept
        for (std::size_t r = 0; r < rows; ++r)
          for (std::size_t i = 0; i < half; ++i) {
            const std::size_t p = r * 2 * half + i;
            const double before = std::hypot(double(x.data()[p]), double(x.data()[p + half]));
            CHECK(std::hypot(double(y.data()[p]), double(y.data()[p + half])) == Approx(before).margin(1e-5));
          }
      }
}

TEST_CASE("rotary_embedding: position 0 (cos 1, sin 0) leaves the row as it was", "[kernels][rotary]") {
  const std::size_t half = 9;
  std::vector<float> c(half, 1.0f), s(half, 0.0f), x(2 * half);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.5f * float(i) - 3.0f;
  const std::vector<float> before = x;
  aw::kernels::rotary_embedding(x.data(), c.data(), s.data(), 1, half);
  CHECK(x == before);
}
