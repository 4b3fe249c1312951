// Scaled dot-product attention for one head, materialised (non-fused): the (L, S) weights
// are written out in full, then multiplied with v.
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment.
#pragma once

#include <cstddef>

namespace aw {

// out = softmax(scale * q k^T + mask) v        (torch.nn.functional.scaled_dot_product_attention)
//
// q (L, E), k (S, E), v (S, Ev), out (L, Ev).
// weights (L, S) is caller-provided scratch that receives the softmax weights.
// mask: optional additive float mask, element (i, j) at mask[i*mask_row_stride + j*mask_col_stride]
//   (strides may be 0 for broadcasting, e.g. a (S) mask shared by all rows has row stride 0);
//   nullptr = none.
// causal: if true, position j > i is excluded (upper-left aligned tril(ones(L, S)), as torch
//   is_causal); the mask is not read there.
// A row whose every position is excluded (-inf) gives weights 0 and out 0 (torch >= 2.5
// _safe_softmax), never NaN.
// out and weights must not overlap each other or any input.
void scaled_dot_product_attention_head(const float* q, const float* k, const float* v, float* out,
                                       float* weights, std::size_t L, std::size_t S, std::size_t E,
                                       std::size_t Ev, float scale, const float* mask,
                                       std::ptrdiff_t mask_row_stride,
                                       std::ptrdiff_t mask_col_stride, bool causal);

// Scalar twin: the equation as plain loops, one query row at a time.
void scaled_dot_product_attention_head_reference(const float* q, const float* k, const float* v,
                                                 float* out, float* weights, std::size_t L,
                                                 std::size_t S, std::size_t E, std::size_t Ev,
                                                 float scale, const float* mask,
                                                 std::ptrdiff_t mask_row_stride,
                                                 std::ptrdiff_t mask_col_stride, bool causal);

}  // namespace aw
