// Scaled dot-product attention, one head: xsimd kernel and scalar reference. See attention.hpp.
#include "kernels/attention.hpp"

#include <algorithm>
#include <limits>

#include "kernels/matmul.hpp"
#include "kernels/simd.hpp"
#include "kernels/softmax.hpp"

namespace aw::kernels {
namespace {

using simd::batch;
using simd::lanes;
constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

// Columns of row i that causal attention keeps: j <= i + causal_offset (all S when not causal).
std::size_t visible_columns(std::size_t i, std::size_t S, const MaskView& mask) {
  return mask.causal ? std::min(S, i + mask.causal_offset + 1) : S;
}

// mask[i, j : j+lanes] for a row of the mask: a load when contiguous, a broadcast when the
// column stride is 0, otherwise gathered lane by lane.
batch mask_vector(const float* mask_row, std::ptrdiff_t col_stride, std::size_t j) {
  if (col_stride == 1) return batch::load_unaligned(mask_row + j);
  if (col_stride == 0) return batch(mask_row[0]);
  alignas(64) float gathered[lanes];
  for (std::size_t l = 0; l < lanes; ++l) gathered[l] = mask_row[static_cast<std::ptrdiff_t>(j + l) * col_stride];
  return batch::load_unaligned(gathered);
}

// scores[i, j] = scale * scores[i, j] + mask[i, j]   for visible j
// scores[i, j] = -inf                                for j > i + causal_offset when causal
// scores (L, S).
void scale_and_mask_scores(float* scores, std::size_t L, std::size_t S, float scale, const MaskView& mask) {
  const batch scale_v(scale);
  for (std::size_t i = 0; i < L; ++i) {
    float* row = scores + i * S;
    const std::size_t visible = visible_columns(i, S, mask);
    if (mask.data) {
      const float* mask_row = mask.row(i);
      simd::vector_then_scalar(
          visible,
          [&](std::size_t j) {
            simd::fma(scale_v, batch::load_unaligned(row + j), mask_vector(mask_row, mask.col_stride, j))
                .store_unaligned(row + j);
          },
          [&](std::size_t j) { row[j] = scale * row[j] + mask.at(i, j); });
    } else {
      simd::map(
          row, row, visible, [&](batch x) { return scale_v * x; }, [&](float x) { return scale * x; });
    }
    std::fill(row + visible, row + S, minus_infinity);  // causal: exclude the future
  }
}

}  // namespace

void scaled_dot_product_attention_head(const HeadView& head, const MaskView& mask, float scale, float* weights) {
  // scores = q k^T                                  (L, S), in weights
  matmul_transposed_b(head.q, head.k, weights, head.L, head.E, head.S);
  // scores = scale * scores + mask; -inf where causal excludes
  scale_and_mask_scores(weights, head.L, head.S, scale, mask);
  // weights = softmax(scores) along each row; a row of -inf gives zeros
  softmax(weights, weights, head.L, head.S, 1);
  // out = weights v                                 (L, Ev)
  matmul(weights, head.v, head.out, head.L, head.S, head.Ev);
}

void scaled_dot_product_attention_head_reference(const HeadView& head, const MaskView& mask, float scale,
                                                 float* weights) {
  const auto [q, k, v, out, L, S, E, Ev] = head;
  for (std::size_t i = 0; i < L; ++i) {
    float* w = weights + i * S;  // (S)

    // scores: scale * q_i . k_j + mask[i, j], -inf where causal excludes
    for (std::size_t j = 0; j < S; ++j) {
      if (mask.causal && j > i + mask.causal_offset) {
        w[j] = minus_infinity;
        continue;
      }
      float dot = 0.0f;
      for (std::size_t e = 0; e < E; ++e) dot += q[i * E + e] * k[j * E + e];
      w[j] = scale * dot;
      if (mask.data) w[j] += mask.at(i, j);
    }

    // weights: softmax over the row (a row of -inf gives zeros)
    softmax_reference(w, w, 1, S, 1);

    // out_i = sum_j w[j] v_j
    for (std::size_t d = 0; d < Ev; ++d) {
      float sum = 0.0f;
      for (std::size_t j = 0; j < S; ++j) sum += w[j] * v[j * Ev + d];
      out[i * Ev + d] = sum;
    }
  }
}

}  // namespace aw::kernels
