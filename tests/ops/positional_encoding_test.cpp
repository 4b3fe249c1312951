// src/ops/positional_encoding: the result's shape and the aw::Error of its argument check (its
// values: tests/kernels/positional_encoding_test.cpp and the JS tests against document 004).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"
#include "ops/positional_encoding.hpp"

using aw_test::check_error;

TEST_CASE("ops: positional_encoding shapes and errors", "[ops][positional_encoding]") {
  CHECK(aw::positional_encoding(5, 3).shape == aw::Shape{5, 3});
  CHECK(aw::positional_encoding(0, 3).data.empty());
  check_error([] { aw::positional_encoding(-1, 3); }, aw::ErrorKind::Range,
              "positional_encoding: max_length and d_model must be non-negative, got max_length -1, d_model 3");
}
