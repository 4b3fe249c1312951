// src/ops/elementwise: add and mul broadcast as torch does (every element of a (2, 1, 3) + (4, 1)
// sum), 0-d operands, and the message of shapes that do not broadcast.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"
#include "ops/elementwise.hpp"

using aw_test::check_error;

TEST_CASE("ops: add and mul broadcast as torch", "[ops][elementwise]") {
  // a (2, 1, 3) + b (4, 1): out (2, 4, 3), out[i, j, k] = a[i, 0, k] + b[j, 0]
  const std::vector<float> a{1, 2, 3, 4, 5, 6}, b{10, 20, 30, 40};
  const aw::Tensor sum = aw::add({a.data(), {2, 1, 3}}, {b.data(), {4, 1}});
  REQUIRE(sum.shape == aw::Shape{2, 4, 3});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) CHECK(sum.data[(i * 4 + j) * 3 + k] == a[i * 3 + k] + b[j]);
  const aw::Tensor prod = aw::mul({a.data(), {}}, {b.data(), {}});  // 0-d * 0-d
  REQUIRE(prod.shape == aw::Shape{});
  CHECK(prod.data[0] == 10.0f);
  check_error(
      [&] {
        aw::add({a.data(), {2, 3}}, {b.data(), {4}});
      },
      aw::ErrorKind::Shape,
      "add: input [2, 3] and other [4]: shapes [2, 3] and [4] are not broadcastable (dim 1: 3 vs 4)");
}
