// Tests for the C++ API of the layers around attention (src/ops/positional_encoding, layer_norm,
// activation, elementwise): result shapes, broadcasting, and the aw::Error kind and message of
// every argument check.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "ops/activation.hpp"
#include "ops/check_error.hpp"
#include "ops/elementwise.hpp"
#include "ops/layer_norm.hpp"
#include "ops/positional_encoding.hpp"

using op_test::check_error;

TEST_CASE("ops: positional_encoding shapes and errors", "[ops][positional_encoding]") {
  CHECK(aw::positional_encoding(5, 3).shape == aw::Shape{5, 3});
  CHECK(aw::positional_encoding(0, 3).data.empty());
  check_error([] { aw::positional_encoding(-1, 3); }, aw::ErrorKind::Range,
              "positional_encoding: max_length and d_model must be non-negative, got max_length -1, d_model 3");
}

TEST_CASE("ops: layer_norm shapes and errors", "[ops][layer_norm]") {
  const std::vector<float> x(24, 1.0f), w(4, 1.0f);
  const aw::TensorRef input{x.data(), {2, 3, 4}};
  CHECK(aw::layer_norm(input, {4}, nullptr, nullptr, 1e-5).shape == aw::Shape{2, 3, 4});
  CHECK(aw::layer_norm(input, {3, 4}, nullptr, nullptr, 1e-5).shape == aw::Shape{2, 3, 4});
  const aw::TensorRef weight{w.data(), {4}}, bad_weight{w.data(), {2, 2}};
  check_error([&] { aw::layer_norm(input, {3}, nullptr, nullptr, 1e-5); }, aw::ErrorKind::Shape,
              "layer_norm: input must end with the dims of normalized_shape (expected [*, 3]), got input [2, 3, 4], "
              "normalized_shape [3]");
  check_error([&] { aw::layer_norm(input, {4}, &bad_weight, nullptr, 1e-5); }, aw::ErrorKind::Shape,
              "layer_norm: weight must have shape normalized_shape [4], got input [2, 3, 4], normalized_shape [4], "
              "weight [2, 2]");
  check_error([&] { aw::layer_norm(input, {4}, &weight, &bad_weight, 1e-5); }, aw::ErrorKind::Shape,
              "layer_norm: bias must have shape normalized_shape [4], got input [2, 3, 4], normalized_shape [4], "
              "weight [4], bias [2, 2]");
  check_error([&] { aw::layer_norm(input, {}, nullptr, nullptr, 1e-5); }, aw::ErrorKind::Shape,
              "layer_norm: normalized_shape must have at least 1 dimension, got input [2, 3, 4], normalized_shape []");
  check_error([&] { aw::layer_norm(input, {4}, nullptr, nullptr, -1.0); }, aw::ErrorKind::Range,
              "layer_norm: eps must be non-negative, got -1 (input [2, 3, 4])");
}

TEST_CASE("ops: gelu approximate and relu shapes", "[ops][activation]") {
  const std::vector<float> x(6, -1.0f);
  const aw::TensorRef input{x.data(), {2, 3}};
  CHECK(aw::relu(input).shape == aw::Shape{2, 3});
  CHECK(aw::gelu(input, "tanh").shape == aw::Shape{2, 3});
  CHECK(aw::gelu(aw::TensorRef{x.data(), {}}).shape == aw::Shape{});
  check_error([&] { aw::gelu(input, "fast"); }, aw::ErrorKind::Range,
              "gelu: approximate must be 'none' or 'tanh', got 'fast' (input [2, 3])");
}

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
