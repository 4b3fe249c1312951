// Tests for src/ops/attention_mask: a boolean mask as the additive one each attention op reads
// (SDPA's true = takes part, MultiheadAttention's true = masked), and the inputs' description
// their messages share.
#include "ops/attention_mask.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "check_error.hpp"

using aw_test::values;

TEST_CASE("ops: additive_mask in both polarities keeps the shape, 0 or -inf", "[ops][attention_mask]") {
  const std::vector<std::uint8_t> bits{1, 0, 0, 1, 1, 0};
  const aw::BoolTensorRef mask{bits.data(), {2, 3}};
  const aw::Tensor takes = aw::additive_mask(mask, aw::BoolMaskMeaning::TakesPart, "attn_mask");
  const aw::Tensor masked = aw::additive_mask(mask, aw::BoolMaskMeaning::Masked, "key_padding_mask");
  REQUIRE(takes.shape == aw::Shape{2, 3});
  REQUIRE(masked.shape == aw::Shape{2, 3});
  for (std::size_t i = 0; i < bits.size(); ++i) {
    CAPTURE(i);
    CHECK(takes.data[i] == (bits[i] ? 0.0f : -INFINITY));
    CHECK(masked.data[i] == (bits[i] ? -INFINITY : 0.0f));
  }
  const std::vector<std::uint8_t> any{7};  // any non-zero byte is true, as a JS Uint8Array mask gives it
  CHECK(values(aw::additive_mask({any.data(), {}}, aw::BoolMaskMeaning::TakesPart, "m")) == std::vector<float>{0.0f});
}

TEST_CASE("ops: describe_qkv names the three shapes", "[ops][attention_mask]") {
  const float x = 0;
  CHECK(aw::describe_qkv({&x, {2, 3, 4}}, {&x, {2, 5, 4}}, {&x, {2, 5, 6}}) ==
        "query [2, 3, 4], key [2, 5, 4], value [2, 5, 6]");
}
