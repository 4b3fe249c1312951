// Matrix products: xsimd kernels and their scalar references. See matmul.hpp.
#include "kernels/matmul.hpp"

#include <algorithm>
#include <type_traits>

#include <xsimd/xsimd.hpp>

namespace aw {
namespace {

using batch = xsimd::batch<float>;  // default arch: 4 lanes on wasm simd128, 8 on AVX2, 16 on AVX-512
constexpr std::size_t lanes = batch::size;

// ---------------------------------------------------------------------------------------------
// C = A B
//
// Register blocking: a tile of 4 rows x 2 vectors of C stays in registers while p runs over k;
// each step loads 2 vectors of row p of b, broadcasts 4 values of column p of a and does 8 FMAs.
// 8 accumulators + 2 loads + 1 broadcast fit the 16 SIMD registers of SSE/AVX2 and of V8's
// wasm code on x86-64 (TOOLCHAIN.md: 14 accumulators already spill in V8). Measured for
// 256x256x256 (GFLOP/s, wasm in Node 20 / native AVX2): 4x2 47/102, 4x3 26/98, 6x2 24/101,
// 3x4 15/56.
//
// `#pragma GCC unroll` (understood by g++ and clang) on the loops over the tile's compile-time
// dimensions: without it g++ -O2 keeps the acc[R][V] array in memory instead of registers
// (measured natively with AVX2: 31 instead of 104 GFLOP/s for 256x256x256).
constexpr std::size_t matmul_tile_rows = 4;
constexpr std::size_t matmul_tile_vectors = 2;
// matmul_packed's block of b: pack_k rows x pack_n columns (256 KiB; pack_n a multiple of the
// tile width on every arch: 2 vectors of 4, 8 or 16 floats)
constexpr std::size_t matmul_pack_k = 256, matmul_pack_n = 256;
static_assert(matmul_pack_n % (matmul_tile_vectors * lanes) == 0, "whole panels per block");

// c[0:R, 0:V*lanes] = a[0:R, 0:k] b[0:k, 0:V*lanes]         (Accumulate = false)
// c[0:R, 0:V*lanes] += a[0:R, 0:k] b[0:k, 0:V*lanes]        (Accumulate = true)
// a: R rows of stride lda; b: k rows of stride ldb; c: R rows of stride ldc (pointers at the tile).
// Accumulating continues each element's sum where an earlier call over the previous rows of b
// stopped, in the same order, so a product split along k is byte-identical to one call.
template <std::size_t R, std::size_t V, bool Accumulate = false>
inline void matmul_tile(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                        std::size_t ldc, std::size_t k)
{
    batch acc[R][V];
    #pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r)
        #pragma GCC unroll 8
        for (std::size_t v = 0; v < V; ++v)
            acc[r][v] = Accumulate ? batch::load_unaligned(c + r * ldc + v * lanes) : batch(0.0f);

    // Pointers bumped per step rather than indexed: wasm has no scaled-index addressing, so
    // a[r*k + p] costs integer instructions per load. Measured in wasm (GFLOP/s, median of
    // alternating calls on a busy 2-core machine): 256^3 25 -> 30, 512^3 22 -> 26.
    const float* a_r[R];  // a[r, p]
    #pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r) a_r[r] = a + r * lda;
    for (std::size_t p = 0; p < k; ++p, b += ldb) {
        batch b_p[V];  // b[p, v*lanes : (v+1)*lanes]
        #pragma GCC unroll 8
        for (std::size_t v = 0; v < V; ++v) b_p[v] = batch::load_unaligned(b + v * lanes);
        #pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r) {
            const batch a_rp(*a_r[r]++);  // a[r, p] in every lane
            #pragma GCC unroll 8
            for (std::size_t v = 0; v < V; ++v) acc[r][v] = xsimd::fma(a_rp, b_p[v], acc[r][v]);
        }
    }

    #pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r)
        #pragma GCC unroll 8
        for (std::size_t v = 0; v < V; ++v) acc[r][v].store_unaligned(c + r * ldc + v * lanes);
}

// c[0:R, 0:cols] = a[0:R, 0:k] b[0:k, 0:cols]   (a of row stride k; b and c of row stride n)
// Full tiles of 2 vectors, then one vector, then a scalar tail of the last cols % lanes columns.
template <std::size_t R>
void matmul_rows(const float* a, const float* b, float* c, std::size_t k, std::size_t n, std::size_t cols)
{
    std::size_t j = 0;
    for (; j + matmul_tile_vectors * lanes <= cols; j += matmul_tile_vectors * lanes)
        matmul_tile<R, matmul_tile_vectors>(a, k, b + j, n, c + j, n, k);
    for (; j + lanes <= cols; j += lanes) matmul_tile<R, 1>(a, k, b + j, n, c + j, n, k);

    // scalar tail: columns that do not fill a vector
    for (; j < cols; ++j) {
        for (std::size_t r = 0; r < R; ++r) {
            float sum = 0.0f;
            for (std::size_t p = 0; p < k; ++p) sum += a[r * k + p] * b[p * n + j];
            c[r * n + j] = sum;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// C = A B^T (+ bias)
//
// Every element is a dot product of two contiguous rows, vectorised over p. A tile computes
// 4 rows of a against 2 rows of b: per step it loads 2 vectors of b and 4 of a for 8 FMAs into
// 8 accumulators, which are summed across lanes (reduce_add) once at the end.
constexpr std::size_t dot_tile_rows_a = 4;
constexpr std::size_t dot_tile_rows_b = 2;

// c[r, j] = sum_p a[r, p] * b[j, p] + bias[j]   for r < R, j < C
// a: R rows of stride k; b: C rows of stride k; bias: C values or nullptr; c: R rows of stride n.
template <std::size_t R, std::size_t C>
inline void matmul_transposed_b_tile(const float* a, const float* b, const float* bias, float* c,
                                     std::size_t k, std::size_t n)
{
    batch acc[R][C];
    #pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r)
        #pragma GCC unroll 8
        for (std::size_t j = 0; j < C; ++j) acc[r][j] = batch(0.0f);

    std::size_t p = 0;
    for (; p + lanes <= k; p += lanes) {
        batch b_p[C];  // b[j, p : p+lanes]
        #pragma GCC unroll 8
        for (std::size_t j = 0; j < C; ++j) b_p[j] = batch::load_unaligned(b + j * k + p);
        #pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r) {
            const batch a_rp = batch::load_unaligned(a + r * k + p);  // a[r, p : p+lanes]
            #pragma GCC unroll 8
            for (std::size_t j = 0; j < C; ++j) acc[r][j] = xsimd::fma(a_rp, b_p[j], acc[r][j]);
        }
    }

    #pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r) {
        #pragma GCC unroll 8
        for (std::size_t j = 0; j < C; ++j) {
            float sum = xsimd::reduce_add(acc[r][j]);
            // scalar tail: the last k % lanes products
            for (std::size_t q = p; q < k; ++q) sum += a[r * k + q] * b[j * k + q];
            c[r * n + j] = bias ? sum + bias[j] : sum;
        }
    }
}

// c[0:R, 0:n] = a[0:R, 0:k] b^T + bias: tiles of 2 rows of b, then one row of b at a time.
template <std::size_t R>
void matmul_transposed_b_rows(const float* a, const float* b, const float* bias, float* c,
                              std::size_t k, std::size_t n)
{
    std::size_t j = 0;
    for (; j + dot_tile_rows_b <= n; j += dot_tile_rows_b)
        matmul_transposed_b_tile<R, dot_tile_rows_b>(a, b + j * k, bias ? bias + j : nullptr,
                                                     c + j, k, n);
    for (; j < n; ++j)
        matmul_transposed_b_tile<R, 1>(a, b + j * k, bias ? bias + j : nullptr, c + j, k, n);
}

// c = a b^T + bias; a (m, k), b (n, k), bias (n) or nullptr, c (m, n).
// Shared by matmul_transposed_b (no bias) and linear.
void matmul_transposed_b_plus_bias(const float* a, const float* b, const float* bias, float* c,
                                   std::size_t m, std::size_t k, std::size_t n)
{
    std::size_t i = 0;
    for (; i + dot_tile_rows_a <= m; i += dot_tile_rows_a)
        matmul_transposed_b_rows<dot_tile_rows_a>(a + i * k, b, bias, c + i * n, k, n);
    for (; i < m; ++i) matmul_transposed_b_rows<1>(a + i * k, b, bias, c + i * n, k, n);
}

// Scalar twin of matmul_transposed_b_plus_bias.
void matmul_transposed_b_plus_bias_reference(const float* a, const float* b, const float* bias,
                                             float* c, std::size_t m, std::size_t k,
                                             std::size_t n)
{
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (std::size_t p = 0; p < k; ++p) sum += a[i * k + p] * b[j * k + p];
            c[i * n + j] = bias ? sum + bias[j] : sum;
        }
    }
}

// c[0:m, 0:cols] = a b[0:k, 0:cols]   (b and c of row stride n): tiles of 4 rows, then the row tail.
void matmul_columns(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n,
                    std::size_t cols)
{
    std::size_t i = 0;
    for (; i + matmul_tile_rows <= m; i += matmul_tile_rows)
        matmul_rows<matmul_tile_rows>(a + i * k, b, c + i * n, k, n, cols);
    // row tail: the last m % 4 rows one at a time
    for (; i < m; ++i) matmul_rows<1>(a + i * k, b, c + i * n, k, n, cols);
}

}  // namespace

std::size_t matmul_packed_scratch_size() { return matmul_pack_k * matmul_pack_n; }

// C = A B
void matmul(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n)
{
    matmul_columns(a, b, c, m, k, n, n);
}

// C = A B, b packed block by block
//
// Goto's blocking: a (pack_k, pack_n) block of b is copied into scratch as panels of one tile's
// width (panel t: rows p of 2 vectors, contiguous), and every 4-row tile of a then meets the
// block's panels. The block (256 KiB) stays in the L2 cache and each panel is read
// sequentially; in matmul, b is read a tile-wide strip at a time down its rows (a stride of n
// floats), and a b larger than the cache is fetched again for every 4 rows of a.
// Over the k blocks each element's sum continues in order (matmul_tile<..., true>), and the
// columns after the last full panel go through matmul's own tiles: byte-identical to matmul.
void matmul_packed(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n,
                   float* scratch)
{
    constexpr std::size_t panel = matmul_tile_vectors * lanes;
    const std::size_t n_panels = n - n % panel;  // columns in whole panels
    if (k == 0 || n_panels == 0) return matmul(a, b, c, m, k, n);
    for (std::size_t j0 = 0; j0 < n_panels; j0 += matmul_pack_n) {
        const std::size_t nb = std::min(matmul_pack_n, n_panels - j0);  // a multiple of panel
        for (std::size_t p0 = 0; p0 < k; p0 += matmul_pack_k) {
            const std::size_t kb = std::min(matmul_pack_k, k - p0);
            // scratch[t*kb*panel + p*panel + x] = b[p0 + p, j0 + t*panel + x]
            for (std::size_t t = 0; t * panel < nb; ++t)
                for (std::size_t p = 0; p < kb; ++p)
                    std::copy(b + (p0 + p) * n + j0 + t * panel, b + (p0 + p) * n + j0 + (t + 1) * panel,
                              scratch + (t * kb + p) * panel);
            auto rows = [&](auto tile_rows, std::size_t i) {
                constexpr std::size_t R = decltype(tile_rows)::value;
                for (std::size_t t = 0; t * panel < nb; ++t) {
                    const float* packed = scratch + t * kb * panel;
                    float* c_tile = c + i * n + j0 + t * panel;
                    if (p0 == 0) matmul_tile<R, matmul_tile_vectors, false>(a + i * k + p0, k, packed, panel, c_tile, n, kb);
                    else matmul_tile<R, matmul_tile_vectors, true>(a + i * k + p0, k, packed, panel, c_tile, n, kb);
                }
            };
            std::size_t i = 0;
            for (; i + matmul_tile_rows <= m; i += matmul_tile_rows)
                rows(std::integral_constant<std::size_t, matmul_tile_rows>{}, i);
            for (; i < m; ++i) rows(std::integral_constant<std::size_t, 1>{}, i);  // row tail
        }
    }
    // the last n % panel columns, unpacked
    matmul_columns(a, b + n_panels, c + n_panels, m, k, n, n - n_panels);
}

void matmul_reference(const float* a, const float* b, float* c, std::size_t m, std::size_t k,
                      std::size_t n)
{
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (std::size_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
            c[i * n + j] = sum;
        }
    }
}

// C = A B^T
void matmul_transposed_b(const float* a, const float* b, float* c, std::size_t m, std::size_t k,
                         std::size_t n)
{
    matmul_transposed_b_plus_bias(a, b, nullptr, c, m, k, n);
}

void matmul_transposed_b_reference(const float* a, const float* b, float* c, std::size_t m,
                                   std::size_t k, std::size_t n)
{
    matmul_transposed_b_plus_bias_reference(a, b, nullptr, c, m, k, n);
}

// y = x W^T + bias
void linear(const float* x, const float* w, const float* bias, float* y, std::size_t m,
            std::size_t k, std::size_t n)
{
    matmul_transposed_b_plus_bias(x, w, bias, y, m, k, n);
}

void linear_reference(const float* x, const float* w, const float* bias, float* y, std::size_t m,
                      std::size_t k, std::size_t n)
{
    matmul_transposed_b_plus_bias_reference(x, w, bias, y, m, k, n);
}

}  // namespace aw
