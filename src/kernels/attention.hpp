// Scaled dot-product attention for one head, materialised (non-fused): the (L, S) weights
// are written out in full, then multiplied with v.
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment.
#pragma once

#include <cstddef>

#include "kernels/attention_views.hpp"

namespace aw::kernels {

// out = softmax(scale * q k^T + mask) v        (torch.nn.functional.scaled_dot_product_attention)
//
// head: q (L, E), k (S, E), v (S, Ev), out (L, Ev). mask: see MaskView.
// weights (L, S) is caller-provided and receives the softmax weights.
// A row whose every position is excluded (-inf) gives weights 0 and out 0 (torch >= 2.5
// _safe_softmax), never NaN.
// out and weights must not overlap each other or any input.
void scaled_dot_product_attention_head(const HeadView& head, const MaskView& mask, float scale, float* weights);

// Scalar twin: the equation as plain loops, one query row at a time.
void scaled_dot_product_attention_head_reference(const HeadView& head, const MaskView& mask, float scale,
                                                 float* weights);

}  // namespace aw::kernels
