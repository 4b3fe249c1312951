// Fused scaled dot-product attention, one head: xsimd kernel. See flash_attention.hpp.
// The scalar reference is scaled_dot_product_attention_head_reference (kernels/attention.hpp).
#include "kernels/flash_attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <xsimd/xsimd.hpp>

namespace aw {
namespace {

using batch = xsimd::batch<float>;  // default arch: 4 lanes on wasm simd128, 8 on AVX2, 16 on AVX-512
constexpr std::size_t lanes = batch::size;
constexpr float minus_infinity = -std::numeric_limits<float>::infinity();
constexpr float log2_e = 1.4426950408889634f;  // exp(x) = exp2(x * log2_e)

// Tiles: query_tile rows of q meet key_tile rows of k and v at a time. The micro-kernel below
// computes 4 rows x 2 vectors of a product, so key_tile and the padded widths are multiples
// of 2 vectors (8 floats on wasm).
#ifndef AW_FLASH_QUERY_TILE  // overridable at compile time for tuning experiments
#define AW_FLASH_QUERY_TILE 64
#endif
#ifndef AW_FLASH_KEY_TILE
#define AW_FLASH_KEY_TILE 64
#endif
#ifndef AW_FLASH_MICRO_ROWS
#define AW_FLASH_MICRO_ROWS 4
#endif
#ifndef AW_FLASH_MICRO_VECTORS
#define AW_FLASH_MICRO_VECTORS 2
#endif
constexpr std::size_t query_tile = AW_FLASH_QUERY_TILE;
constexpr std::size_t key_tile = AW_FLASH_KEY_TILE;
constexpr std::size_t micro_rows = AW_FLASH_MICRO_ROWS;
constexpr std::size_t micro_vectors = AW_FLASH_MICRO_VECTORS;
constexpr std::size_t micro_width = micro_vectors * lanes;
static_assert(key_tile % micro_width == 0, "key_tile must be a multiple of the micro-kernel width");

constexpr std::size_t round_up(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

// ---------------------------------------------------------------------------------------------
// Micro-kernel: the register-blocked product used for both q k^T and p v.
//
//   c[0:R, 0:V*lanes] = a[0:R, 0:k] b[0:k, 0:V*lanes]                    (Accumulate = false)
//   c[r, :] = c_scale[r] * c[r, :] + a[r, 0:k] b[0:k, :]                 (Accumulate = true)
//
// a: R rows of stride lda, or (APanel) a panel of the R rows interleaved, a[r, p] at
// a[p*R + r]; b: k rows of stride ldb; c: R rows of stride ldc.
// A tile of R x V vectors of c stays in registers while p runs over k: per step V loads of b,
// R broadcasts of a and R*V multiply-adds. 4 x 2 = 8 accumulators: with the loaded vectors and
// the product temporary that fits V8's SIMD registers on x86-64 (kernels/matmul.cpp measured
// 4x2 at 47 GFLOP/s in wasm, 4x3 spills and drops to 26; here 5x2 and 3x3 were slower too, and
// 12-accumulator tiles 6x2 / 3x4 ran at 0.70x / 0.64x of 4x2: 12 accumulators + the loaded b
// vectors + the broadcast + the product temporary exceed the 15 xmm registers V8 allocates, and
// re-loading b per row (to free them) or unrolling p by 2-4 was slower still). In V8's code the
// 4x2 loop has no spills and the two products run at ~50 GFLOP/s each (the rest is softmax).
// Pointers are bumped per step rather than indexed: wasm has no scaled-index addressing, so
// a + r*lda + p costs integer instructions per load (measured ~10% of the whole kernel). A
// panel needs one pointer for all R rows instead of R.
template <std::size_t R, std::size_t V, bool Accumulate, bool APanel>
inline void tile_product(const float* a, std::size_t lda, const float* b, std::size_t ldb,
                         float* c, std::size_t ldc, std::size_t k, const float* c_scale)
{
    batch acc[R][V];
    #pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r) {
        const batch s(Accumulate ? c_scale[r] : 0.0f);
        #pragma GCC unroll 8
        for (std::size_t v = 0; v < V; ++v)
            acc[r][v] = Accumulate ? s * batch::load_unaligned(c + r * ldc + v * lanes) : s;
    }

    // acc += a[:, p] b[p, :], with a[r, p] = a_at(r)
    auto step = [&](auto a_at) {
        batch b_p[V];  // b[p, v*lanes : (v+1)*lanes]
        #pragma GCC unroll 8
        for (std::size_t v = 0; v < V; ++v) b_p[v] = batch::load_unaligned(b + v * lanes);
        #pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r) {
            const batch a_rp(a_at(r));  // a[r, p] in every lane
            #pragma GCC unroll 8
            for (std::size_t v = 0; v < V; ++v) acc[r][v] = xsimd::fma(a_rp, b_p[v], acc[r][v]);
        }
    };
    if constexpr (APanel) {
        for (const float* const a_end = a + k * R; a != a_end; a += R, b += ldb)
            step([&](std::size_t r) { return a[r]; });
    } else if (lda == key_tile) {
        // rows of the score tile (p v): constant offsets from one pointer, which the wasm load's
        // immediate offset absorbs (measured ~1% faster than R pointers bumped)
        for (const float* const a_end = a + k; a != a_end; ++a, b += ldb)
            step([&](std::size_t r) { return a[r * key_tile]; });
    } else {
        const float* a_r[R];  // a[r, p]
        #pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r) a_r[r] = a + r * lda;
        for (const float* const a_end = a + k; a_r[0] != a_end; b += ldb) {
            step([&](std::size_t r) { return *a_r[r]; });
            #pragma GCC unroll 8
            for (std::size_t r = 0; r < R; ++r) ++a_r[r];
        }
    }

    #pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r)
        #pragma GCC unroll 8
        for (std::size_t v = 0; v < V; ++v) acc[r][v].store_unaligned(c + r * ldc + v * lanes);
}

// The micro-kernel over R rows and n columns (n a multiple of micro_width).
template <std::size_t R, bool Accumulate, bool APanel>
void product_rows(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                  std::size_t ldc, std::size_t k, std::size_t n, const float* c_scale)
{
    for (std::size_t j = 0; j < n; j += micro_width)
        tile_product<R, micro_vectors, Accumulate, APanel>(a, lda, b + j, ldb, c + j, ldc, k, c_scale);
}

// The row tail: one micro-kernel of exactly `rows` (< micro_rows) rows, R counting down.
template <std::size_t R, bool Accumulate, bool APanel>
void product_tail(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                  std::size_t ldc, std::size_t rows, std::size_t k, std::size_t n, const float* c_scale)
{
    if constexpr (R > 0) {
        if (rows == R) product_rows<R, Accumulate, APanel>(a, lda, b, ldb, c, ldc, k, n, c_scale);
        else product_tail<R - 1, Accumulate, APanel>(a, lda, b, ldb, c, ldc, rows, k, n, c_scale);
    }
}

// Columns of the score tile that rows [0, row_end) can see under causal: j < row_end + shift,
// where shift = i0 - j0 (row r of the tile is query i0 + r, column j is key j0 + j), at most n.
std::size_t causal_columns(std::size_t row_end, std::ptrdiff_t shift, std::size_t n)
{
    const std::ptrdiff_t c = static_cast<std::ptrdiff_t>(row_end) + shift;
    return c <= 0 ? 0 : std::min(n, static_cast<std::size_t>(c));
}
constexpr std::ptrdiff_t no_causal_limit = std::numeric_limits<std::ptrdiff_t>::max() / 2;

// c (=|+=) a b over `rows` rows and n columns (n a multiple of micro_width): tiles of
// micro_rows rows, then one tile of the last rows % micro_rows.
// Causal limit: a block of rows only computes the score columns it can see (see
// causal_columns; shift = no_causal_limit for none). Those are the columns of c for q k^T
// (Accumulate = false, rounded up to the micro-kernel width) and the inner dimension k for p v
// (Accumulate = true). This halves the diagonal tiles, so that causal costs about half.
// With APanel, a holds the blocks of micro_rows rows one after the other, each a panel (see
// pack_queries), so that block r0 starts at a + r0*lda as in the row-major layout.
template <bool Accumulate, bool APanel>
void product(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
             std::size_t ldc, std::size_t rows, std::size_t k, std::size_t n, const float* c_scale,
             std::ptrdiff_t shift)
{
    auto block_k = [&](std::size_t row_end) { return Accumulate ? causal_columns(row_end, shift, k) : k; };
    auto block_n = [&](std::size_t row_end) {
        return Accumulate ? n : round_up(causal_columns(row_end, shift, n), micro_width);
    };
    std::size_t r = 0;
    for (; r + micro_rows <= rows; r += micro_rows)
        product_rows<micro_rows, Accumulate, APanel>(a + r * lda, lda, b, ldb, c + r * ldc, ldc, block_k(r + micro_rows),
                                             block_n(r + micro_rows), Accumulate ? c_scale + r : nullptr);
    if (r < rows)  // row tail: the last rows % micro_rows
        product_tail<micro_rows - 1, Accumulate, APanel>(a + r * lda, lda, b, ldb, c + r * ldc, ldc, rows - r,
                                                 block_k(rows), block_n(rows),
                                                 Accumulate ? c_scale + r : nullptr);
}

// ---------------------------------------------------------------------------------------------
// Packing (once per query tile x key tile; cost ~1/query_tile of the products).

// qp = scale * q, as panels: block b of micro_rows rows (R = fewer for the last) at qp + b*micro_rows*E,
// q[r0 + r, p] at panel[p*R + r]
// q (rows, E); qp (rows * E).
void pack_queries(const float* q, float* qp, std::size_t rows, std::size_t E, float scale)
{
    for (std::size_t r0 = 0; r0 < rows; r0 += micro_rows) {
        const std::size_t R = std::min(micro_rows, rows - r0);
        float* panel = qp + r0 * E;
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t p = 0; p < E; ++p) panel[p * R + r] = scale * q[(r0 + r) * E + p];
    }
}

// kt[e, j] = k[j, e] for j < keys, 0 for keys <= j < width
// k (keys, E) at stride E; kt (E, key_tile).
// Square blocks of lanes x lanes go through registers (xsimd::transpose); the edges that do not
// fill a block are copied one by one.
void pack_keys_transposed(const float* k, float* kt, std::size_t keys, std::size_t width,
                          std::size_t E)
{
    const std::size_t keys_vec = keys - keys % lanes, E_vec = E - E % lanes;
    for (std::size_t j = 0; j < keys_vec; j += lanes) {
        for (std::size_t e = 0; e < E_vec; e += lanes) {
            batch block[lanes];  // k[j + l, e : e+lanes], then kt[e + l, j : j+lanes]
            for (std::size_t l = 0; l < lanes; ++l) block[l] = batch::load_unaligned(k + (j + l) * E + e);
            xsimd::transpose(block, block + lanes);
            for (std::size_t l = 0; l < lanes; ++l) block[l].store_unaligned(kt + (e + l) * key_tile + j);
        }
        for (std::size_t e = E_vec; e < E; ++e)  // edge: the last E % lanes columns of k
            for (std::size_t l = 0; l < lanes; ++l) kt[e * key_tile + j + l] = k[(j + l) * E + e];
    }
    for (std::size_t e = 0; e < E; ++e) {
        float* row = kt + e * key_tile;
        for (std::size_t j = keys_vec; j < keys; ++j) row[j] = k[j * E + e];  // edge: the last keys % lanes
        std::fill(row + keys, row + width, 0.0f);
    }
}

// vp[j, d] = v[j, d] for d < Ev, 0 for Ev <= d < Ev_padded
// v (keys, Ev); vp (keys, Ev_padded).
void pack_values(const float* v, float* vp, std::size_t keys, std::size_t Ev,
                 std::size_t Ev_padded)
{
    for (std::size_t j = 0; j < keys; ++j) {
        std::copy(v + j * Ev, v + (j + 1) * Ev, vp + j * Ev_padded);
        std::fill(vp + j * Ev_padded + Ev, vp + (j + 1) * Ev_padded, 0.0f);
    }
}

// ---------------------------------------------------------------------------------------------
// 2^(s - M) for s <= M, M an integer with |M| < 2^22 (the running max, rounded up), as the
// online softmax needs it. One vector of s:
//   2^(s - M) = 2^n * 2^f,  n = round(s - M), f = s - (n + M) in [-1/2, 1/2]
//   2^f ~ a degree-5 polynomial, fitted to 2^f on [-1/2, 1/2] (mpmath chebyfit; relative error
//       2.3e-7 evaluated in float32 with separate multiply and add, as wasm does)
//   2^n from the bits: n + 127 is the exponent field; s is clamped to M - 127 first, where the
//       field is 0 and the result exactly 0 (so -inf gives 0, as a masked weight must).
// Rounding uses the float trick t = s + c, c = 2^23 + 127 - M: c is an integer below 2^24, so
// exact, and the one rounding of s + c to an integer-valued float (the spacing at 2^23 is 1)
// puts n + 127 in t's low mantissa bits; t << 23 moves them to the exponent field (the other
// bits shift out). t - c = n + M is exact too, and so is f (its operands are within 1/2 of each
// other). That a rounded-up M makes the subtraction s - M part of the rounding add is why the
// running max is kept as an integer: 3 operations instead of 4 per vector.
// Why not xsimd::exp2: its range checks and special cases made it ~55 instructions per vector in
// V8 (node --print-wasm-code), this is ~17; the online softmax was a quarter of the kernel's time.
// Not for s > M (no overflow handling). NaN stays NaN (see clamp_below).
// s < floor ? floor : s, lane by lane: NaN stays NaN (the comparison is false), on every arch.
// On wasm that is exactly f32x4.pmax(s, floor), one instruction; clang 14 does not turn the
// select into it (lt + bitselect cost the kernel 1-2 %). Elsewhere the select: what xsimd::max
// does with NaN depends on the instruction set.
inline batch clamp_below(batch s, batch floor)
{
#if XSIMD_WITH_WASM
    return wasm_f32x4_pmax(s, floor);
#else
    return xsimd::select(s < floor, floor, s);
#endif
}

struct Exp2Shifted {
    batch c, floor;  // 2^23 + 127 - M, M - 127
    explicit Exp2Shifted(float M) : c(8388608.0f + 127.0f - M), floor(M - 127.0f) {}
    batch operator()(batch s) const
    {
        s = clamp_below(s, floor);
        const batch t = s + c;
        const batch f = s - (t - c);  // in [-1/2, 1/2]
        batch p(1.3390863314270973e-3f);
        p = xsimd::fma(p, f, batch(9.6760317683219910e-3f));
        p = xsimd::fma(p, f, batch(5.5503569543361664e-2f));
        p = xsimd::fma(p, f, batch(2.4022106826305390e-1f));
        p = xsimd::fma(p, f, batch(6.9314718246459961e-1f));
        p = xsimd::fma(p, f, batch(1.0000001192092896f));
        const auto bits = xsimd::bitwise_cast<std::int32_t>(t) << 23;  // 2^n
        return p * xsimd::bitwise_cast<float>(bits);
    }
};
// |M| below this keeps c = 2^23 + 127 - M exact and positive; beyond it (scores of 4 million
// in base 2, which only broken inputs give) a row takes the scalar std::exp2 path.
constexpr float max_shift_magnitude = 4194304.0f;  // 2^22

// 2^d for an integer-valued d <= 0, or -inf, from the bits: the rescale factor of the running
// sum (libm's exp2f was a call of ~50 instructions per row and tile).
inline float exp2_integer(float d)
{
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
inline float mask_base2(float mask)
{
    const float m = log2_e * mask;
    return std::isinf(m) && !std::isinf(mask) ? std::copysign(std::numeric_limits<float>::max(), m) : m;
}
inline batch mask_base2(batch mask)
{
    const batch m = batch(log2_e) * mask, big(std::numeric_limits<float>::max());
    return xsimd::select(xsimd::isinf(m) && !xsimd::isinf(mask), xsimd::copysign(big, m), m);
}

// ---------------------------------------------------------------------------------------------
// Online softmax of one row of a score tile.
//
// Base 2: s[0:visible] are log2(e) * scale * q_i . k_j, and m is in the same units. This adds
// log2(e) * mask, updates the running max m (rounded up to an integer: see Exp2Shifted) and
// sum l, writes p_j = 2^(s_j - m') (= e^(score - max) up to a common factor) into s[0:visible]
// and 0 into s[visible:width], and returns alpha = 2^(m - m'), the factor for the output
// accumulated so far.
// mask_row: mask[i, j0 + j] at mask_row[j * col_stride], or nullptr.
float online_softmax_row(float* s, std::size_t visible, std::size_t width,
                         const float* mask_row, std::ptrdiff_t col_stride, float& m, float& l)
{
    const std::size_t visible_vec = visible - visible % lanes;

    // add the mask (in base 2, see mask_base2): a load when contiguous, a broadcast when the
    // column stride is 0, otherwise element by element
    if (mask_row) {
        if (col_stride == 1) {
            for (std::size_t j = 0; j < visible_vec; j += lanes)
                (batch::load_unaligned(s + j) + mask_base2(batch::load_unaligned(mask_row + j))).store_unaligned(s + j);
            for (std::size_t j = visible_vec; j < visible; ++j) s[j] += mask_base2(mask_row[j]);
        } else if (col_stride == 0) {
            const float m0 = mask_base2(mask_row[0]);
            for (std::size_t j = 0; j < visible; ++j) s[j] += m0;
        } else {
            for (std::size_t j = 0; j < visible; ++j)
                s[j] += mask_base2(mask_row[static_cast<std::ptrdiff_t>(j) * col_stride]);
        }
    }

    // tile max (for numerical stability)
    batch max_v(minus_infinity);
    for (std::size_t j = 0; j < visible_vec; j += lanes)
        max_v = xsimd::max(max_v, batch::load_unaligned(s + j));
    float tile_max = visible_vec ? xsimd::reduce_max(max_v) : minus_infinity;
    for (std::size_t j = visible_vec; j < visible; ++j) tile_max = std::fmax(tile_max, s[j]);

    // running max, an integer: ceil keeps every weight <= 1 and the largest > 1/2
    // (fmax skips NaN: a NaN score reaches the exp below and makes the row NaN, as in torch)
    const float m_new = std::fmax(m, std::ceil(tile_max));
    // while everything so far is -inf, shift by 0 so that 2^(-inf - 0) = 0 rather than
    // 2^(-inf - -inf) = NaN (same rule as kernels/softmax.cpp)
    const float shift = m_new == minus_infinity ? 0.0f : m_new;
    const float alpha = exp2_integer(m - shift);  // 0 while m is -inf

    // exp and sum
    float sum = 0.0f;
    std::size_t j = 0;
    if (std::fabs(shift) < max_shift_magnitude) {
        const Exp2Shifted exp2_shifted(shift);
        batch sum_v(0.0f);
        for (; j < visible_vec; j += lanes) {
            const batch p = exp2_shifted(batch::load_unaligned(s + j));
            p.store_unaligned(s + j);
            sum_v += p;
        }
        sum = visible_vec ? xsimd::reduce_add(sum_v) : 0.0f;
    }
    for (; j < visible; ++j) {  // tail, or every column for huge scores
        s[j] = std::exp2(s[j] - shift);
        sum += s[j];
    }
    // excluded by causal, or padding: weight 0
    std::fill(s + visible, s + width, 0.0f);

    m = m_new;
    l = alpha * l + sum;
    return alpha;
}

// out[0:Ev] = o[0:Ev] / l   (0 when l = 0: the row attends to nothing)
void normalise_row(const float* o, float* out, std::size_t Ev, float l)
{
    const float inv_l = l == 0.0f ? 0.0f : 1.0f / l;
    const std::size_t Ev_vec = Ev - Ev % lanes;
    const batch inv_l_v(inv_l);
    for (std::size_t d = 0; d < Ev_vec; d += lanes)
        (batch::load_unaligned(o + d) * inv_l_v).store_unaligned(out + d);
    for (std::size_t d = Ev_vec; d < Ev; ++d) out[d] = o[d] * inv_l;
}

// Scratch layout (floats), in this order:
struct Scratch {
    float* qp;     // (query_tile, E)            query tile as panels, scaled
    float* kt;     // (E, key_tile)            key tile, transposed and scaled
    float* vp;     // (key_tile, Ev_padded)    value tile with padded rows (when Ev is not a multiple)
    float* s;      // (query_tile, key_tile)   scores, then weights p
    float* o;      // (query_tile, Ev_padded)  unnormalised outputs
    float* m;      // (query_tile)             running max
    float* l;      // (query_tile)             running sum
    float* alpha;  // (query_tile)             rescale factor of the current tile
};

std::size_t padded_value_width(std::size_t Ev) { return round_up(Ev, micro_width); }

Scratch carve(float* scratch, std::size_t E, std::size_t Ev_padded)
{
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

}  // namespace

std::uint64_t flash_attention_scratch_size(std::uint64_t E, std::uint64_t Ev)
{
    const std::uint64_t Ev_padded = (Ev + micro_width - 1) / micro_width * micro_width;  // padded_value_width, in 64 bits
    return query_tile * E + E * key_tile + key_tile * Ev_padded + query_tile * key_tile + query_tile * Ev_padded +
           3 * query_tile;
}

std::size_t flash_attention_query_tile() { return query_tile; }

std::uint64_t flash_attention_packed_keys_size(std::uint64_t S, std::uint64_t E)
{
    return (S + key_tile - 1) / key_tile * E * key_tile;
}

void flash_attention_pack_keys(const float* k, float* packed, std::size_t S, std::size_t E)
{
    for (std::size_t j0 = 0; j0 < S; j0 += key_tile) {
        const std::size_t keys = std::min(key_tile, S - j0);
        pack_keys_transposed(k + j0 * E, packed + j0 * E, keys, round_up(keys, micro_width), E);
    }
}

void flash_attention_head(const float* q, const float* k, const float* v, float* out,
                          float* scratch, std::size_t L, std::size_t S, std::size_t E,
                          std::size_t Ev, float scale, const float* mask,
                          std::ptrdiff_t mask_row_stride, std::ptrdiff_t mask_col_stride,
                          bool causal)
{
    flash_attention_rows(q, k, v, out, scratch, 0, L, S, E, Ev, scale, mask, mask_row_stride,
                         mask_col_stride, causal);
}

void flash_attention_rows(const float* q, const float* k, const float* v, float* out,
                          float* scratch, std::size_t row_begin, std::size_t row_end, std::size_t S,
                          std::size_t E, std::size_t Ev, float scale, const float* mask,
                          std::ptrdiff_t mask_row_stride, std::ptrdiff_t mask_col_stride,
                          bool causal, const float* packed_keys)
{
    const std::size_t Ev_padded = padded_value_width(Ev);
    // v can feed the micro-kernel in place when its rows are a whole number of tiles wide
    const bool pack_v = Ev != Ev_padded;
    const Scratch sc = carve(scratch, E, Ev_padded);

    for (std::size_t i0 = row_begin; i0 < row_end; i0 += query_tile) {
        const std::size_t rows = std::min(query_tile, row_end - i0);  // queries i0 .. i0+rows-1

        // the query tile as panels, scaled by scale * log2(e) (the softmax runs in base 2)
        pack_queries(q + i0 * E, sc.qp, rows, E, scale * log2_e);

        // o = 0, m = -inf, l = 0
        std::fill(sc.o, sc.o + rows * Ev_padded, 0.0f);
        std::fill(sc.m, sc.m + rows, minus_infinity);
        std::fill(sc.l, sc.l + rows, 0.0f);

        // causal: key j is seen by some row of this tile only if j <= i0 + rows - 1, so the
        // key tiles after that are skipped entirely
        const std::size_t key_end = causal ? std::min(S, i0 + rows) : S;
        for (std::size_t j0 = 0; j0 < key_end; j0 += key_tile) {
            const std::size_t keys = std::min(key_tile, S - j0);  // keys j0 .. j0+keys-1
            const std::size_t width = round_up(keys, micro_width);

            // s = (log2(e) scale q) k^T for this tile                  (rows, width)
            // (tile j0 / key_tile of the packed keys starts at j0 * E)
            const float* kt = packed_keys ? packed_keys + j0 * E : sc.kt;
            if (!packed_keys) pack_keys_transposed(k + j0 * E, sc.kt, keys, width, E);
            const std::ptrdiff_t shift = causal ? static_cast<std::ptrdiff_t>(i0) - static_cast<std::ptrdiff_t>(j0)
                                                : no_causal_limit;
            product<false, true>(sc.qp, E, kt, key_tile, sc.s, key_tile, rows, E, width, nullptr, shift);

            // s += log2(e) mask; p = 2^(s - m'); running max and sum; alpha per row
            for (std::size_t r = 0; r < rows; ++r) {
                const std::size_t i = i0 + r;
                // causal keeps j0 + j <= i
                const std::size_t visible = !causal ? keys : i < j0 ? 0 : std::min(keys, i - j0 + 1);
                const float* mask_row =
                    mask ? mask + static_cast<std::ptrdiff_t>(i) * mask_row_stride +
                               static_cast<std::ptrdiff_t>(j0) * mask_col_stride
                         : nullptr;
                sc.alpha[r] = online_softmax_row(sc.s + r * key_tile, visible, width, mask_row,
                                                 mask_col_stride, sc.m[r], sc.l[r]);
            }

            // o = alpha o + p v                                        (rows, Ev_padded)
            const float* v_tile = v + j0 * Ev;
            std::size_t ldv = Ev;
            if (pack_v) {
                pack_values(v_tile, sc.vp, keys, Ev, Ev_padded);
                v_tile = sc.vp;
                ldv = Ev_padded;
            }
            product<true, false>(sc.s, key_tile, v_tile, ldv, sc.o, Ev_padded, rows, keys, Ev_padded, sc.alpha, shift);
        }

        // out = o / l
        for (std::size_t r = 0; r < rows; ++r)
            normalise_row(sc.o + r * Ev_padded, out + (i0 + r) * Ev, Ev, sc.l[r]);
    }
}

}  // namespace aw
