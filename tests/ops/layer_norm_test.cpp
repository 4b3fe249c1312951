// src/ops/layer_norm: result shapes over one and two normalised dims, and the aw::Error kind and
// message of every argument check (its values: tests/kernels/layer_norm_test.cpp).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"
#include "ops/layer_norm.hpp"

using aw_test::check_error;

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
