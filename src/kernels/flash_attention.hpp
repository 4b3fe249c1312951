// Scaled dot-product attention for one head, fused ("flash attention", Dao et al. 2022):
// tiles of queries meet tiles of keys, the softmax is computed online, and the (L, S) score
// matrix is never materialised. Memory: a fixed scratch of a few tiles, whatever L and S.
//
// Same result as scaled_dot_product_attention_head (kernels/attention.hpp), which stays the
// reference, up to float rounding (the sums are taken in another order).
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/attention_views.hpp"

namespace aw::kernels {

// Floats of scratch that the fused kernel needs for head dims E and Ev (independent of L and S).
// 64-bit so that callers can check it before allocating: it is about 128 (E + Ev) floats and
// would wrap a 32-bit size_t (wasm32) for E near 2^29.
std::uint64_t flash_attention_scratch_size(std::uint64_t E, std::uint64_t Ev);

// out = softmax(scale * q k^T + mask) v        (torch.nn.functional.scaled_dot_product_attention)
//
// head: q (L, E), k (S, E), v (S, Ev), out (L, Ev). mask: see MaskView (causal also skips the
// key tiles entirely in the future). scratch: flash_attention_scratch_size(E, Ev) floats,
// contents ignored. A row whose every position is excluded (-inf) gives out 0 (torch >= 2.5),
// never NaN. out and scratch must not overlap each other or any input. The softmax runs in base 2
// (scores and mask times log2(e)), so finite scores or mask values beyond +-FLT_MAX / log2(e)
// (~2.36e38) are held at +-FLT_MAX and tie with each other (-FLT_MAX, the usual padding value,
// gives what torch gives; -2.5e38 beside -FLT_MAX would not be told apart, where the
// materialised kernel would).
//
// Online softmax, per query row i and key tile t (s = scale * q_i . k_j + mask[i, j]):
//   m' = max(m, max_j s_j)                 running max (m = -inf before the first tile)
//   alpha = exp(m - m'),  p_j = exp(s_j - m')
//   l' = alpha * l + sum_j p_j             running sum of the weights
//   o' = alpha * o + sum_j p_j v_j         unnormalised output
// and at the end out_i = o / l (0 when l = 0: nothing to attend to).
void flash_attention_head(const HeadView& head, const MaskView& mask, float scale, float* scratch);

// The same for the output rows [row_begin, row_end) only (queries row_begin .. row_end - 1; the
// views are still the whole head's): what a thread computes when an op splits a head. Each
// row's arithmetic does not depend on the split, so the union of the parts is byte-identical to
// flash_attention_head. Splits at multiples of flash_attention_query_tile() keep the tiles full.
//
// packed_keys: k as flash_attention_pack_keys packs it, or nullptr to pack each key tile into the
// scratch whenever a query tile meets it (once per call pays when a head has several query
// tiles); the result is byte-identical either way.
void flash_attention_rows(const HeadView& head, const MaskView& mask, float scale, std::size_t row_begin,
                          std::size_t row_end, float* scratch, const float* packed_keys = nullptr);

// Floats that flash_attention_pack_keys writes for S keys of dim E: (E, key tile) transposed
// tiles, S rounded up to whole tiles of 64 keys (so up to 64 E for small S); 64-bit, as for
// the scratch.
std::uint64_t flash_attention_packed_keys_size(std::uint64_t S, std::uint64_t E);

// packed = the key tiles of k (S, E), each transposed to (E, key tile) as the Q K^T
// micro-kernel reads them, one after the other. packed must not overlap k.
void flash_attention_pack_keys(const float* k, float* packed, std::size_t S, std::size_t E);

// Queries per tile: the unit in which an op should split a head between threads.
std::size_t flash_attention_query_tile();

}  // namespace aw::kernels
