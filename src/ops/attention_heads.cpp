#include "ops/attention_heads.hpp"

#include <algorithm>

namespace aw {

void split_heads(const float* src, std::size_t stride, std::size_t column, TokenOrder order, std::size_t L,
                 const HeadMatrices& heads) {
  const std::size_t N = heads.N, H = heads.H, Dh = heads.Dh;
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t l = 0; l < L; ++l) {
      const float* row = src + token_row(order, N, L, n, l) * stride + column;
      for (std::size_t h = 0; h < H; ++h)
        std::copy_n(row + h * Dh, Dh, heads.data + ((n * H + h) * heads.rows + heads.first + l) * Dh);
    }
}

void merge_heads(const HeadMatrices& heads, TokenOrder order, std::size_t L, float* dst, std::size_t stride) {
  const std::size_t N = heads.N, H = heads.H, Dh = heads.Dh;
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t l = 0; l < L; ++l)
        std::copy_n(heads.data + ((n * H + h) * heads.rows + heads.first + l) * Dh, Dh,
                    dst + token_row(order, N, L, n, l) * stride + h * Dh);
}

}  // namespace aw
