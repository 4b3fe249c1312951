// Tests for src/models/input_ids: the token inputs' checks both forwards make (the encoder's and
// the causal LM's; their own tests check the messages through model.forward / lm.forward).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "check_error.hpp"
#include "models/input_ids.hpp"

using aw::ErrorKind;
using aw_test::check_error;

TEST_CASE("input_ids: at least one token, every id in the vocabulary, every mask value 0 or 1", "[models][input_ids]") {
  check_error([] { aw::check_input_ids_shape("f", 0, 4); }, ErrorKind::Range,
              "f: input_ids must hold at least one token, got shape [0, 4]");
  check_error([] { aw::check_input_ids_shape("f", 2, 0); }, ErrorKind::Range,
              "f: input_ids must hold at least one token, got shape [2, 0]");
  CHECK_NOTHROW(aw::check_input_ids_shape("f", 1, 1));
  const std::vector<std::int32_t> ids = {0, 4, 2, 1, 3, 0};  // (2, 3)
  std::vector<std::uint8_t> mask = {1, 1, 0, 0, 1, 1};
  CHECK_NOTHROW(aw::check_input_ids("f", ids.data(), mask.data(), 2, 3, 5));
  CHECK_NOTHROW(aw::check_input_ids("f", ids.data(), nullptr, 2, 3, 5));
  // the first id out of range, at its (n, l); the ids before the mask
  mask[5] = 2;
  check_error([&] { aw::check_input_ids("f", ids.data(), mask.data(), 2, 3, 4); }, ErrorKind::Range,
              "f: input_ids at [0, 1] = 4 is not a token id in [0, 4)");
  const std::vector<std::int32_t> negative = {0, 1, 2, 1, -1, 0};
  check_error([&] { aw::check_input_ids("f", negative.data(), nullptr, 2, 3, 5); }, ErrorKind::Range,
              "f: input_ids at [1, 1] = -1 is not a token id in [0, 5)");
  check_error([&] { aw::check_input_ids("f", ids.data(), mask.data(), 2, 3, 5); }, ErrorKind::Range,
              "f: attention_mask at [1, 2] = 2 must be 0 or 1");
  CHECK(aw::token_at(7, 3) == " at [2, 1]");
}
