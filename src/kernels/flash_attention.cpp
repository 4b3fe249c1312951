// Fused scaled dot-product attention, one head: xsimd kernel. See flash_attention.hpp.
// The scalar reference is scaled_dot_product_attention_head_reference (kernels/attention.hpp).
//
// Per query tile (query_tile rows of q):
//   pack the queries as panels, scaled by log2(e) * scale (the softmax runs in base 2);
//   per key tile (key_tile rows of k and v):
//     s = q k^T over the tile's keys                     (register_tile, the keys transposed)
//     online softmax of each row of s: add the mask, update the running max and sum, p = 2^(s - m)
//     o = alpha o + p v                                  (register_tile, alpha per row)
//   out = o / l.
// The keys are packed (transposed into tiles) once per call by the op, or per query tile here.
#include "kernels/flash_attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/register_tile.hpp"
#include "kernels/simd.hpp"

namespace aw::kernels {
namespace {

using register_tile::Init;
using register_tile::Layout;
using simd::batch;
using simd::lanes;

constexpr float minus_infinity = -std::numeric_limits<float>::infinity();
constexpr float log2_e = 1.4426950408889634f;  // exp(x) = exp2(x * log2_e)

// Tiles: query_tile rows of q meet key_tile rows of k and v at a time (overridable at compile
// time for tuning). The register tile (register_tile::tile_rows x 2 vectors: 4 x 2) sets the
// rest: key_tile and the padded widths are multiples of 2 vectors (8 floats on wasm), query_tile
// a multiple of 4 rows.
#ifndef AW_FLASH_QUERY_TILE
#define AW_FLASH_QUERY_TILE 64
#endif
#ifndef AW_FLASH_KEY_TILE
#define AW_FLASH_KEY_TILE 64
#endif
constexpr std::size_t query_tile = AW_FLASH_QUERY_TILE;
constexpr std::size_t key_tile = AW_FLASH_KEY_TILE;
constexpr std::size_t micro_rows = register_tile::tile_rows;
constexpr std::size_t micro_vectors = register_tile::tile_vectors;
constexpr std::size_t micro_width = micro_vectors * lanes;
static_assert(key_tile % micro_width == 0, "key_tile must be a multiple of the micro-kernel width");

constexpr std::size_t round_up(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

// ---------------------------------------------------------------------------------------------
// The two products over a tile, with causal limits.

// Columns of the score tile that rows [0, row_end) can see under causal: j < row_end + shift,
// where shift = i0 + causal_offset - j0 (row r of the tile is query i0 + r, column j is key
// j0 + j), at most n.
std::size_t causal_columns(std::size_t row_end, std::ptrdiff_t shift, std::size_t n) {
  const std::ptrdiff_t c = static_cast<std::ptrdiff_t>(row_end) + shift;
  return c <= 0 ? 0 : std::min(n, static_cast<std::size_t>(c));
}
constexpr std::ptrdiff_t no_causal_limit = std::numeric_limits<std::ptrdiff_t>::max() / 2;

// Runs tile(R, r0, row_end) over `rows` rows: tiles of micro_rows rows, then one tile of exactly
// the last rows % micro_rows.
template <class Tile>
void over_row_tiles(std::size_t rows, Tile&& tile) {
  std::size_t r = 0;
  for (; r + micro_rows <= rows; r += micro_rows)
    tile(std::integral_constant<std::size_t, micro_rows>{}, r, r + micro_rows);
  register_tile::with_rows<micro_rows - 1>(rows - r, [&](auto R) { tile(R, r, rows); });
}

// s = qp kt: qp (rows, E) as panels (pack_queries), kt (E, key_tile), s (rows, key_tile).
// Under causal a block of rows computes only the columns it can see (causal_columns, rounded up
// to the micro-kernel width): this halves the diagonal tiles, so that causal costs about half.
void scores_tile(const float* qp, const float* kt, float* s, std::size_t rows, std::size_t E, std::size_t width,
                 std::ptrdiff_t shift) {
  over_row_tiles(rows, [&](auto R, std::size_t r0, std::size_t row_end) {
    const std::size_t n = round_up(causal_columns(row_end, shift, width), micro_width);
    for (std::size_t j = 0; j < n; j += micro_width)
      register_tile::tile_product<R, micro_vectors, Init::Zero, Layout::Panel>(qp + r0 * E, E, kt + j, key_tile,
                                                                               s + r0 * key_tile + j, key_tile, E);
  });
}

// o = alpha o + p v: p (rows, key_tile) (its first `keys` columns), v (keys, Ev_padded) of row
// stride ldv, o (rows, Ev_padded), alpha (rows). Under causal the inner dimension stops at the
// keys a block of rows can see (the rest of p is 0).
void weighted_values_tile(const float* p, const float* v, std::size_t ldv, float* o, const float* alpha,
                          std::size_t rows, std::size_t keys, std::size_t Ev_padded, std::ptrdiff_t shift) {
  over_row_tiles(rows, [&](auto R, std::size_t r0, std::size_t row_end) {
    const std::size_t k = causal_columns(row_end, shift, keys);
    for (std::size_t j = 0; j < Ev_padded; j += micro_width)
      register_tile::tile_product<R, micro_vectors, Init::Rescale, Layout::Rows, key_tile>(
          p + r0 * key_tile, key_tile, v + j, ldv, o + r0 * Ev_padded + j, Ev_padded, k, alpha + r0);
  });
}

// ---------------------------------------------------------------------------------------------
// Packing.

// qp = scale * q as panels: the block of micro_rows rows starting at row r0 (fewer, R, for the
// last) at qp + r0 * E, q[r0 + r, p] at panel[p * R + r].   q (rows, E); qp (rows * E).
void pack_queries(const float* q, float* qp, std::size_t rows, std::size_t E, float scale) {
  for (std::size_t r0 = 0; r0 < rows; r0 += micro_rows) {
    const std::size_t R = std::min(micro_rows, rows - r0);
    float* panel = qp + r0 * E;
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t p = 0; p < E; ++p) panel[p * R + r] = scale * q[(r0 + r) * E + p];
  }
}

// kt[e, j] = k[j, e] for j < keys, 0 for keys <= j < width.   k (keys, E); kt (E, key_tile).
// Square blocks of lanes x lanes go through registers (xsimd::transpose); the edges that do not
// fill a block are copied one by one.
void pack_keys_transposed(const float* k, float* kt, std::size_t keys, std::size_t width, std::size_t E) {
  const std::size_t keys_vec = keys - keys % lanes;
  for (std::size_t j = 0; j < keys_vec; j += lanes)
    simd::vector_then_scalar(
        E,
        [&](std::size_t e) {
          batch block[lanes];  // k[j + l, e : e+lanes], then kt[e + l, j : j+lanes]
          for (std::size_t l = 0; l < lanes; ++l) block[l] = batch::load_unaligned(k + (j + l) * E + e);
          xsimd::transpose(block, block + lanes);
          for (std::size_t l = 0; l < lanes; ++l) block[l].store_unaligned(kt + (e + l) * key_tile + j);
        },
        [&](std::size_t e) {  // the last E % lanes columns of k
          for (std::size_t l = 0; l < lanes; ++l) kt[e * key_tile + j + l] = k[(j + l) * E + e];
        });
  for (std::size_t e = 0; e < E; ++e) {
    float* row = kt + e * key_tile;
    for (std::size_t j = keys_vec; j < keys; ++j) row[j] = k[j * E + e];  // the last keys % lanes keys
    std::fill(row + keys, row + width, 0.0f);
  }
}

// vp[j, d] = v[j, d] for d < Ev, 0 for Ev <= d < Ev_padded.   v (keys, Ev); vp (keys, Ev_padded).
void pack_values(const float* v, float* vp, std::size_t keys, std::size_t Ev, std::size_t Ev_padded) {
  for (std::size_t j = 0; j < keys; ++j) {
    std::copy(v + j * Ev, v + (j + 1) * Ev, vp + j * Ev_padded);
    std::fill(vp + j * Ev_padded + Ev, vp + (j + 1) * Ev_padded, 0.0f);
  }
}

// ---------------------------------------------------------------------------------------------
// Exponentials in base 2.

// s < floor ? floor : s, lane by lane, with NaN kept (the comparison is false for NaN) on every
// arch. On wasm that is f32x4.pmax(s, floor), one instruction that clang 14 does not make of the
// select; elsewhere the select (what xsimd::max does with NaN depends on the instruction set).
inline batch clamp_below(batch s, batch floor) {
#if XSIMD_WITH_WASM
  return wasm_f32x4_pmax(s, floor);
#else
  return xsimd::select(s < floor, floor, s);
#endif
}

// 2^(s - M) for s <= M, M an integer with |M| < 2^22 (the running max, rounded up). NaN stays
// NaN. (Why not xsimd::exp2, and the derivation: docs/performance.md, Kernel details.)
//   2^(s - M) = 2^n * 2^f,  n = round(s - M), f = s - (n + M) in [-1/2, 1/2]
//   t = s + c with c = 2^23 + 127 - M (exact): its rounding to an integer puts n + 127 in t's
//     low mantissa bits; t << 23 moves them to the exponent field: 2^n. t - c = n + M exactly.
//   2^f: a degree-5 polynomial fitted on [-1/2, 1/2] (relative error 2.3e-7 in float32).
//   s is first clamped to M - 127, where 2^n is exactly 0 (so -inf gives 0).
struct Exp2Shifted {
  batch c, floor;  // 2^23 + 127 - M, M - 127
  explicit Exp2Shifted(float M) : c(8388608.0f + 127.0f - M), floor(M - 127.0f) {}
  batch operator()(batch s) const {
    s = clamp_below(s, floor);
    const batch t = s + c;
    const batch f = s - (t - c);  // in [-1/2, 1/2]
    batch p(1.3390863314270973e-3f);
    p = simd::fma(p, f, batch(9.6760317683219910e-3f));
    p = simd::fma(p, f, batch(5.5503569543361664e-2f));
    p = simd::fma(p, f, batch(2.4022106826305390e-1f));
    p = simd::fma(p, f, batch(6.9314718246459961e-1f));
    p = simd::fma(p, f, batch(1.0000001192092896f));
    const auto bits = xsimd::bitwise_cast<std::int32_t>(t) << 23;  // 2^n
    return p * xsimd::bitwise_cast<float>(bits);
  }
};
// |M| below this keeps c = 2^23 + 127 - M exact and positive; beyond it (scores of 4 million
// in base 2, which only broken inputs give) a row takes the scalar std::exp2 path.
constexpr float max_shift_magnitude = 4194304.0f;  // 2^22

// 2^d for an integer-valued d <= 0, or -inf, from the bits: the rescale factor of the running
// sum (libm's exp2f is a call of ~50 instructions per row and tile).
inline float exp2_integer(float d) {
  if (!(d >= -126.0f)) return 0.0f;  // below the normal floats (or -inf): the old sum is negligible
  const std::int32_t bits = (static_cast<std::int32_t>(d) + 127) << 23;
  float r;
  std::memcpy(&r, &bits, sizeof r);
  return r;
}

// log2(e) * mask, with finite masks kept finite: a mask of -FLT_MAX (torch.finfo(float32).min,
// the padding masks of many models) times log2(e) would overflow to -inf, and a row masked
// entirely with it would give 0 where torch, adding -FLT_MAX in natural units, gives equal
// weights (all its scores round to -FLT_MAX). +-inf and NaN stay what they are.
inline float mask_base2(float mask) {
  const float m = log2_e * mask;
  return std::isinf(m) && !std::isinf(mask) ? std::copysign(std::numeric_limits<float>::max(), m) : m;
}
inline batch mask_base2(batch mask) {
  const batch m = batch(log2_e) * mask, big(std::numeric_limits<float>::max());
  return xsimd::select(xsimd::isinf(m) && !xsimd::isinf(mask), xsimd::copysign(big, m), m);
}

// ---------------------------------------------------------------------------------------------
// Online softmax of one row of a score tile.

// s[0:visible] += log2(e) * mask[i, j0 + j]: a load when the mask's columns are contiguous, one
// value when its column stride is 0, element by element otherwise.  mask_row: mask[i, j0].
void add_mask_base2(float* s, std::size_t visible, const float* mask_row, std::ptrdiff_t col_stride) {
  if (col_stride == 1) {
    simd::vector_then_scalar(
        visible,
        [&](std::size_t j) {
          (batch::load_unaligned(s + j) + mask_base2(batch::load_unaligned(mask_row + j))).store_unaligned(s + j);
        },
        [&](std::size_t j) { s[j] += mask_base2(mask_row[j]); });
  } else if (col_stride == 0) {
    const float m0 = mask_base2(mask_row[0]);
    for (std::size_t j = 0; j < visible; ++j) s[j] += m0;
  } else {
    for (std::size_t j = 0; j < visible; ++j) s[j] += mask_base2(mask_row[static_cast<std::ptrdiff_t>(j) * col_stride]);
  }
}

// max_j s[j] over s[0:n] (-inf for n = 0; fmax skips NaN, which the exp then spreads)
float row_max(const float* s, std::size_t n) {
  batch max_v(minus_infinity);
  float max = minus_infinity;
  simd::vector_then_scalar(
      n, [&](std::size_t j) { max_v = xsimd::max(max_v, batch::load_unaligned(s + j)); },
      [&] { max = n >= lanes ? xsimd::reduce_max(max_v) : minus_infinity; },
      [&](std::size_t j) { max = std::fmax(max, s[j]); });
  return max;
}

// s[j] = 2^(s[j] - shift) over s[0:n]; returns their sum. The vector exp for |shift| < 2^22,
// std::exp2 otherwise.
float exp2_shifted_row(float* s, std::size_t n, float shift) {
  float sum = 0.0f;
  auto scalar = [&](std::size_t j) {
    s[j] = std::exp2(s[j] - shift);
    sum += s[j];
  };
  if (!(std::fabs(shift) < max_shift_magnitude)) {
    for (std::size_t j = 0; j < n; ++j) scalar(j);
    return sum;
  }
  const Exp2Shifted exp2_shifted(shift);
  batch sum_v(0.0f);
  simd::vector_then_scalar(
      n,
      [&](std::size_t j) {
        const batch p = exp2_shifted(batch::load_unaligned(s + j));
        p.store_unaligned(s + j);
        sum_v += p;
      },
      [&] { sum = n >= lanes ? xsimd::reduce_add(sum_v) : 0.0f; }, scalar);
  return sum;
}

// Base 2: s[0:visible] are log2(e) * scale * q_i . k_j, and m is in the same units. Adds
// log2(e) * mask, updates the running max m (rounded up to an integer: see Exp2Shifted) and sum
// l, writes p_j = 2^(s_j - m') (= e^(score - max) up to a common factor) into s[0:visible] and 0
// into s[visible:width], and returns alpha = 2^(m - m'), the factor for the output so far.
// mask_row: mask[i, j0 + j] at mask_row[j * col_stride], or nullptr.
float online_softmax_row(float* s, std::size_t visible, std::size_t width, const float* mask_row,
                         std::ptrdiff_t col_stride, float& m, float& l) {
  if (mask_row) add_mask_base2(s, visible, mask_row, col_stride);
  // running max, an integer: ceil keeps every weight <= 1 and the largest > 1/2
  const float m_new = std::fmax(m, std::ceil(row_max(s, visible)));
  // while everything so far is -inf, shift by 0 so that 2^(-inf - 0) = 0 rather than
  // 2^(-inf - -inf) = NaN (same rule as kernels/softmax.cpp)
  const float shift = m_new == minus_infinity ? 0.0f : m_new;
  const float alpha = exp2_integer(m - shift);  // 0 while m is -inf
  const float sum = exp2_shifted_row(s, visible, shift);
  std::fill(s + visible, s + width, 0.0f);  // excluded by causal, or padding: weight 0
  m = m_new;
  l = alpha * l + sum;
  return alpha;
}

// out[0:Ev] = o[0:Ev] / l   (0 when l = 0: the row attends to nothing)
void normalise_row(const float* o, float* out, std::size_t Ev, float l) {
  const float inv_l = l == 0.0f ? 0.0f : 1.0f / l;
  const batch inv_l_v(inv_l);
  simd::vector_then_scalar(
      Ev, [&](std::size_t d) { (batch::load_unaligned(o + d) * inv_l_v).store_unaligned(out + d); },
      [&](std::size_t d) { out[d] = o[d] * inv_l; });
}

// ---------------------------------------------------------------------------------------------
// The scratch, carved in this order (floats):
struct Scratch {
  float* qp;     // (query_tile, E)            the query tile as panels, scaled
  float* kt;     // (E, key_tile)              the key tile, transposed (when not packed by the op)
  float* vp;     // (key_tile, Ev_padded)      the value tile with padded rows (when Ev is not a multiple)
  float* s;      // (query_tile, key_tile)     scores, then weights p
  float* o;      // (query_tile, Ev_padded)    unnormalised outputs
  float* m;      // (query_tile)               running max
  float* l;      // (query_tile)               running sum
  float* alpha;  // (query_tile)               rescale factor of the current key tile
};

std::size_t padded_value_width(std::size_t Ev) { return round_up(Ev, micro_width); }

Scratch carve(float* scratch, std::size_t E, std::size_t Ev_padded) {
  Scratch sc;
  sc.qp = scratch;
  sc.kt = sc.qp + query_tile * E;
  sc.vp = sc.kt + E * key_tile;
  sc.s = sc.vp + key_tile * Ev_padded;
  sc.o = sc.s + query_tile * key_tile;
  sc.m = sc.o + query_tile * Ev_padded;
  sc.l = sc.m + query_tile;
  sc.alpha = sc.l + query_tile;
  return sc;
}

// One key tile (keys j0 .. j0 + keys - 1) for the query tile at i0 of `rows` rows: scores,
// online softmax, o = alpha o + p v.
void attend_key_tile(const HeadView& head, const MaskView& mask, const Scratch& sc, std::size_t i0, std::size_t rows,
                     std::size_t j0, const float* packed_keys) {
  const std::size_t keys = std::min(key_tile, head.S - j0);
  const std::size_t width = round_up(keys, micro_width);
  const std::size_t Ev_padded = padded_value_width(head.Ev);
  const std::ptrdiff_t shift =
      mask.causal ? static_cast<std::ptrdiff_t>(i0 + mask.causal_offset) - static_cast<std::ptrdiff_t>(j0)
                  : no_causal_limit;

  // s = (log2(e) scale q) k^T                                     (rows, width)
  // (tile j0 / key_tile of the packed keys starts at j0 * E)
  const float* kt = packed_keys ? packed_keys + j0 * head.E : sc.kt;
  if (!packed_keys) pack_keys_transposed(head.k + j0 * head.E, sc.kt, keys, width, head.E);
  scores_tile(sc.qp, kt, sc.s, rows, head.E, width, shift);

  // s += log2(e) mask; p = 2^(s - m'); running max and sum; alpha per row
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t i = i0 + r, last = i + mask.causal_offset;  // causal: the last key row i sees
    const std::size_t visible = !mask.causal ? keys : last < j0 ? 0 : std::min(keys, last - j0 + 1);  // j0 + j <= last
    const float* mask_row = mask.data ? mask.row(i) + static_cast<std::ptrdiff_t>(j0) * mask.col_stride : nullptr;
    sc.alpha[r] = online_softmax_row(sc.s + r * key_tile, visible, width, mask_row, mask.col_stride, sc.m[r], sc.l[r]);
  }

  // o = alpha o + p v                                             (rows, Ev_padded)
  // (v feeds the micro-kernel in place when its rows are a whole number of tiles wide)
  const float* v_tile = head.v + j0 * head.Ev;
  std::size_t ldv = head.Ev;
  if (head.Ev != Ev_padded) {
    pack_values(v_tile, sc.vp, keys, head.Ev, Ev_padded);
    v_tile = sc.vp;
    ldv = Ev_padded;
  }
  weighted_values_tile(sc.s, v_tile, ldv, sc.o, sc.alpha, rows, keys, Ev_padded, shift);
}

// Queries i0 .. i0 + rows - 1 against every key tile they can see.
void attend_query_tile(const HeadView& head, const MaskView& mask, float scale, const Scratch& sc, std::size_t i0,
                       std::size_t rows, const float* packed_keys) {
  const std::size_t Ev_padded = padded_value_width(head.Ev);
  // the query tile as panels, scaled by scale * log2(e) (the softmax runs in base 2)
  pack_queries(head.q + i0 * head.E, sc.qp, rows, head.E, scale * log2_e);
  // o = 0, m = -inf, l = 0
  std::fill(sc.o, sc.o + rows * Ev_padded, 0.0f);
  std::fill(sc.m, sc.m + rows, minus_infinity);
  std::fill(sc.l, sc.l + rows, 0.0f);
  // causal: key j is seen by some row of this tile only if j <= i0 + rows - 1 + causal_offset,
  // so the key tiles after that are skipped entirely
  const std::size_t key_end = mask.causal ? std::min(head.S, i0 + rows + mask.causal_offset) : head.S;
  for (std::size_t j0 = 0; j0 < key_end; j0 += key_tile) attend_key_tile(head, mask, sc, i0, rows, j0, packed_keys);
  // out = o / l
  for (std::size_t r = 0; r < rows; ++r)
    normalise_row(sc.o + r * Ev_padded, head.out + (i0 + r) * head.Ev, head.Ev, sc.l[r]);
}

}  // namespace

std::uint64_t flash_attention_scratch_size(std::uint64_t E, std::uint64_t Ev) {
  const std::uint64_t Ev_padded = (Ev + micro_width - 1) / micro_width * micro_width;  // padded_value_width, in 64 bits
  return query_tile * E + E * key_tile + key_tile * Ev_padded + query_tile * key_tile + query_tile * Ev_padded +
         3 * query_tile;
}

std::size_t flash_attention_query_tile() { return query_tile; }

std::uint64_t flash_attention_packed_keys_size(std::uint64_t S, std::uint64_t E) {
  return (S + key_tile - 1) / key_tile * E * key_tile;
}

void flash_attention_pack_keys(const float* k, float* packed, std::size_t S, std::size_t E) {
  for (std::size_t j0 = 0; j0 < S; j0 += key_tile) {
    const std::size_t keys = std::min(key_tile, S - j0);
    pack_keys_transposed(k + j0 * E, packed + j0 * E, keys, round_up(keys, micro_width), E);
  }
}

void flash_attention_head(const HeadView& head, const MaskView& mask, float scale, float* scratch) {
  flash_attention_rows(head, mask, scale, 0, head.L, scratch);
}

void flash_attention_rows(const HeadView& head, const MaskView& mask, float scale, std::size_t row_begin,
                          std::size_t row_end, float* scratch, const float* packed_keys) {
  const Scratch sc = carve(scratch, head.E, padded_value_width(head.Ev));
  for (std::size_t i0 = row_begin; i0 < row_end; i0 += query_tile)
    attend_query_tile(head, mask, scale, sc, i0, std::min(query_tile, row_end - i0), packed_keys);
}

}  // namespace aw::kernels
