// Tests for src/ops/multihead_attention: the op (projections over all tokens, the heads laid out
// once, one merged mask, one SDPA call) against the per-head path it replaced, written from the
// scalar kernels: per batch and head, gather the head's q/k/v, build its (L, S) mask (attn_mask +
// key_padding_mask, booleans true -> -inf, causal j > i -> -inf), attend with the reference
// kernel, scatter into the merged heads, project out. Through batch_first, unbatched inputs,
// kdim/vdim, every mask combination and causal, with and without (averaged) weights, on 1 and 2
// threads (byte-identical).
#include "ops/multihead_attention.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/parallel.hpp"
#include "kernels/attention.hpp"
#include "kernels/kernel_test_util.hpp"
#include "kernels/matmul.hpp"

namespace {

using aw::Shape;
using aw::TensorRef;

struct Case {
  std::int64_t E, H, kdim, vdim, N, L, S;
  bool batched, batch_first, causal, need_weights, average;
  int kpm, am;  // 0 none, 1 float, 2 bool; am 3 = per-head float, 4 = per-head bool
};

std::vector<float> uniform(std::mt19937& rng, std::size_t n, float scale = 1.0f) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

Shape input_shape(const Case& c, std::int64_t len, std::int64_t features) {
  if (!c.batched) return {len, features};
  return c.batch_first ? Shape{c.N, len, features} : Shape{len, c.N, features};
}

std::size_t row_of(const Case& c, std::size_t n, std::size_t l, std::size_t len) {
  return c.batch_first ? n * len + l : l * static_cast<std::size_t>(c.N) + n;
}

// The per-head reference: output (rows, E) in the query's layout and weights (N, H, L, S).
void reference(const Case& c, const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
               const std::vector<float>& w, const std::vector<float>& b, const std::vector<float>& kpm,
               const std::vector<float>& am, std::vector<float>& out, std::vector<float>& weights) {
  const auto E = std::size_t(c.E), H = std::size_t(c.H), Dh = E / H, N = std::size_t(c.N), L = std::size_t(c.L),
             S = std::size_t(c.S), kd = std::size_t(c.kdim), vd = std::size_t(c.vdim);
  const float* wq = w.data();
  const float* wk = wq + E * E;
  const float* wv = wk + E * kd;
  const float* wo = wv + E * vd;
  std::vector<float> qp(N * L * E), kp(N * S * E), vp(N * S * E), merged(N * L * E);
  aw::kernels::linear_reference(q.data(), wq, b.data(), qp.data(), N * L, E, E);
  aw::kernels::linear_reference(k.data(), wk, b.data() + E, kp.data(), N * S, kd, E);
  aw::kernels::linear_reference(v.data(), wv, b.data() + 2 * E, vp.data(), N * S, vd, E);
  weights.assign(N * H * L * S, 0.0f);
  const float minus_infinity = -std::numeric_limits<float>::infinity();
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t h = 0; h < H; ++h) {
      std::vector<float> qh(L * Dh), kh(S * Dh), vh(S * Dh), oh(L * Dh), mask(L * S, 0.0f);
      for (std::size_t l = 0; l < L; ++l)
        for (std::size_t d = 0; d < Dh; ++d) qh[l * Dh + d] = qp[row_of(c, n, l, L) * E + h * Dh + d];
      for (std::size_t s = 0; s < S; ++s)
        for (std::size_t d = 0; d < Dh; ++d) {
          kh[s * Dh + d] = kp[row_of(c, n, s, S) * E + h * Dh + d];
          vh[s * Dh + d] = vp[row_of(c, n, s, S) * E + h * Dh + d];
        }
      for (std::size_t i = 0; i < L; ++i)
        for (std::size_t j = 0; j < S; ++j) {
          float m = 0.0f;
          if (c.am) m += am[(c.am >= 3 ? (n * H + h) * L * S : 0) + i * S + j];
          if (c.kpm) m += kpm[n * S + j];
          mask[i * S + j] = c.causal && j > i ? minus_infinity : m;
        }
      aw::kernels::scaled_dot_product_attention_head_reference(
          {qh.data(), kh.data(), vh.data(), oh.data(), L, S, Dh, Dh},
          {mask.data(), static_cast<std::ptrdiff_t>(S), 1, false}, 1.0f / std::sqrt(float(Dh)),
          weights.data() + (n * H + h) * L * S);
      for (std::size_t l = 0; l < L; ++l)
        for (std::size_t d = 0; d < Dh; ++d) merged[row_of(c, n, l, L) * E + h * Dh + d] = oh[l * Dh + d];
    }
  out.assign(N * L * E, 0.0f);
  aw::kernels::linear_reference(merged.data(), wo, b.data() + 3 * E, out.data(), N * L, E, E);
}

// A mask's values: float in [-2, 2], or bool (true = masked, a third) as an additive 0 / -inf.
std::vector<float> mask_values(std::mt19937& rng, std::size_t n, bool as_bool, std::vector<std::uint8_t>& bits) {
  std::vector<float> values = uniform(rng, n, 2.0f);
  bits.assign(n, 0);
  if (!as_bool) return values;
  for (std::size_t i = 0; i < n; ++i) {
    bits[i] = values[i] > 0.7f;
    values[i] = bits[i] ? -std::numeric_limits<float>::infinity() : 0.0f;
  }
  return values;
}

void check(const Case& c, std::mt19937& rng) {
  const auto E = c.E, N = c.N, L = c.L, S = c.S;
  const std::vector<float> q = uniform(rng, std::size_t(N * L * E)), k = uniform(rng, std::size_t(N * S * c.kdim)),
                           v = uniform(rng, std::size_t(N * S * c.vdim));
  const std::vector<float> w = uniform(rng, std::size_t(E * (E + c.kdim + c.vdim + E)), 0.4f),
                           b = uniform(rng, std::size_t(4 * E), 0.1f);
  std::vector<std::uint8_t> kpm_bits, am_bits;
  const std::vector<float> kpm = mask_values(rng, std::size_t(N * S), c.kpm == 2, kpm_bits);
  const std::size_t am_count = std::size_t((c.am >= 3 ? N * c.H : 1) * L * S);
  const std::vector<float> am = mask_values(rng, am_count, c.am == 2 || c.am == 4, am_bits);

  const TensorRef qr{q.data(), input_shape(c, L, E)}, kr{k.data(), input_shape(c, S, c.kdim)},
      vr{v.data(), input_shape(c, S, c.vdim)};
  const TensorRef wq{w.data(), {E, E}}, wk{w.data() + E * E, {E, c.kdim}},
      wv{w.data() + E * E + E * c.kdim, {E, c.vdim}}, wo{w.data() + E * (E + c.kdim + c.vdim), {E, E}};
  const TensorRef bin{b.data(), {3 * E}}, bout{b.data() + 3 * E, {E}};
  aw::MhaParams p;
  p.q_proj_weight = &wq;
  p.k_proj_weight = &wk;
  p.v_proj_weight = &wv;
  p.in_proj_bias = &bin;
  p.out_proj_weight = &wo;
  p.out_proj_bias = &bout;
  const Shape kpm_shape = c.batched ? Shape{N, S} : Shape{S};
  const Shape am_shape = c.am >= 3 ? Shape{N * c.H, L, S} : Shape{L, S};
  const TensorRef kpm_float{kpm.data(), kpm_shape}, am_float{am.data(), am_shape};
  const aw::BoolTensorRef kpm_bool{kpm_bits.data(), kpm_shape}, am_bool{am_bits.data(), am_shape};
  aw::MhaOptions o;
  o.num_heads = c.H;
  o.batch_first = c.batch_first;
  o.is_causal = c.causal;
  o.need_weights = c.need_weights;
  o.average_attn_weights = c.average;
  if (c.kpm == 1) o.key_padding_mask_float = &kpm_float;
  if (c.kpm == 2) o.key_padding_mask_bool = &kpm_bool;
  if (c.am == 1 || c.am == 3) o.attn_mask_float = &am_float;
  if (c.am == 2 || c.am == 4) o.attn_mask_bool = &am_bool;

  std::vector<float> want, want_weights;
  reference(c, q, k, v, w, b, kpm, am, want, want_weights);
  aw::set_thread_count(1);
  const aw::MhaResult one = aw::multihead_attention(qr, kr, vr, p, o);
  aw::set_thread_count(2);
  const aw::MhaResult two = aw::multihead_attention(qr, kr, vr, p, o);
  aw::set_thread_count(1);

  REQUIRE(one.output.shape == qr.shape);
  REQUIRE(one.output.data.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(std::fabs(one.output.data[i] - want[i]) <= 1e-5 * (1 + std::fabs(want[i])));
  }
  CHECK(std::memcmp(one.output.data.data(), two.output.data.data(), want.size() * sizeof(float)) == 0);
  if (!c.need_weights) {
    CHECK(one.weights.data.empty());
    return;
  }
  const std::size_t plane = std::size_t(L * S), H = std::size_t(c.H);
  Shape weights_shape;
  if (c.batched) weights_shape.push_back(N);
  if (!c.average) weights_shape.push_back(c.H);
  weights_shape.push_back(L);
  weights_shape.push_back(S);
  CHECK(one.weights.shape == weights_shape);
  for (std::size_t n = 0; n < std::size_t(N); ++n)
    for (std::size_t i = 0; i < plane; ++i) {
      double mean = 0;
      for (std::size_t h = 0; h < H; ++h) mean += want_weights[(n * H + h) * plane + i];
      mean /= double(H);
      for (std::size_t h = 0; h < (c.average ? 1 : H); ++h) {
        const double expected = c.average ? mean : want_weights[(n * H + h) * plane + i];
        const float got = one.weights.data[(c.average ? n : n * H + h) * plane + i];
        CAPTURE(n, h, i);
        CHECK(std::fabs(got - expected) <= 1e-6);
      }
    }
}

}  // namespace

TEST_CASE("multihead_attention op: every mask combination, layout and weights against the per-head path",
          "[ops][multihead_attention]") {
  std::mt19937 rng(20250301);
  int cases = 0;
  for (int kpm = 0; kpm <= 2; ++kpm)
    for (int am = 0; am <= 4; ++am)
      for (bool causal : {false, true})
        for (int layout = 0; layout < 3; ++layout) {  // (L, N, E), (N, L, E), unbatched
          const bool batched = layout < 2;
          const Case c{6,
                       3,
                       layout == 0 ? 5 : 6,
                       layout == 0 ? 7 : 6,
                       batched ? 2 : 1,
                       70,
                       67,
                       batched,
                       layout == 1,
                       causal,
                       (kpm + am + layout) % 2 == 0,
                       (am + layout) % 3 != 0,
                       kpm,
                       am};
          CAPTURE(kpm, am, causal, layout, c.need_weights, c.average);
          check(c, rng);
          ++cases;
        }
  CHECK(cases == 90);
}
