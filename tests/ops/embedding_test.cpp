// Tests for src/ops/embedding: out[..., :] = weight[ids[...], :] for ids of any shape (0-d and
// empty too), every index checked before anything is written, and the messages of its checks.
#include "ops/embedding.hpp"

#include <catch2/catch.hpp>

#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"

using aw_test::values;

using aw_test::check_error;

TEST_CASE("ops: embedding gathers weight's rows for ids of any shape", "[ops][embedding]") {
  std::vector<float> w(5 * 3);  // (5, 3): row r is [10 r, 10 r + 1, 10 r + 2]
  for (std::size_t r = 0; r < 5; ++r)
    for (std::size_t c = 0; c < 3; ++c) w[r * 3 + c] = float(10 * r + c);
  const aw::TensorRef weight{w.data(), {5, 3}};
  const std::vector<std::int32_t> ids{4, 0, 2, 2};
  const aw::Tensor out = aw::embedding(ids.data(), {2, 2}, weight);
  REQUIRE(out.shape == aw::Shape{2, 2, 3});
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t c = 0; c < 3; ++c) CHECK(out.data[i * 3 + c] == w[std::size_t(ids[i]) * 3 + c]);
  const aw::Tensor one = aw::embedding(ids.data(), {}, weight);  // a 0-d index: one row, (3)
  CHECK(one.shape == aw::Shape{3});
  CHECK(values(one) == std::vector<float>{40, 41, 42});
  CHECK(aw::embedding(ids.data(), {0}, weight).shape == aw::Shape{0, 3});
}

TEST_CASE("ops: embedding's checks", "[ops][embedding]") {
  const std::vector<float> w(6, 1.0f);
  const std::vector<std::int32_t> ids{0, 1, 3, -1};
  // the first index out of range, before anything is written
  check_error(
      [&] {
        aw::embedding(ids.data(), {4}, aw::TensorRef{w.data(), {3, 2}});
      },
      aw::ErrorKind::Range,
      "embedding: index 3 (input position 2) is out of range [0, 3) for input [4], weight [3, 2]");
  check_error(
      [&] {
        aw::embedding(ids.data() + 3, {1}, aw::TensorRef{w.data(), {3, 2}});
      },
      aw::ErrorKind::Range,
      "embedding: index -1 (input position 0) is out of range [0, 3) for input [1], weight [3, 2]");
  check_error(
      [&] {
        aw::embedding(ids.data(), {2}, aw::TensorRef{w.data(), {6}});
      },
      aw::ErrorKind::Shape, "embedding: weight must be 2-D (num_embeddings, embedding_dim), got input [2], weight [6]");
}
