// Tests for src/ops/attention_heads: split_heads and merge_heads against their index formulas
// (heads[n, h, first + l, :] = src[token_row(n, l), column + h Dh ...]) in both token orders, at
// a column offset (a fused q/k/v projection) and into a cache's rows; merge undoes split.
#include "ops/attention_heads.hpp"

#include <catch2/catch.hpp>

#include <vector>

TEST_CASE("ops: split_heads and merge_heads follow their formulas in both token orders", "[ops][attention_heads]") {
  const std::size_t N = 2, L = 3, H = 2, Dh = 4, column = 8, stride = column + 3 * H * Dh;  // q of a fused qkv at 8
  std::vector<float> src(N * L * stride);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = float(i);
  for (const aw::TokenOrder order : {aw::TokenOrder::BatchFirst, aw::TokenOrder::SequenceFirst}) {
    for (const std::size_t first : {std::size_t(0), std::size_t(2)}) {  // a call's own rows, or a cache's
      CAPTURE(order == aw::TokenOrder::BatchFirst, first);
      const std::size_t rows = first + L + 1;
      std::vector<float> heads(N * H * rows * Dh, -1.0f);
      const aw::HeadMatrices hm{heads.data(), N, H, rows, first, Dh};
      aw::split_heads(src.data(), stride, column, order, L, hm);
      for (std::size_t n = 0; n < N; ++n)
        for (std::size_t h = 0; h < H; ++h)
          for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t d = 0; d < Dh; ++d) {
              const float got = heads[((n * H + h) * rows + r) * Dh + d];
              if (r < first || r >= first + L) {
                CHECK(got == -1.0f);  // rows outside the call's untouched
                continue;
              }
              const std::size_t row = order == aw::TokenOrder::BatchFirst ? n * L + (r - first) : (r - first) * N + n;
              CHECK(row == aw::token_row(order, N, L, n, r - first));
              CHECK(got == src[row * stride + column + h * Dh + d]);
            }
      // merge back into (N * L, H * Dh) rows of another stride: the same values where split read them
      const std::size_t out_stride = H * Dh + 1;
      std::vector<float> merged(N * L * out_stride, -2.0f);
      aw::merge_heads(hm, order, L, merged.data(), out_stride);
      for (std::size_t row = 0; row < N * L; ++row) {
        for (std::size_t c = 0; c < H * Dh; ++c) CHECK(merged[row * out_stride + c] == src[row * stride + column + c]);
        CHECK(merged[row * out_stride + H * Dh] == -2.0f);  // past the heads: untouched
      }
    }
  }
}
