// Tests for the C++ API of cosine similarity (src/ops/cosine_similarity): torch's broadcasting
// and dims (negative, a middle dim, a 0-d pair, empty dims) against the kernel's scalar reference
// on vectors gathered by hand, and the aw::Error kind and message of every argument check.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"
#include "kernels/cosine_similarity.hpp"
#include "ops/cosine_similarity.hpp"

using aw_test::check_error;

namespace {

std::vector<float> iota(std::size_t n, float start) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i % 7) - 0.25f * static_cast<float>(i);
  return v;
}

float reference(const std::vector<float>& a, const std::vector<float>& b) {
  return aw::kernels::cosine_similarity_reference(a.data(), 1, b.data(), 1, a.size(), 1e-8f);
}

}  // namespace

TEST_CASE("ops: cosine_similarity along the last, a middle and the first dim", "[ops][cosine_similarity]") {
  // x1 (2, 3, 4), x2 (2, 3, 4)
  const std::vector<float> a = iota(24, 1.0f), b = iota(24, -2.0f);
  const aw::TensorRef x1{a.data(), {2, 3, 4}}, x2{b.data(), {2, 3, 4}};
  const auto at = [](const std::vector<float>& v, int i, int j, int k) { return v[(i * 3 + j) * 4 + k]; };
  // dim -1 (= 2): (2, 3)
  const aw::Tensor last = aw::cosine_similarity(x1, x2, -1);
  REQUIRE(last.shape == aw::Shape{2, 3});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      std::vector<float> u, v;
      for (int k = 0; k < 4; ++k) u.push_back(at(a, i, j, k)), v.push_back(at(b, i, j, k));
      CHECK(last.data[i * 3 + j] == Approx(reference(u, v)).epsilon(1e-6));
    }
  // dim 1 (torch's default): (2, 4), vectors strided by 4
  const aw::Tensor middle = aw::cosine_similarity(x1, x2);
  REQUIRE(middle.shape == aw::Shape{2, 4});
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k) {
      std::vector<float> u, v;
      for (int j = 0; j < 3; ++j) u.push_back(at(a, i, j, k)), v.push_back(at(b, i, j, k));
      CHECK(middle.data[i * 4 + k] == Approx(reference(u, v)).epsilon(1e-6));
    }
  // dim -3 (= 0): (3, 4)
  const aw::Tensor first = aw::cosine_similarity(x1, x2, -3);
  REQUIRE(first.shape == aw::Shape{3, 4});
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 4; ++k) {
      const std::vector<float> u{at(a, 0, j, k), at(a, 1, j, k)}, v{at(b, 0, j, k), at(b, 1, j, k)};
      CHECK(first.data[j * 4 + k] == Approx(reference(u, v)).epsilon(1e-6));
    }
}

TEST_CASE("ops: cosine_similarity broadcasts as torch (one query against many rows, stretched dims)",
          "[ops][cosine_similarity]") {
  const std::vector<float> rows = iota(12, 0.5f), query = iota(4, 3.0f), column = {1.0f, -2.0f, 0.5f};
  // query (4) against rows (3, 4) along dim 1: (3)
  const aw::Tensor many = aw::cosine_similarity({query.data(), {4}}, {rows.data(), {3, 4}}, 1);
  REQUIRE(many.shape == aw::Shape{3});
  for (int i = 0; i < 3; ++i)
    CHECK(many.data[i] ==
          Approx(reference(query, std::vector<float>(rows.begin() + 4 * i, rows.begin() + 4 * i + 4))).epsilon(1e-6));
  // column (3, 1) against rows (3, 4) along dim 1: the column's value stretched over 4
  const aw::Tensor stretched = aw::cosine_similarity({column.data(), {3, 1}}, {rows.data(), {3, 4}}, 1);
  REQUIRE(stretched.shape == aw::Shape{3});
  for (int i = 0; i < 3; ++i)
    CHECK(stretched.data[i] == Approx(reference(std::vector<float>(4, column[i]),
                                                std::vector<float>(rows.begin() + 4 * i, rows.begin() + 4 * i + 4)))
                                   .epsilon(1e-6));
  // column (3, 1) against query (4) along dim 0: (4), the query's value stretched over 3
  const aw::Tensor down = aw::cosine_similarity({column.data(), {3, 1}}, {query.data(), {4}}, 0);
  REQUIRE(down.shape == aw::Shape{4});
  for (int k = 0; k < 4; ++k)
    CHECK(down.data[k] == Approx(reference(column, std::vector<float>(3, query[k]))).epsilon(1e-6));
}

TEST_CASE("ops: cosine_similarity of 0-d pairs, empty dims, zero vectors", "[ops][cosine_similarity]") {
  const float minus_two = -2.0f, three = 3.0f;
  for (std::int64_t dim : {0, -1}) {
    const aw::Tensor scalar = aw::cosine_similarity({&minus_two, {}}, {&three, {}}, dim);
    REQUIRE(scalar.shape == aw::Shape{});
    CHECK(scalar.data[0] == Approx(-1.0f));
  }
  const std::vector<float> none;
  // (2, 0) along dim 1: two empty vectors, norms clamped to eps, sums of nothing: (2) zeros
  const aw::Tensor empty_vectors = aw::cosine_similarity({none.data(), {2, 0}}, {none.data(), {2, 0}}, 1);
  REQUIRE(empty_vectors.shape == aw::Shape{2});
  CHECK(empty_vectors.data[0] == 0.0f);
  CHECK(empty_vectors.data[1] == 0.0f);
  // (0, 5) along dim 1: no vectors
  CHECK(aw::cosine_similarity({none.data(), {0, 5}}, {none.data(), {0, 5}}, 1).shape == aw::Shape{0});
  // a zero row gives 0
  const std::vector<float> zero(4, 0.0f), v{1, 2, 3, 4};
  CHECK(aw::cosine_similarity({zero.data(), {4}}, {v.data(), {4}}, 0).data[0] == 0.0f);
}

TEST_CASE("ops: cosine_similarity errors", "[ops][cosine_similarity]") {
  const std::vector<float> a(12, 1.0f);
  check_error(
      [&] {
        aw::cosine_similarity({a.data(), {3, 4}}, {a.data(), {3}});
      },
      aw::ErrorKind::Shape,
      "cosine_similarity: x1 [3, 4] and x2 [3]: shapes [3, 4] and [3] are not broadcastable (dim 1: 4 vs 3)");
  check_error(
      [&] {
        aw::cosine_similarity({a.data(), {4}}, {a.data(), {4}});
      },
      aw::ErrorKind::Range,
      "cosine_similarity: dim 1 is out of range [-1, 0] for x1 [4] and x2 [4] (broadcast to [4]); dim "
      "defaults to 1: for two vectors give dim -1");
  check_error(
      [&] {
        aw::cosine_similarity({a.data(), {3, 4}}, {a.data(), {4}}, -3);
      },
      aw::ErrorKind::Range,
      "cosine_similarity: dim -3 is out of range [-2, 1] for x1 [3, 4] and x2 [4] (broadcast to [3, 4])");
  check_error(
      [&] {
        aw::cosine_similarity({a.data(), {}}, {a.data(), {}}, 1);
      },
      aw::ErrorKind::Range,
      "cosine_similarity: dim 1 is out of range [-1, 0] for x1 [] and x2 [] (broadcast to []); dim defaults "
      "to 1: for two vectors give dim -1");
  check_error(
      [&] {
        aw::cosine_similarity({a.data(), {3, 4}}, {a.data(), {3, 4}}, 1, -1e-8);
      },
      aw::ErrorKind::Range, "cosine_similarity: eps must be non-negative, got -1e-08 (x1 [3, 4] and x2 [3, 4])");
}
