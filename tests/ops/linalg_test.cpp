// Tests for src/ops/linalg: the matmul op over operands large enough for the packed kernel
// (b of 32768 floats or more, 16 rows or more), split over threads or not, against the plain
// kernel: byte-identical (the packed kernel sums in the same order).
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "core/parallel.hpp"
#include "kernels/matmul.hpp"
#include "ops/linalg.hpp"

#include "kernels/kernel_test_util.hpp"  // uniform_buffer

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
