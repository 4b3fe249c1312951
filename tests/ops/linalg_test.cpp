// Tests for src/ops/linalg: the matmul op over operands large enough for the packed kernel
// (b of 32768 floats or more, 16 rows or more), split over threads or not, against the plain
// kernel: byte-identical (the packed kernel sums in the same order); the linear op likewise
// against the kernel it chooses.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "kernels/matmul.hpp"
#include "ops/linalg.hpp"

#include "kernels/kernel_test_util.hpp"  // uniform_buffer

using aw_test::error_of;
using aw_test::kind_of;

TEST_CASE("matmul op: large operands (packed kernel), 1 and 2 threads, equal the plain kernel", "[ops][linalg]") {
  std::mt19937 rng(20240605);
  // input (2, 256, 300) @ other (300, 130): k x n = 39000 floats, over one 256-row block of k;
  // 20 MFLOP per matrix, so that 2 threads split it (above 16 MFLOP) into blocks of 32 rows
  const std::size_t batch = 2, m = 256, k = 300, n = 130;
  const auto a = kernel_test::uniform_buffer(rng, batch * m * k, 0), b = kernel_test::uniform_buffer(rng, k * n, 0);
  std::vector<float> want(batch * m * n);
  for (std::size_t i = 0; i < batch; ++i)
    aw::kernels::matmul(a.data() + i * m * k, b.data(), want.data() + i * m * n, m, k, n);

  for (std::size_t threads : {1, 2}) {
    CAPTURE(threads);
    aw::set_thread_count(threads);
    const aw::Tensor got = aw::matmul(aw::TensorRef{a.data(), {2, 256, 300}}, aw::TensorRef{b.data(), {300, 130}});
    aw::set_thread_count(1);
    CHECK(got.shape == aw::Shape{2, 256, 130});
    REQUIRE(got.data.size() == want.size());
    CHECK(std::memcmp(got.data.data(), want.data(), want.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("linear op: from 64 rows (W packed block by block), 1 and 2 threads, equal the packed kernel",
          "[ops][linalg]") {
  std::mt19937 rng(20240606);
  // input (3, 70, 300), weight (131, 300): 210 rows, 16.5 MFLOP, so that 2 threads split it; 131
  // outputs leave 3 columns after the last whole panel
  const std::size_t m = 210, k = 300, n = 131;
  const auto x = kernel_test::uniform_buffer(rng, m * k, 0), w = kernel_test::uniform_buffer(rng, n * k, 0),
             bias = kernel_test::uniform_buffer(rng, n, 0);
  // what the op computes: the packed kernel's result (linear_blockwise gives it byte for byte)
  std::vector<float> packed(n * k);
  aw::kernels::linear_pack_weight(w.data(), packed.data(), n, k);
  std::vector<float> want(m * n), unpacked(m * n);
  aw::kernels::linear(x.data(), w.data(), bias.data(), unpacked.data(), m, k, n);
  aw::kernels::linear_packed(x.data(), packed.data(), bias.data(), want.data(), m, k, n);

  for (std::size_t threads : {1, 2}) {
    CAPTURE(threads);
    aw::set_thread_count(threads);
    const aw::TensorRef b{bias.data(), {131}};
    const aw::Tensor got = aw::linear(aw::TensorRef{x.data(), {3, 70, 300}}, aw::TensorRef{w.data(), {131, 300}}, &b);
    aw::set_thread_count(1);
    CHECK(got.shape == aw::Shape{3, 70, 131});
    REQUIRE(got.data.size() == want.size());
    CHECK(std::memcmp(got.data.data(), want.data(), want.size() * sizeof(float)) == 0);
    for (std::size_t i = 0; i < want.size(); ++i)  // and the dot tiles' result up to rounding
      REQUIRE(std::fabs(got.data[i] - unpacked[i]) <= 1e-5f * (1.0f + std::fabs(unpacked[i])));
  }
}

TEST_CASE("matmul op: inner dims that differ are a shape error; a result beyond 2^29 floats a range error",
          "[ops][linalg]") {
  std::vector<float> a(12, 1.0f);
  CHECK(kind_of([&] { aw::matmul({a.data(), {3, 4}}, {a.data(), {3, 4}}); }) == aw::ErrorKind::Shape);
  // (65536, 1) x (1, 65536): 2^32 floats, 0 in a 32-bit size_t
  CHECK(kind_of([&] { aw::matmul({a.data(), {65536, 1}}, {a.data(), {1, 65536}}); }) == aw::ErrorKind::Range);
}

TEST_CASE("matmul op: (0, 3) x (3, 4) -> (0, 4); (2, 0) x (0, 3) -> zeros", "[ops][linalg]") {
  std::vector<float> a(12, 1.0f), none;
  CHECK(aw::matmul({none.data(), {0, 3}}, {a.data(), {3, 4}}).shape == aw::Shape{0, 4});
  const auto z = aw::matmul({none.data(), {2, 0}}, {none.data(), {0, 3}});
  CHECK(z.shape == aw::Shape{2, 3});
  for (float y : z.data) CHECK(y == 0.0f);
}

TEST_CASE("linear op: a 1-D weight (in_features) drops the output's dimension; a bias [] is added to every output",
          "[ops][linalg]") {
  // torch.nn.functional.linear: weight (in_features) -> y (...) (matmul's 1-D operand); bias ()
  // broadcast over the output features
  std::vector<float> x{1, 2, 3, 4, 5, 6}, w{1, 0, -1}, w2{1, 0, -1, 2, 1, 0}, b0{10}, none;
  const aw::Tensor dot = aw::linear({x.data(), {2, 3}}, {w.data(), {3}}, nullptr);
  CHECK(dot.shape == aw::Shape{2});
  CHECK(dot.data == aw::AlignedVector<float>{-2, -2});
  const aw::TensorRef scalar{b0.data(), {}};
  const aw::Tensor biased = aw::linear({x.data(), {2, 3}}, {w2.data(), {2, 3}}, &scalar);
  CHECK(biased.shape == aw::Shape{2, 2});
  CHECK(biased.data == aw::AlignedVector<float>{8, 14, 8, 23});
  const aw::Tensor one = aw::linear({x.data(), {3}}, {w.data(), {3}}, nullptr);  // y (): 1 - 3
  CHECK(one.shape == aw::Shape{});
  CHECK(one.data == aw::AlignedVector<float>{-2});
  CHECK(kind_of([&] { aw::linear({x.data(), {2, 3}}, {x.data(), {1, 2, 3}}, nullptr); }) == aw::ErrorKind::Shape);
  // torch's addmm refuses a bias beside a 1-D weight for 2-D and 3-D inputs: none is taken
  CHECK(error_of([&] {
          aw::linear({x.data(), {2, 3}}, {w.data(), {3}}, &scalar);
        }) == "linear: a 1-D weight (in_features) takes no bias, got input [2, 3], weight [3], bias []");
}
