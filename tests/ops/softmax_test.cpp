// Tests for src/ops/softmax: the op over every dim of a (2, 3, 4) input (negative dims too)
// against float64, a slice that is all -inf gives zeros (torch's _safe_softmax), empty and 0-d
// inputs, and the message of a dim out of range (the kernel's tails: tests/kernels/softmax_test.cpp).
#include "ops/softmax.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"

using aw_test::values;

using aw_test::check_error;

TEST_CASE("ops: softmax along every dim of (2, 3, 4) equals float64's", "[ops][softmax]") {
  const aw::Shape shape{2, 3, 4};
  std::vector<float> x(24);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7 * double(i)) * 3.0;
  const aw::TensorRef input{x.data(), shape};
  for (std::int64_t dim = -3; dim < 3; ++dim) {
    CAPTURE(dim);
    const aw::Tensor out = aw::softmax(input, dim);
    REQUIRE(out.shape == shape);
    const std::size_t d = static_cast<std::size_t>(dim < 0 ? dim + 3 : dim);
    const std::size_t stride = d == 0 ? 12 : d == 1 ? 4 : 1, n = static_cast<std::size_t>(shape[d]);
    for (std::size_t i = 0; i < 24; ++i) {
      // the slice through element i along d: its first element and the others at `stride`
      const std::size_t first = i - ((i / stride) % n) * stride;
      double max = -INFINITY, sum = 0;
      for (std::size_t j = 0; j < n; ++j) max = std::max(max, double(x[first + j * stride]));
      for (std::size_t j = 0; j < n; ++j) sum += std::exp(double(x[first + j * stride]) - max);
      CHECK(out.data[i] == Approx(std::exp(double(x[i]) - max) / sum).epsilon(1e-6));
    }
  }
}

TEST_CASE("ops: softmax of an all -inf slice is zeros, other slices unaffected; empty and 0-d inputs",
          "[ops][softmax]") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x{-inf, -inf, -inf, 0.0f, 0.0f, -inf};
  const aw::Tensor out = aw::softmax(aw::TensorRef{x.data(), {2, 3}}, -1);
  CHECK(values(out) == std::vector<float>{0, 0, 0, 0.5f, 0.5f, 0});
  CHECK(aw::softmax(aw::TensorRef{x.data(), {0, 3}}, 1).shape == aw::Shape{0, 3});
  const float one = 2.5f;
  const aw::Tensor scalar = aw::softmax(aw::TensorRef{&one, {}}, 0);  // torch: a 0-d softmax is 1
  REQUIRE(scalar.shape == aw::Shape{});
  CHECK(scalar.data[0] == 1.0f);
}

TEST_CASE("ops: softmax's dim out of range", "[ops][softmax]") {
  const std::vector<float> x(6, 0.0f);
  check_error(
      [&] {
        aw::softmax(aw::TensorRef{x.data(), {2, 3}}, 2);
      },
      aw::ErrorKind::Range, "softmax: dim for input [2, 3]: dim 2 is out of range [-2, 1] for a tensor of rank 2");
  check_error(
      [&] {
        aw::softmax(aw::TensorRef{x.data(), {2, 3}}, -3);
      },
      aw::ErrorKind::Range, "softmax: dim for input [2, 3]: dim -3 is out of range [-2, 1] for a tensor of rank 2");
}
