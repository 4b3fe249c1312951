// Tests for src/ops/attention (scaled_dot_product_attention). The dispatch: without weights to
// return the op runs the fused kernel (kernels/flash_attention); force_materialized runs the (L, S)
// head kernel. Both must agree through broadcasting, grouped-query heads, bool and float masks and
// causal. The boundary: sizes computed in int64 (on wasm32 a size_t product wraps), bad shapes an
// aw::Error of the right kind before any kernel runs, zero-length dims empty or zero results.
#include "ops/attention.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"
#include "kernels/kernel_test_util.hpp"  // uniform_buffer

namespace {

using aw_test::error_of;
using aw_test::kind_of;

std::size_t numel(const aw::Shape& s) {
  std::size_t n = 1;
  for (auto d : s) n *= static_cast<std::size_t>(d);
  return n;
}

// max |fused - materialised| / (1 + |materialised|) over the output
double compare_paths(const aw::TensorRef& q, const aw::TensorRef& k, const aw::TensorRef& v, aw::SdpaOptions opt) {
  opt.force_materialized = false;
  const aw::SdpaResult fused = aw::scaled_dot_product_attention(q, k, v, opt);
  opt.force_materialized = true;
  const aw::SdpaResult materialised = aw::scaled_dot_product_attention(q, k, v, opt);
  REQUIRE(fused.output.shape == materialised.output.shape);
  REQUIRE(fused.weights.data.empty());
  double worst = 0;
  for (std::size_t i = 0; i < fused.output.data.size(); ++i) {
    const double a = fused.output.data[i], b = materialised.output.data[i];
    REQUIRE(std::isfinite(a));
    worst = std::max(worst, std::fabs(a - b) / (1.0 + std::fabs(b)));
  }
  return worst;
}

}  // namespace

TEST_CASE("sdpa op: fused and materialised paths agree", "[ops][attention]") {
  std::mt19937 rng(7);
  // query (2, 4, 70, 9), key/value (2, 2, 67, 9|5) with enable_gqa; batch dim of key broadcast
  const aw::Shape qs{2, 4, 70, 9}, ks{1, 2, 67, 9}, vs{1, 2, 67, 5};
  using kernel_test::uniform_buffer;
  const auto qd = uniform_buffer(rng, numel(qs), 0), kd = uniform_buffer(rng, numel(ks), 0),
             vd = uniform_buffer(rng, numel(vs), 0);
  const aw::TensorRef q{qd.data(), qs}, k{kd.data(), ks}, v{vd.data(), vs};

  aw::SdpaOptions opt;
  opt.enable_gqa = true;
  CHECK(compare_paths(q, k, v, opt) < 1e-5);

  opt.is_causal = true;
  CHECK(compare_paths(q, k, v, opt) < 1e-5);
  opt.is_causal = false;

  // bool key-padding mask (S), some rows of a float (L, S) mask fully -inf
  const aw::Shape bs{67};
  std::vector<std::uint8_t> bd(67);
  for (std::size_t j = 0; j < bd.size(); ++j) bd[j] = j % 3 != 0;
  const aw::BoolTensorRef bmask{bd.data(), bs};
  opt.bool_mask = &bmask;
  CHECK(compare_paths(q, k, v, opt) < 1e-5);
  opt.bool_mask = nullptr;

  const aw::Shape fs{4, 70, 67};
  auto fd = uniform_buffer(rng, numel(fs), 0);
  for (std::size_t j = 0; j < 67; ++j) fd[5 * 67 + j] = -INFINITY;
  const aw::TensorRef fmask{fd.data(), fs};
  opt.float_mask = &fmask;
  opt.scale = 0.3;
  CHECK(compare_paths(q, k, v, opt) < 1e-5);
}

TEST_CASE("sdpa op: an (L, S) score matrix beyond 2^29 elements is rejected before any allocation",
          "[ops][attention]") {
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

TEST_CASE("sdpa op: grouped-query heads that do not divide are a shape error", "[ops][attention]") {
  std::vector<float> a(12, 1.0f);
  aw::SdpaOptions gqa;
  gqa.enable_gqa = true;
  CHECK(error_of([&] {
          aw::scaled_dot_product_attention({a.data(), {3, 1, 4}}, {a.data(), {2, 1, 4}}, {a.data(), {3, 1, 4}}, gqa);
        }) ==
        "scaled_dot_product_attention: with enable_gqa the query heads (3) must be a multiple of the key heads "
        "(2) and of the value heads (3), got query [3, 1, 4], key [2, 1, 4], value [3, 1, 4]");
}

TEST_CASE("sdpa op: enable_gqa with key and value heads of their own counts repeats each, as torch",
          "[ops][attention]") {
  // aten's pre_process_group_query_attention_input: Hq = 4 query heads, key heads repeated
  // Hq / Hk = 2 times, value heads Hq / Hv = 4 times (repeat_interleave over the heads dim)
  std::mt19937 rng(20261128);
  const std::size_t Hq = 4, Hk = 2, Hv = 1, L = 3, S = 5, E = 2, Ev = 3;
  const auto q = kernel_test::uniform_buffer(rng, Hq * L * E, 0), k = kernel_test::uniform_buffer(rng, Hk * S * E, 0),
             v = kernel_test::uniform_buffer(rng, Hv * S * Ev, 0);
  std::vector<float> k_repeated, v_repeated;
  for (std::size_t h = 0; h < Hq; ++h) {
    const std::size_t kh = h / (Hq / Hk), vh = h / (Hq / Hv);
    k_repeated.insert(k_repeated.end(), k.data() + kh * S * E, k.data() + (kh + 1) * S * E);
    v_repeated.insert(v_repeated.end(), v.data() + vh * S * Ev, v.data() + (vh + 1) * S * Ev);
  }
  const auto i64 = [](std::size_t n) { return static_cast<std::int64_t>(n); };
  const aw::TensorRef query{q.data(), {1, i64(Hq), i64(L), i64(E)}};
  for (bool weights : {false, true}) {  // the fused kernel, and the materialised path with its weights
    CAPTURE(weights);
    aw::SdpaOptions gqa, plain;
    gqa.enable_gqa = true;
    gqa.return_weights = plain.return_weights = weights;
    const auto got = aw::scaled_dot_product_attention(query, {k.data(), {1, i64(Hk), i64(S), i64(E)}},
                                                      {v.data(), {1, i64(Hv), i64(S), i64(Ev)}}, gqa);
    const auto want = aw::scaled_dot_product_attention(query, {k_repeated.data(), {1, i64(Hq), i64(S), i64(E)}},
                                                       {v_repeated.data(), {1, i64(Hq), i64(S), i64(Ev)}}, plain);
    CHECK(got.output.shape == aw::Shape{1, i64(Hq), i64(L), i64(Ev)});
    CHECK(got.output.data == want.output.data);
    CHECK(got.weights.data == want.weights.data);
  }
}

TEST_CASE("sdpa op: enable_gqa with no heads at all is no error (nothing to repeat), as torch", "[ops][attention]") {
  std::vector<float> none;
  aw::SdpaOptions gqa;
  gqa.enable_gqa = true;
  const auto r = aw::scaled_dot_product_attention({none.data(), {1, 0, 3, 4}}, {none.data(), {1, 0, 5, 4}},
                                                  {none.data(), {1, 0, 5, 2}}, gqa);
  CHECK(r.output.shape == aw::Shape{1, 0, 3, 2});
}

TEST_CASE("sdpa op: zero-length dims", "[ops][attention]") {
  std::vector<float> q(2 * 3 * 4, 1.0f), none;
  const aw::TensorRef query{q.data(), {2, 3, 4}}, key{none.data(), {2, 0, 4}}, value{none.data(), {2, 0, 6}};
  const auto r = aw::scaled_dot_product_attention(query, key, value);
  CHECK(r.output.shape == aw::Shape{2, 3, 6});
  for (float y : r.output.data) CHECK(y == 0.0f);
}

TEST_CASE("sdpa op: Ev = 0 still gives the weights when asked", "[ops][attention]") {
  std::vector<float> q{1, 0}, k{1, 0, 0, 1}, none;
  aw::SdpaOptions opt;
  opt.return_weights = true;
  opt.scale = 1.0;
  const auto r = aw::scaled_dot_product_attention({q.data(), {1, 2}}, {k.data(), {2, 2}}, {none.data(), {2, 0}}, opt);
  REQUIRE(r.weights.data.size() == 2);
  CHECK(r.weights.data[0] + r.weights.data[1] == Approx(1.0f));
  CHECK(r.weights.data[0] > r.weights.data[1]);
}

TEST_CASE("sdpa op: a head dim too large for the fused tiles takes the bounded materialised path", "[ops][attention]") {
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
