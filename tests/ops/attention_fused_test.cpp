// Tests for the dispatch in src/ops/attention: without weights to return the op runs the fused
// kernel (kernels/flash_attention); force_materialized runs the (L, S) head kernel. Both must
// agree through broadcasting, grouped-query heads, bool and float masks and causal.
#include "ops/attention.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/kernel_test_util.hpp"  // uniform_buffer

namespace {

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
