// Scaled dot-product attention, one head: xsimd kernel and scalar reference. See attention.hpp.
#include "kernels/attention.hpp"

#include <algorithm>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "kernels/matmul.hpp"
#include "kernels/softmax.hpp"

namespace aw {
namespace {

using batch = xsimd::batch<float>;  // default arch: 4 lanes on wasm simd128, 8 on AVX2, 16 on AVX-512
constexpr std::size_t lanes = batch::size;
constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

// Columns of row i that causal attention keeps: j <= i (all S when not causal).
std::size_t visible_columns(std::size_t i, std::size_t S, bool causal)
{
    return causal ? std::min(S, i + 1) : S;
}

// scores = q k^T
// q (L, E), k (S, E), scores (L, S).
void q_dot_k(const float* q, const float* k, float* scores, std::size_t L, std::size_t S,
             std::size_t E)
{
    matmul_transposed_b(q, k, scores, L, E, S);
}

// scores[i, j] = scale * scores[i, j] + mask[i, j]   for visible j
// scores[i, j] = -inf                                for j > i when causal
// scores (L, S); mask element (i, j) at mask[i*row_stride + j*col_stride], or nullptr.
void scale_and_mask_scores(float* scores, std::size_t L, std::size_t S, float scale,
                           const float* mask, std::ptrdiff_t row_stride,
                           std::ptrdiff_t col_stride, bool causal)
{
    const batch scale_v(scale);
    for (std::size_t i = 0; i < L; ++i) {
        float* row = scores + i * S;
        const std::size_t visible = visible_columns(i, S, causal);
        const std::size_t visible_vec = visible - visible % lanes;
        const float* mask_row = mask ? mask + static_cast<std::ptrdiff_t>(i) * row_stride : nullptr;

        // mask[i, j : j+lanes]: a load when contiguous, a broadcast when the column stride is 0,
        // otherwise gathered lane by lane.
        auto mask_at = [&](std::size_t j) { return mask_row[static_cast<std::ptrdiff_t>(j) * col_stride]; };
        auto mask_vector = [&](std::size_t j) {
            if (col_stride == 1) return batch::load_unaligned(mask_row + j);
            if (col_stride == 0) return batch(mask_row[0]);
            float gathered[lanes];
            for (std::size_t l = 0; l < lanes; ++l) gathered[l] = mask_at(j + l);
            return batch::load_unaligned(gathered);
        };

        if (mask_row) {
            for (std::size_t j = 0; j < visible_vec; j += lanes)
                xsimd::fma(scale_v, batch::load_unaligned(row + j), mask_vector(j)).store_unaligned(row + j);
            for (std::size_t j = visible_vec; j < visible; ++j) row[j] = scale * row[j] + mask_at(j);
        } else {
            for (std::size_t j = 0; j < visible_vec; j += lanes)
                (scale_v * batch::load_unaligned(row + j)).store_unaligned(row + j);
            for (std::size_t j = visible_vec; j < visible; ++j) row[j] = scale * row[j];
        }

        // causal: exclude the future
        std::fill(row + visible, row + S, minus_infinity);
    }
}

// out = weights v
// weights (L, S), v (S, Ev), out (L, Ev).
void weighted_sum_v(const float* weights, const float* v, float* out, std::size_t L,
                    std::size_t S, std::size_t Ev)
{
    matmul(weights, v, out, L, S, Ev);
}

}  // namespace

void scaled_dot_product_attention_head(const float* q, const float* k, const float* v, float* out,
                                       float* weights, std::size_t L, std::size_t S, std::size_t E,
                                       std::size_t Ev, float scale, const float* mask,
                                       std::ptrdiff_t mask_row_stride,
                                       std::ptrdiff_t mask_col_stride, bool causal)
{
    // scores = q k^T                                  (L, S), in weights
    q_dot_k(q, k, weights, L, S, E);
    // scores = scale * scores + mask; -inf where causal excludes
    scale_and_mask_scores(weights, L, S, scale, mask, mask_row_stride, mask_col_stride, causal);
    // weights = softmax(scores) along each row; a row of -inf gives zeros
    softmax(weights, weights, L, S, 1);
    // out = weights v                                 (L, Ev)
    weighted_sum_v(weights, v, out, L, S, Ev);
}

void scaled_dot_product_attention_head_reference(const float* q, const float* k, const float* v,
                                                 float* out, float* weights, std::size_t L,
                                                 std::size_t S, std::size_t E, std::size_t Ev,
                                                 float scale, const float* mask,
                                                 std::ptrdiff_t mask_row_stride,
                                                 std::ptrdiff_t mask_col_stride, bool causal)
{
    for (std::size_t i = 0; i < L; ++i) {
        float* w = weights + i * S;  // (S)

        // scores: scale * q_i . k_j + mask[i, j], -inf where causal excludes
        for (std::size_t j = 0; j < S; ++j) {
            if (causal && j > i) {
                w[j] = minus_infinity;
                continue;
            }
            float dot = 0.0f;
            for (std::size_t e = 0; e < E; ++e) dot += q[i * E + e] * k[j * E + e];
            w[j] = scale * dot;
            if (mask)
                w[j] += mask[static_cast<std::ptrdiff_t>(i) * mask_row_stride +
                             static_cast<std::ptrdiff_t>(j) * mask_col_stride];
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

}  // namespace aw
