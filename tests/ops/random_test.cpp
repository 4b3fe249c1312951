// Tests for src/ops/random: rand and randn draw from the module's default generator as torch's
// functions do from torch's (manual_seed, then one stream across calls), in the shape asked
// (the generator's numbers against torch's: tests/random/torch_generator_test.cpp).
#include "ops/random.hpp"

#include <catch2/catch.hpp>

#include <vector>

#include "check_error.hpp"

using aw_test::values;

TEST_CASE("ops: rand and randn after manual_seed are the seeded generator's stream, across calls", "[ops][random]") {
  for (const bool normal : {false, true}) {
    CAPTURE(normal);
    const auto draw = [&](const aw::Shape& shape) { return normal ? aw::randn(shape) : aw::rand(shape); };
    aw::TorchGenerator g;
    g.manual_seed(123);
    std::vector<float> want(10);
    if (normal)
      g.randn(want.data(), want.size());
    else
      g.rand(want.data(), want.size());
    aw::manual_seed(123);
    const aw::Tensor all = draw({2, 5});
    CHECK(all.shape == aw::Shape{2, 5});
    CHECK(values(all) == want);
    // the same ten numbers in two calls (one stream), and a 0-d tensor is one number
    aw::manual_seed(123);
    const aw::Tensor first = draw({4}), second = draw({6});
    std::vector<float> joined(first.data.begin(), first.data.end());
    joined.insert(joined.end(), second.data.begin(), second.data.end());
    if (!normal) CHECK(joined == want);  // (randn draws normals in pairs: a split may differ)
    aw::manual_seed(123);
    const aw::Tensor scalar = draw({});
    CHECK(scalar.shape == aw::Shape{});
    CHECK(scalar.data[0] == want[0]);
    CHECK(draw({0, 3}).data.empty());
  }
  aw::manual_seed(123);
  for (float v : aw::rand({1000}).data) CHECK((v >= 0.0f && v < 1.0f));
}
