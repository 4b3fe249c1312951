// src/ops/activation: result shapes (0-d included) and the approximate argument's check (the
// values: tests/kernels/activation_test.cpp).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"
#include "ops/activation.hpp"

using aw_test::check_error;

TEST_CASE("ops: gelu approximate and relu shapes", "[ops][activation]") {
  const std::vector<float> x(6, -1.0f);
  const aw::TensorRef input{x.data(), {2, 3}};
  CHECK(aw::relu(input).shape == aw::Shape{2, 3});
  CHECK(aw::gelu(input, "tanh").shape == aw::Shape{2, 3});
  CHECK(aw::gelu(aw::TensorRef{x.data(), {}}).shape == aw::Shape{});
  check_error([&] { aw::gelu(input, "fast"); }, aw::ErrorKind::Range,
              "gelu: approximate must be 'none' or 'tanh', got 'fast' (input [2, 3])");
}
