// Tests for src/kernels/attention: the xsimd path against the scalar reference and both
// against float64 attention written here from the formula
//   out = softmax(scale * q k^T + mask) v
// over sizes that hit every SIMD tail for 4, 8 and 16 lanes, misaligned pointers, masks with
// broadcasting strides, causal masks with L != S, and fully masked rows.
#include "kernels/attention.hpp"

#include "kernels/attention_float64.hpp"
#include "kernels/mask_layouts.hpp"
#include "kernels/matmul.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "kernels/kernel_test_util.hpp"

using namespace kernel_test;

namespace {

// Tolerances. Weights: relative to the weight, plus an absolute floor near 0.
// Out: relative to sum_j w[j] |v[j, d]| (the size of the summed terms), plus a floor.
// Against float64: 1e-5 and 1e-6. xsimd against the scalar reference: 2e-6 and 1e-7.
constexpr Tolerance float64{1e-5, 1e-6};
constexpr Tolerance tight{2e-6, 1e-7};

// Runs the xsimd kernel and the reference and checks weights and out against each other and
// against float64, and that nothing is written outside out and weights.
void check_attention(const Buffer& q, const Buffer& k, const Buffer& v, std::size_t L, std::size_t S, std::size_t E,
                     std::size_t Ev, float scale, const MaskArgs& mask, const LogicalMask& logical_mask, bool causal,
                     std::size_t causal_offset = 0) {
  const aw::kernels::MaskView mask_view{mask.data, mask.row_stride, mask.col_stride, causal, causal_offset};
  const std::size_t offset = q.offset;
  Buffer out(L * Ev, offset), out_ref(L * Ev, offset);
  Buffer weights(L * S, offset), weights_ref(L * S, offset);

  aw::kernels::scaled_dot_product_attention_head(
      aw::kernels::HeadView{q.data(), k.data(), v.data(), out.data(), L, S, E, Ev}, mask_view, scale, weights.data());
  aw::kernels::scaled_dot_product_attention_head_reference(
      aw::kernels::HeadView{q.data(), k.data(), v.data(), out_ref.data(), L, S, E, Ev}, mask_view, scale,
      weights_ref.data());

  const AttentionFloat64 want =
      attention_float64(q.data(), k.data(), v.data(), L, S, E, Ev, scale, logical_mask, causal, causal_offset);
  check_simd_reference_float64("weights, ", weights.data(), weights_ref.data(), want.weights, &want.weights_scale,
                               tight, float64);
  check_simd_reference_float64("out, ", out.data(), out_ref.data(), want.out, &want.out_scale, tight, float64);
  CHECK(out.guards_intact());
  CHECK(out_ref.guards_intact());
  CHECK(weights.guards_intact());
  CHECK(weights_ref.guards_intact());
}

using kernel_test::mask_layouts;
using kernel_test::MaskLayout;  // tests/kernels/mask_layouts.hpp

}  // namespace

TEST_CASE("attention: xsimd == reference == float64 over every tail, odd E and Ev, misaligned",
          "[kernels][attention]") {
  std::mt19937 rng(20240621);
  const std::pair<std::size_t, std::size_t> head_dims[] = {{1, 1},  {3, 5},   {5, 3},   {7, 16},
                                                           {17, 9}, {33, 65}, {64, 64}, {0, 3}};
  for (std::size_t offset : offsets)
    for (std::size_t L : sizes)
      for (std::size_t S : sizes)
        for (const auto& dims : head_dims) {
          const std::size_t E = dims.first, Ev = dims.second;
          const float scale = E == 0 ? 1.0f : 1.0f / std::sqrt(float(E));
          CAPTURE(offset, L, S, E, Ev, scale);
          const Buffer q = uniform_buffer(rng, L * E, offset);
          const Buffer k = uniform_buffer(rng, S * E, offset);
          const Buffer v = uniform_buffer(rng, S * Ev, offset);
          check_attention(q, k, v, L, S, E, Ev, scale, MaskArgs{}, nullptr, false);
        }
}

TEST_CASE("attention: additive masks with broadcasting and negative strides, with and without causal",
          "[kernels][attention]") {
  std::mt19937 rng(20240622);
  const std::size_t few_sizes[] = {1, 3, 4, 5, 8, 9, 16, 17, 33, 65};
  for (const MaskLayout& layout : mask_layouts)
    for (bool causal : {false, true})
      for (std::size_t L : few_sizes)
        for (std::size_t S : few_sizes) {
          const std::size_t E = 5, Ev = 7;
          CAPTURE(layout.name, causal, L, S, E, Ev);
          const Buffer q = uniform_buffer(rng, L * E, 1);
          const Buffer k = uniform_buffer(rng, S * E, 1);
          const Buffer v = uniform_buffer(rng, S * Ev, 1);
          const StoredMask mask = random_stored_mask(rng, layout, L, S);
          check_attention(q, k, v, L, S, E, Ev, 1.0f, mask.args, mask.logical, causal);
        }
}

TEST_CASE("attention: causal is upper-left aligned when L != S", "[kernels][attention]") {
  std::mt19937 rng(20240623);
  const std::pair<std::size_t, std::size_t> shapes[] = {{5, 9}, {9, 5}, {17, 4}, {3, 65}, {65, 17}, {1, 33}};
  for (const auto& shape : shapes) {
    const std::size_t L = shape.first, S = shape.second, E = 9, Ev = 4;
    CAPTURE(L, S);
    const Buffer q = uniform_buffer(rng, L * E, 1);
    const Buffer k = uniform_buffer(rng, S * E, 1);
    const Buffer v = uniform_buffer(rng, S * Ev, 1);
    check_attention(q, k, v, L, S, E, Ev, 1.0f, MaskArgs{}, nullptr, true);

    std::vector<float> out(L * Ev), weights(L * S);
    aw::kernels::scaled_dot_product_attention_head(
        aw::kernels::HeadView{q.data(), k.data(), v.data(), out.data(), L, S, E, Ev},
        aw::kernels::MaskView{nullptr, 0, 0, true}, 1.0f, weights.data());
    for (std::size_t i = 0; i < L; ++i)
      for (std::size_t j = 0; j < S; ++j) {
        CAPTURE(i, j);
        if (j > i)
          CHECK(weights[i * S + j] == 0.0f);  // tril(ones(L, S)) keeps j <= i
        else
          CHECK(weights[i * S + j] > 0.0f);
      }
    // Row 0 sees only key 0: out[0] = v[0].
    for (std::size_t d = 0; d < Ev; ++d) CHECK(out[d] == Approx(v.data()[d]).epsilon(1e-6));
  }
}

TEST_CASE("attention: causal aligned bottom-right (causal_offset = S - L: a KV cache)", "[kernels][attention]") {
  std::mt19937 rng(20240625);
  const std::pair<std::size_t, std::size_t> shapes[] = {{1, 9}, {4, 9}, {5, 5}, {3, 65}, {17, 33}};
  for (const auto& [L, S] : shapes) {
    const std::size_t E = 9, Ev = 4;
    CAPTURE(L, S);
    const Buffer q = uniform_buffer(rng, L * E, 1), k = uniform_buffer(rng, S * E, 1),
                 v = uniform_buffer(rng, S * Ev, 1);
    check_attention(q, k, v, L, S, E, Ev, 1.0f, MaskArgs{}, nullptr, true, S - L);
    std::vector<float> out(L * Ev), weights(L * S);
    aw::kernels::scaled_dot_product_attention_head(
        aw::kernels::HeadView{q.data(), k.data(), v.data(), out.data(), L, S, E, Ev},
        aw::kernels::MaskView{nullptr, 0, 0, true, S - L}, 1.0f, weights.data());
    for (std::size_t i = 0; i < L; ++i)
      for (std::size_t j = 0; j < S; ++j) {
        CAPTURE(i, j);
        if (j > i + S - L)
          CHECK(weights[i * S + j] == 0.0f);  // the last query sees every key
        else
          CHECK(weights[i * S + j] > 0.0f);
      }
  }
}

TEST_CASE("attention: fully masked rows give weights 0 and out 0, never NaN", "[kernels][attention]") {
  std::mt19937 rng(20240624);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  for (std::size_t S : {std::size_t(1), std::size_t(4), std::size_t(17), std::size_t(33)})
    for (bool causal : {false, true}) {
      const std::size_t L = 7, E = 5, Ev = 9;
      CAPTURE(S, causal);
      const Buffer q = uniform_buffer(rng, L * E, 1);
      const Buffer k = uniform_buffer(rng, S * E, 1);
      const Buffer v = uniform_buffer(rng, S * Ev, 1);
      // full (L, S) mask; rows 0, 3 and 6 entirely -inf. With causal, row 1 masks only what
      // causal keeps (j <= 1), so it is fully excluded too although the mask is finite for j > 1.
      Buffer mask(L * S, 1);
      for (std::size_t i = 0; i < L * S; ++i) mask.data()[i] = uniform(rng);
      for (std::size_t i : {std::size_t(0), std::size_t(3), std::size_t(6)})
        for (std::size_t j = 0; j < S; ++j) mask.data()[i * S + j] = -infinity;
      if (causal)
        for (std::size_t j = 0; j < std::min<std::size_t>(2, S); ++j) mask.data()[1 * S + j] = -infinity;

      const float* m = mask.data();
      const LogicalMask logical = [&](std::size_t i, std::size_t j) { return double(m[i * S + j]); };
      check_attention(q, k, v, L, S, E, Ev, 0.5f, MaskArgs{m, std::ptrdiff_t(S), 1}, logical, causal);

      std::vector<std::size_t> masked_rows = {0, 3, 6};
      if (causal) masked_rows.push_back(1);
      std::vector<float> out(L * Ev), weights(L * S), out_ref(L * Ev), weights_ref(L * S);
      aw::kernels::scaled_dot_product_attention_head(
          aw::kernels::HeadView{q.data(), k.data(), v.data(), out.data(), L, S, E, Ev},
          aw::kernels::MaskView{m, std::ptrdiff_t(S), 1, causal}, 0.5f, weights.data());
      aw::kernels::scaled_dot_product_attention_head_reference(
          aw::kernels::HeadView{q.data(), k.data(), v.data(), out_ref.data(), L, S, E, Ev},
          aw::kernels::MaskView{m, std::ptrdiff_t(S), 1, causal}, 0.5f, weights_ref.data());
      for (std::size_t i : masked_rows) {
        CAPTURE(i);
        for (std::size_t j = 0; j < S; ++j) {
          CHECK(weights[i * S + j] == 0.0f);
          CHECK(weights_ref[i * S + j] == 0.0f);
        }
        for (std::size_t d = 0; d < Ev; ++d) {
          CHECK(out[i * Ev + d] == 0.0f);
          CHECK(out_ref[i * Ev + d] == 0.0f);
        }
      }
      for (float x : out) CHECK(std::isfinite(x));
      for (float x : weights) CHECK(std::isfinite(x));
    }
}

TEST_CASE("attention: document 003, three inputs worked by hand (scale 1)", "[kernels][attention]") {
  // /work/shared/seeds/003_930b4450414597d4.txt: queries, keys and values of three inputs.
  const float q[] = {1, 0, 2, 2, 2, 2, 2, 1, 3};  // (3, 3)
  const float k[] = {0, 1, 1, 4, 4, 0, 2, 3, 1};  // (3, 3)
  const float v[] = {1, 2, 3, 2, 8, 0, 2, 6, 3};  // (3, 3)
  const std::size_t L = 3, S = 3, E = 3, Ev = 3;

  // Step 4: scores of query 1 = [2, 4, 4] (all scores are small integers: exact in float).
  float scores[9];
  aw::kernels::matmul_transposed_b(q, k, scores, L, E, S);
  const float want_scores[] = {2, 4, 4, 4, 16, 12, 4, 12, 10};
  for (int i = 0; i < 9; ++i) CHECK(scores[i] == want_scores[i]);

  float out[9], weights[9], out_ref[9], weights_ref[9];
  aw::kernels::scaled_dot_product_attention_head(aw::kernels::HeadView{q, k, v, out, L, S, E, Ev},
                                                 aw::kernels::MaskView{nullptr, 0, 0, false}, 1.0f, weights);
  aw::kernels::scaled_dot_product_attention_head_reference(aw::kernels::HeadView{q, k, v, out_ref, L, S, E, Ev},
                                                           aw::kernels::MaskView{nullptr, 0, 0, false}, 1.0f,
                                                           weights_ref);

  // Exact softmax weights and outputs in float64 from the formula.
  for (std::size_t i = 0; i < L; ++i) {
    double max = want_scores[i * S], sum = 0;
    for (std::size_t j = 0; j < S; ++j) max = std::max(max, double(want_scores[i * S + j]));
    for (std::size_t j = 0; j < S; ++j) sum += std::exp(want_scores[i * S + j] - max);
    for (std::size_t d = 0; d < Ev; ++d) {
      double o = 0;
      for (std::size_t j = 0; j < S; ++j) {
        const double w = std::exp(want_scores[i * S + j] - max) / sum;
        if (d == 0) {
          CHECK(weights[i * S + j] == Approx(w).epsilon(1e-5).margin(1e-6));
          CHECK(weights_ref[i * S + j] == Approx(w).epsilon(1e-5).margin(1e-6));
        }
        o += w * v[j * Ev + d];
      }
      CAPTURE(i, d);
      CHECK(out[i * Ev + d] == Approx(o).epsilon(1e-5).margin(1e-6));
      CHECK(out_ref[i * Ev + d] == Approx(o).epsilon(1e-5).margin(1e-6));
    }
  }

  // The document's rounded numbers. It rounds the weights to [0.0, 0.5, 0.5] ("to 1 decimal
  // place for readability"; 0.0634 is shown as 0.0) and sums the values with those rounded
  // weights: [2.0, 7.0, 1.5]. Steps 6-7 are exact with the rounded weights:
  const float doc_weights[] = {0.0f, 0.5f, 0.5f};  // (1, 3)
  float doc_out[3];
  aw::kernels::matmul(doc_weights, v, doc_out, 1, 3, 3);
  CHECK(doc_out[0] == 2.0f);
  CHECK(doc_out[1] == 7.0f);
  CHECK(doc_out[2] == 1.5f);
  // ...and the exact weights are within 0.07 of the rounded ones, the exact output within
  // 0.32 of [2.0, 7.0, 1.5] (the rounding of weight 0.0634 to 0.0 moves it by that much).
  for (int j = 0; j < 3; ++j) CHECK(weights[j] == Approx(doc_weights[j]).margin(0.07));
  CHECK(out[0] == Approx(2.0).margin(0.07));
  CHECK(out[1] == Approx(7.0).margin(0.32));
  CHECK(out[2] == Approx(1.5).margin(0.1));
}

TEST_CASE("attention: empty shapes", "[kernels][attention]") {
  std::mt19937 rng(20240625);
  // S == 0: softmax over nothing, out = weights v = 0 (torch gives zeros too).
  const Buffer q = uniform_buffer(rng, 4 * 3, 1);
  const Buffer none(0, 1);
  Buffer out(4 * 5, 1), weights(0, 1);
  aw::kernels::scaled_dot_product_attention_head(
      aw::kernels::HeadView{q.data(), none.data(), none.data(), out.data(), 4, 0, 3, 5},
      aw::kernels::MaskView{nullptr, 0, 0, true}, 1.0f, weights.data());
  for (std::size_t i = 0; i < 4 * 5; ++i) CHECK(out.data()[i] == 0.0f);
  CHECK(out.guards_intact());
  CHECK(weights.guards_intact());

  // L == 0: nothing written.
  Buffer out0(0, 1), weights0(0, 1);
  const Buffer k = uniform_buffer(rng, 6 * 3, 1);
  aw::kernels::scaled_dot_product_attention_head(
      aw::kernels::HeadView{none.data(), k.data(), k.data(), out0.data(), 0, 6, 3, 3},
      aw::kernels::MaskView{nullptr, 0, 0, false}, 1.0f, weights0.data());
  CHECK(out0.guards_intact());
  CHECK(weights0.guards_intact());
}
