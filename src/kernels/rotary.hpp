// Rotary position embedding (RoPE, Su et al. 2021) in transformers' rotate_half layout: the first
// half of a head's dims is paired with the second half (modeling_llama.py, rotate_half and
// apply_rotary_pos_emb: q * cos + rotate_half(q) * sin, with cos and sin repeated over both halves).
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment.
#pragma once

#include <cstddef>

namespace aw::kernels {

// For each of `rows` rows of x (2 half values) and i < half, with c = cos[row, i], s = sin[row, i]:
//   x[i]        <- x[i] c - x[i + half] s
//   x[i + half] <- x[i + half] c + x[i] s
// in place. x (rows, 2 half); cos, sin (rows, half): the angles of each row's position, i.e.
// cos(position * theta^(-2i / (2 half))). x must not overlap cos or sin.
void rotary_embedding(float* x, const float* cos, const float* sin, std::size_t rows, std::size_t half);
void rotary_embedding_reference(float* x, const float* cos, const float* sin, std::size_t rows, std::size_t half);

}  // namespace aw::kernels
