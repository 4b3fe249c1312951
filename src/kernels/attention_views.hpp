// What an attention kernel is given: one head's matrices with their sizes, and the mask that
// applies to its scores. Both kernels take these (kernels/attention.hpp, the materialised one, and
// kernels/flash_attention.hpp, the fused one). Views only: nothing is owned.
#pragma once

#include <cstddef>

namespace aw::kernels {

// One head, row-major: q (L, E), k (S, E), v (S, Ev), out (L, Ev).
struct HeadView {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  float* out = nullptr;
  std::size_t L = 0, S = 0, E = 0, Ev = 0;
};

// The scores' additive mask and causal exclusion:
//   element (i, j) of the mask is data[i * row_stride + j * col_stride] (strides may be 0 to
//   broadcast, e.g. a key-padding mask (S) shared by every row has row stride 0, or negative);
//   data nullptr: no mask;
//   causal: position j > i + causal_offset is excluded, and the mask is not read there. Offset 0
//   is torch's is_causal (upper-left aligned tril(ones(L, S))); S - L aligns it to the
//   bottom-right (torch's causal_lower_right: the L queries are the last of S positions, as when
//   a KV cache holds the S - L before them).
struct MaskView {
  const float* data = nullptr;
  std::ptrdiff_t row_stride = 0, col_stride = 0;
  bool causal = false;
  std::size_t causal_offset = 0;

  const float* row(std::size_t i) const { return data + static_cast<std::ptrdiff_t>(i) * row_stride; }
  float at(std::size_t i, std::size_t j) const { return row(i)[static_cast<std::ptrdiff_t>(j) * col_stride]; }
};

}  // namespace aw::kernels
