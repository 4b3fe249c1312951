// Tests for src/kernels/matmul: the xsimd kernels against their scalar references and
// against float64 sums, over sizes that hit every SIMD tail for 4, 8 and 16 lanes.
#include "kernels/matmul.hpp"

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;

namespace {

// Tolerances, relative to the summed magnitudes sum_p |a[i, p] b[p, j]|. Against float64: 1e-5
// of them plus 1e-6 absolute. xsimd against the scalar reference: 1e-6 of them (both are
// float32 sums of the same products in a different order, with or without FMA).
constexpr Tolerance float64{1e-5, 1e-6};
constexpr Tolerance tight{1e-6, 0};

// c = a b + bias in float64, and the summed magnitudes sum_p |a[i, p] b[p, j]| (+ |bias[j]|).
// a (m, k); b (k, n), or (n, k) when b_transposed; bias (n) or nullptr; both results (m, n).
struct ProductFloat64 {
  std::vector<double> want, scale;
};

ProductFloat64 product_float64(const float* a, const float* b, const float* bias, std::size_t m, std::size_t k,
                               std::size_t n, bool b_transposed) {
  ProductFloat64 r{std::vector<double>(m * n), std::vector<double>(m * n)};
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t p = 0; p < k; ++p) {
        const double product = double(a[i * k + p]) * double(b_transposed ? b[j * k + p] : b[p * n + j]);
        r.want[i * n + j] += product;
        r.scale[i * n + j] += std::fabs(product);
      }
      if (bias) {
        r.want[i * n + j] += bias[j];
        r.scale[i * n + j] += std::fabs(bias[j]);
      }
    }
  return r;
}

}  // namespace

TEST_CASE("kernels: a wasm build uses xsimd's wasm arch (4 lanes)", "[kernels]") {
  // xsimd older than 13 has no wasm arch and silently falls back to SSE emulation (slow).
#if defined(__wasm_simd128__)
  CHECK(std::string(xsimd::default_arch::name()) == "wasm");
  CHECK(xsimd::batch<float>::size == 4);
#else
  SUCCEED("native build, xsimd arch " << xsimd::default_arch::name() << ", " << xsimd::batch<float>::size << " lanes");
#endif
}

namespace {

// matmul or matmul_transposed_b (b_transposed) against its reference and float64, for every
// size and misalignment; a random stream seeded with `seed`.
using Product = void (*)(const float*, const float*, float*, std::size_t, std::size_t, std::size_t);
void check_product_kernel(Product kernel, Product reference, bool b_transposed, unsigned seed) {
  std::mt19937 rng(seed);
  for (std::size_t offset : offsets)
    for (std::size_t m : sizes)
      for (std::size_t k : sizes)
        for (std::size_t n : sizes) {
          CAPTURE(m, k, n, offset);
          const Buffer a = uniform_buffer(rng, m * k, offset);  // (m, k)
          const Buffer b = uniform_buffer(rng, k * n, offset);  // (k, n), or (n, k) when b_transposed
          Buffer c(m * n, offset), c_ref(m * n, offset);        // (m, n)

          kernel(a.data(), b.data(), c.data(), m, k, n);
          reference(a.data(), b.data(), c_ref.data(), m, k, n);

          // c[i, j] = sum_p a[i, p] b[p, j], or sum_p a[i, p] b[j, p]
          const ProductFloat64 f64 = product_float64(a.data(), b.data(), nullptr, m, k, n, b_transposed);
          check_simd_reference_float64("", c.data(), c_ref.data(), f64.want, &f64.scale, tight, float64);
          CHECK(c.guards_intact());
          CHECK(c_ref.guards_intact());
        }
}

}  // namespace

TEST_CASE("matmul: xsimd == reference == float64 for every tail and misalignment", "[kernels][matmul]") {
  check_product_kernel(aw::kernels::matmul, aw::kernels::matmul_reference, false, 20240601);
}

TEST_CASE("matmul_packed: byte-identical to matmul across block edges and every tail", "[kernels][matmul]") {
  // Blocks of b are 256 x 256 (k x n): sizes on both sides of one and two block edges, with
  // column tails that do not fill a panel (2 vectors of 4, 8 or 16 floats) or a vector, and
  // every row tail of the tiles of 4 rows.
  std::mt19937 rng(20240604);
  const std::size_t ms[] = {0, 1, 2, 3, 4, 5, 6, 9, 13};
  const std::size_t ks[] = {0, 1, 7, 255, 256, 257, 520};
  const std::size_t ns[] = {0, 1, 7, 8, 9, 33, 255, 256, 257, 515};
  for (std::size_t offset : offsets)
    for (std::size_t m : ms)
      for (std::size_t k : ks)
        for (std::size_t n : ns) {
          CAPTURE(m, k, n, offset);
          const Buffer a = uniform_buffer(rng, m * k, offset);  // (m, k)
          const Buffer b = uniform_buffer(rng, k * n, offset);  // (k, n)
          Buffer c(m * n, offset), c_packed(m * n, offset), scratch(aw::kernels::matmul_packed_scratch_size(), offset);
          aw::kernels::matmul(a.data(), b.data(), c.data(), m, k, n);
          aw::kernels::matmul_packed(a.data(), b.data(), c_packed.data(), m, k, n, scratch.data());
          CHECK(std::memcmp(c.data(), c_packed.data(), m * n * sizeof(float)) == 0);
          CHECK(c_packed.guards_intact());
          CHECK(scratch.guards_intact());
        }
}

TEST_CASE("matmul_transposed_b: xsimd == reference == float64 for every tail and misalignment", "[kernels][matmul]") {
  check_product_kernel(aw::kernels::matmul_transposed_b, aw::kernels::matmul_transposed_b_reference, true, 20240602);
}

namespace {

// A linear kernel and its reference on x (m, k), w (n, k) and bias (n) or nullptr, writing y and
// y_ref (m, n); it checks any buffers of its own.
using LinearRun = std::function<void(const Buffer& x, const Buffer& w, const float* bias, Buffer& y, Buffer& y_ref,
                                     std::size_t m, std::size_t k, std::size_t n)>;

// run against float64 (y[i, j] = sum_p x[i, p] w[j, p] + bias[j]) for every size and
// misalignment, with and without bias; a random stream seeded with `seed`.
void check_linear_kernel(unsigned seed, const std::vector<std::size_t>& ms, const std::vector<std::size_t>& ks,
                         const std::vector<std::size_t>& ns, const LinearRun& run) {
  std::mt19937 rng(seed);
  for (bool with_bias : {true, false})
    for (std::size_t offset : offsets)
      for (std::size_t m : ms)
        for (std::size_t k : ks)
          for (std::size_t n : ns) {
            CAPTURE(with_bias, m, k, n, offset);
            const Buffer x = uniform_buffer(rng, m * k, offset);  // (m, k)
            const Buffer w = uniform_buffer(rng, n * k, offset);  // (n, k)
            const Buffer bias = uniform_buffer(rng, n, offset);   // (n)
            const float* bias_or_null = with_bias ? bias.data() : nullptr;
            Buffer y(m * n, offset), y_ref(m * n, offset);  // (m, n)

            run(x, w, bias_or_null, y, y_ref, m, k, n);

            const ProductFloat64 f64 = product_float64(x.data(), w.data(), bias_or_null, m, k, n, true);
            check_simd_reference_float64("", y.data(), y_ref.data(), f64.want, &f64.scale, tight, float64);
            CHECK(y.guards_intact());
            CHECK(y_ref.guards_intact());
          }
}

const std::vector<std::size_t> all_sizes(std::begin(sizes), std::end(sizes));

}  // namespace

TEST_CASE("linear: y = x W^T + bias, xsimd == reference == float64, with and without bias", "[kernels][matmul]") {
  check_linear_kernel(20240603, all_sizes, all_sizes, all_sizes,
                      [](const Buffer& x, const Buffer& w, const float* bias, Buffer& y, Buffer& y_ref, std::size_t m,
                         std::size_t k, std::size_t n) {
                        aw::kernels::linear(x.data(), w.data(), bias, y.data(), m, k, n);
                        aw::kernels::linear_reference(x.data(), w.data(), bias, y_ref.data(), m, k, n);
                      });
}

TEST_CASE("matmul: small exact products", "[kernels][matmul]") {
  // Integers small enough that every float32 sum is exact.
  const float a[] = {1, 2, 3, 4, 5, 6};      // (2, 3)
  const float b[] = {7, 8, 9, 10, 11, 12};   // (3, 2)
  const float bt[] = {7, 9, 11, 8, 10, 12};  // b^T (2, 3)
  const float bias[] = {0.5f, -1.0f};        // (2)

  float c[4], c_ref[4], c_t[4], c_t_ref[4], y[4], y_ref[4];
  aw::kernels::matmul(a, b, c, 2, 3, 2);
  aw::kernels::matmul_reference(a, b, c_ref, 2, 3, 2);
  aw::kernels::matmul_transposed_b(a, bt, c_t, 2, 3, 2);
  aw::kernels::matmul_transposed_b_reference(a, bt, c_t_ref, 2, 3, 2);
  aw::kernels::linear(a, bt, bias, y, 2, 3, 2);
  aw::kernels::linear_reference(a, bt, bias, y_ref, 2, 3, 2);

  const float want[] = {58, 64, 139, 154};
  const float want_y[] = {58.5f, 63, 139.5f, 153};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(c[i] == want[i]);
    CHECK(c_ref[i] == want[i]);
    CHECK(c_t[i] == want[i]);
    CHECK(c_t_ref[i] == want[i]);
    CHECK(y[i] == want_y[i]);
    CHECK(y_ref[i] == want_y[i]);
  }
}

TEST_CASE("matmul: k == 0 writes zeros", "[kernels][matmul]") {
  const float unused = 0.0f;
  for (std::size_t n : sizes) {
    CAPTURE(n);
    std::vector<float> c(3 * n, sentinel), c_t(3 * n, sentinel), y(3 * n, sentinel);
    std::vector<float> bias(n, 2.0f);
    aw::kernels::matmul(&unused, &unused, c.data(), 3, 0, n);
    aw::kernels::matmul_transposed_b(&unused, &unused, c_t.data(), 3, 0, n);
    aw::kernels::linear(&unused, &unused, bias.data(), y.data(), 3, 0, n);
    for (std::size_t i = 0; i < 3 * n; ++i) {
      CHECK(c[i] == 0.0f);
      CHECK(c_t[i] == 0.0f);
      CHECK(y[i] == 2.0f);  // bias only
    }
  }
}

namespace {

// W (n, k) packed.
std::vector<float> packed_weight(const float* w, std::size_t n, std::size_t k) {
  std::vector<float> packed(n * k);
  aw::kernels::linear_pack_weight(w, packed.data(), n, k);
  return packed;
}

}  // namespace

TEST_CASE("linear_packed: y = x W^T + bias, W packed, xsimd == reference == float64", "[kernels][matmul]") {
  // Every row tail of the tiles of 4 rows, column tails that do not fill a panel of 8 or 16
  // floats, k's vector tails, and k on both sides of a block edge (256).
  check_linear_kernel(20240605, {0, 1, 2, 3, 4, 5, 6, 7, 11, 13}, {0, 1, 3, 4, 5, 8, 17, 64, 67, 257},
                      {0, 1, 7, 8, 9, 15, 16, 17, 33, 40},
                      [](const Buffer& x, const Buffer& w, const float* bias, Buffer& y, Buffer& y_ref, std::size_t m,
                         std::size_t k, std::size_t n) {
                        Buffer packed(n * k, x.offset);
                        const std::vector<float> p = packed_weight(w.data(), n, k);
                        std::copy(p.begin(), p.end(), packed.data());
                        aw::kernels::linear_packed(x.data(), packed.data(), bias, y.data(), m, k, n);
                        aw::kernels::linear_packed_reference(x.data(), packed.data(), bias, y_ref.data(), m, k, n);
                        CHECK(packed.guards_intact());
                      });
}

TEST_CASE("linear_blockwise: y = x W^T + bias, xsimd == reference == float64", "[kernels][matmul]") {
  check_linear_kernel(20240607, {0, 1, 2, 3, 4, 5, 6, 7, 11, 13}, {0, 1, 3, 4, 5, 8, 17, 64, 67, 257},
                      {0, 1, 7, 8, 9, 15, 16, 17, 33, 40},
                      [](const Buffer& x, const Buffer& w, const float* bias, Buffer& y, Buffer& y_ref, std::size_t m,
                         std::size_t k, std::size_t n) {
                        Buffer scratch(aw::kernels::linear_blockwise_scratch_size(), x.offset);
                        aw::kernels::linear_blockwise(x.data(), w.data(), bias, y.data(), m, k, n, scratch.data());
                        aw::kernels::linear_blockwise_reference(x.data(), w.data(), bias, y_ref.data(), m, k, n,
                                                                scratch.data());
                        CHECK(scratch.guards_intact());
                      });
}

TEST_CASE("linear_blockwise: byte-identical to linear_packed across block edges and every tail", "[kernels][matmul]") {
  // Blocks of W are 256 x 256 (k x n), as in matmul_packed.
  std::mt19937 rng(20240608);
  const std::size_t ms[] = {0, 1, 3, 4, 5, 9};
  const std::size_t ks[] = {0, 1, 7, 255, 256, 257, 520};
  const std::size_t ns[] = {0, 1, 8, 9, 33, 256, 257, 515};
  for (std::size_t offset : offsets)
    for (std::size_t m : ms)
      for (std::size_t k : ks)
        for (std::size_t n : ns) {
          CAPTURE(m, k, n, offset);
          const Buffer x = uniform_buffer(rng, m * k, offset), w = uniform_buffer(rng, n * k, offset),
                       bias = uniform_buffer(rng, n, offset);
          const std::vector<float> packed = packed_weight(w.data(), n, k);
          Buffer y(m * n, offset), y_packed(m * n, offset),
              scratch(aw::kernels::linear_blockwise_scratch_size(), offset);
          aw::kernels::linear_blockwise(x.data(), w.data(), bias.data(), y.data(), m, k, n, scratch.data());
          aw::kernels::linear_packed(x.data(), packed.data(), bias.data(), y_packed.data(), m, k, n);
          CHECK(std::memcmp(y.data(), y_packed.data(), m * n * sizeof(float)) == 0);
          CHECK(y.guards_intact());
          CHECK(scratch.guards_intact());
        }
}

TEST_CASE("linear_pack_weight: a permutation of W, panels in place of their rows", "[kernels][matmul]") {
  const std::size_t P = aw::kernels::linear_panel_width(), k = 3, n = 2 * P + 3;
  std::vector<float> w(n * k);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i);  // w[j, p] = j*k + p
  const std::vector<float> packed = packed_weight(w.data(), n, k);
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t x = 0; x < P; ++x) {
        CAPTURE(t, p, x);
        CHECK(packed[t * P * k + p * P + x] == static_cast<float>((t * P + x) * k + p));
      }
  for (std::size_t i = 2 * P * k; i < n * k; ++i) CHECK(packed[i] == w[i]);  // the last 3 rows unchanged

  // panel by panel (n = P), as the encoders pack in place: the same floats
  std::vector<float> by_panel = w;
  for (std::size_t t = 0; t + P <= n; t += P)
    aw::kernels::linear_pack_weight(w.data() + t * k, by_panel.data() + t * k, P, k);
  CHECK(by_panel == packed);
}
