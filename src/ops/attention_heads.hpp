// Moving a projection's heads between the token rows of a linear layer and the per-head matrices
// that scaled_dot_product_attention reads: torch's MultiheadAttention (view + transpose) and
// transformers' transpose_for_scores / shape / unshape. MultiheadAttention and the transformer
// block both go through these two functions.
#pragma once
#include <cstddef>

namespace aw {

// How the N x L tokens of a batch lie in rows: token (n, l) at row n * L + l (batch first, the
// models' and batch_first's layout) or at row l * N + n (sequence first, torch's default).
enum class TokenOrder { BatchFirst, SequenceFirst };

inline std::size_t token_row(TokenOrder order, std::size_t N, std::size_t L, std::size_t n, std::size_t l) {
  return order == TokenOrder::BatchFirst ? n * L + l : l * N + n;
}

// N x H head matrices of `rows` rows of Dh floats each: (N, H, rows, Dh), head (n, h) row r at
// data + ((n * H + h) * rows + r) * Dh. The L tokens of a call occupy rows [first, first + L):
// first = 0 and rows = L for a call's own q, k, v; a KV cache has rows = its capacity and
// first = the tokens it already holds.
struct HeadMatrices {
  float* data = nullptr;
  std::size_t N = 0, H = 0, rows = 0, first = 0, Dh = 0;
};

// heads[n, h, first + l, :] = src[token_row(n, l), column + h Dh : column + (h + 1) Dh]
// src: the projection's N * L rows of `stride` floats (a fused q/k/v projection is read at the
// column where its part starts).
void split_heads(const float* src, std::size_t stride, std::size_t column, TokenOrder order, std::size_t L,
                 const HeadMatrices& heads);

// dst[token_row(n, l), h Dh : (h + 1) Dh] = heads[n, h, first + l, :]     dst: N * L rows of `stride`
void merge_heads(const HeadMatrices& heads, TokenOrder order, std::size_t L, float* dst, std::size_t stride);

}  // namespace aw
