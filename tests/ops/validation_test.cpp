// The C++ API's boundary checks (src/ops, src/core): bad shapes throw aw::Error of the right
// kind before any kernel runs, sizes are computed in int64 (on wasm32 a size_t product wraps),
// and zero-length dims give empty or zero results. Runs natively, under ASan + UBSan, and as wasm.
#include <catch2/catch.hpp>

#include <functional>
#include <vector>

#include "core/error.hpp"
#include "ops/attention.hpp"
#include "ops/linalg.hpp"
#include "ops/softmax.hpp"

namespace {

aw::ErrorKind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const aw::Error& e) {
    return e.kind();
  }
  FAIL("no aw::Error thrown");
  return aw::ErrorKind::Type;
}

}  // namespace

TEST_CASE("SDPA: an (L, S) score matrix beyond 2^29 elements is rejected before any allocation") {
  // L = S = 65536: L * S = 2^32, which is 0 in a 32-bit size_t. Only the paths that materialise
  // the (L, S) matrix need it (the fused path needs a few tiles and handles this size).
  std::vector<float> x(65536, 0.5f);
  const aw::TensorRef q{x.data(), {65536, 1}};
  aw::SdpaOptions materialized;
  materialized.force_materialized = true;
  CHECK(kind_of([&] { aw::scaled_dot_product_attention(q, q, q, materialized); }) == aw::ErrorKind::Range);
  aw::SdpaOptions weights;
  weights.return_weights = true;
  CHECK(kind_of([&] { aw::scaled_dot_product_attention(q, q, q, weights); }) == aw::ErrorKind::Range);
}

TEST_CASE("SDPA: zero-length dims") {
  std::vector<float> q(2 * 3 * 4, 1.0f), none;
  const aw::TensorRef query{q.data(), {2, 3, 4}}, key{none.data(), {2, 0, 4}}, value{none.data(), {2, 0, 6}};
  const auto r = aw::scaled_dot_product_attention(query, key, value);
  CHECK(r.output.shape == aw::Shape{2, 3, 6});
  for (float y : r.output.data) CHECK(y == 0.0f);
}

TEST_CASE("SDPA: Ev = 0 still gives the weights when asked") {
  std::vector<float> q{1, 0}, k{1, 0, 0, 1}, none;
  aw::SdpaOptions opt;
  opt.return_weights = true;
  opt.scale = 1.0;
  const auto r = aw::scaled_dot_product_attention({q.data(), {1, 2}}, {k.data(), {2, 2}}, {none.data(), {2, 0}}, opt);
  REQUIRE(r.weights.data.size() == 2);
  CHECK(r.weights.data[0] + r.weights.data[1] == Approx(1.0f));
  CHECK(r.weights.data[0] > r.weights.data[1]);
}

TEST_CASE("shape errors have the documented kinds") {
  std::vector<float> a(12, 1.0f);
  CHECK(kind_of([&] { aw::matmul({a.data(), {3, 4}}, {a.data(), {3, 4}}); }) == aw::ErrorKind::Shape);
  CHECK(kind_of([&] { aw::softmax({a.data(), {3, 4}}, 2); }) == aw::ErrorKind::Range);
  CHECK(kind_of([&] { aw::matmul({a.data(), {65536, 1}}, {a.data(), {1, 65536}}); }) == aw::ErrorKind::Range);
  aw::SdpaOptions gqa;
  gqa.enable_gqa = true;
  CHECK(kind_of([&] {
          aw::scaled_dot_product_attention({a.data(), {3, 1, 4}}, {a.data(), {2, 1, 4}}, {a.data(), {2, 1, 4}}, gqa);
        }) == aw::ErrorKind::Shape);
}

TEST_CASE("matmul: (0, 3) x (3, 4) -> (0, 4); (2, 0) x (0, 3) -> zeros") {
  std::vector<float> a(12, 1.0f), none;
  CHECK(aw::matmul({none.data(), {0, 3}}, {a.data(), {3, 4}}).shape == aw::Shape{0, 4});
  const auto z = aw::matmul({none.data(), {2, 0}}, {none.data(), {0, 3}});
  CHECK(z.shape == aw::Shape{2, 3});
  for (float y : z.data) CHECK(y == 0.0f);
}

TEST_CASE("SDPA: a head dim too large for the fused tiles takes the bounded materialised path") {
  // The fused kernel's scratch is about 128 (E + Ev) floats: beyond 2^29 for E > 2^22 (and it
  // would wrap a 32-bit size_t near E = 2^29). L = S = 1 needs only a 1 x 1 score matrix.
  const std::size_t E = (std::size_t{1} << 22) + 1;
  std::vector<float> q(E, 0.0f), v(E);
  for (std::size_t i = 0; i < E; ++i) v[i] = static_cast<float>(i % 7);
  const aw::TensorRef query{q.data(), {1, static_cast<std::int64_t>(E)}},
      value{v.data(), {1, static_cast<std::int64_t>(E)}};
  const auto r = aw::scaled_dot_product_attention(query, query, value);
  REQUIRE(r.output.shape == aw::Shape{1, static_cast<std::int64_t>(E)});
  CHECK(r.output.data == aw::AlignedVector<float>(v.begin(), v.end()));  // one key: weight 1
}
