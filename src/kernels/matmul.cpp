// Matrix products: xsimd kernels and their scalar references. See matmul.hpp.
#include "kernels/matmul.hpp"

#include <algorithm>

#include "kernels/register_tile.hpp"
#include "kernels/simd.hpp"

namespace aw::kernels {
namespace {

using register_tile::Init;
using register_tile::Layout;
using simd::batch;
using simd::lanes;

// ---------------------------------------------------------------------------------------------
// C = A B
//
// Tiles of R rows x 2 vectors of C (register_tile.hpp): in matmul_packed R = register_tile's
// tile_rows (4 in SIMD128, 6 in relaxed SIMD, which reads a from a copy as one panel: R row
// pointers are R more registers, and 6 spill), in matmul 4 (a read in place).
constexpr std::size_t tile_rows = 4;                           // matmul (a in place)
constexpr std::size_t packed_rows = register_tile::tile_rows;  // matmul_packed
// matmul_packed copies a tile's rows of a as a panel only when its tile is taller than 4 rows
// (relaxed SIMD): 4 rows in place were 1.5% faster than the copy in SIMD128.
constexpr bool a_as_panel = packed_rows > tile_rows;
constexpr std::size_t tile_vectors = register_tile::tile_vectors;
constexpr std::size_t panel = tile_vectors * lanes;  // the columns of one tile
// matmul_packed's block of b: pack_k rows x pack_n columns (256 KiB), whole panels on every arch
constexpr std::size_t pack_k = 256, pack_n = 256;
static_assert(pack_n % panel == 0, "whole panels per block");

// c[0:R, 0:cols] = a[0:R, 0:k] b[0:k, 0:cols]   (a of row stride k; b and c of row stride n)
// Tiles of 2 vectors, then of one vector, then a scalar tail of the last cols % lanes columns.
template <std::size_t R>
void matmul_rows(const float* a, const float* b, float* c, std::size_t k, std::size_t n, std::size_t cols) {
  using register_tile::tile_product;
  std::size_t j = 0;
  for (; j + panel <= cols; j += panel)
    tile_product<R, tile_vectors, Init::Zero, Layout::Rows>(a, k, b + j, n, c + j, n, k);
  simd::vector_then_scalar(
      cols - j,
      [&](std::size_t x) { tile_product<R, 1, Init::Zero, Layout::Rows>(a, k, b + j + x, n, c + j + x, n, k); },
      [&](std::size_t x) {
        for (std::size_t r = 0; r < R; ++r) {
          float sum = 0.0f;
          for (std::size_t p = 0; p < k; ++p) sum += a[r * k + p] * b[p * n + j + x];
          c[r * n + j + x] = sum;
        }
      });
}

// c[0:m, 0:cols] = a b[0:k, 0:cols]   (b and c of row stride n): tiles of 4 rows, then one tile of
// the last m % 4 rows.
void matmul_columns(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n,
                    std::size_t cols) {
  std::size_t i = 0;
  for (; i + tile_rows <= m; i += tile_rows) matmul_rows<tile_rows>(a + i * k, b, c + i * n, k, n, cols);
  register_tile::with_rows<tile_rows - 1>(
      m - i, [&](auto R) { matmul_rows<decltype(R)::value>(a + i * k, b, c + i * n, k, n, cols); });
}

// b[p0 : p0 + kb, j0 : j0 + nb] as panels, one after the other: scratch[t*kb*panel + p*panel + x]
// = b[p0 + p, j0 + t*panel + x] (nb a multiple of panel).
void pack_panels(const float* b, std::size_t n, std::size_t p0, std::size_t kb, std::size_t j0, std::size_t nb,
                 float* scratch) {
  for (std::size_t t = 0; t * panel < nb; ++t)
    for (std::size_t p = 0; p < kb; ++p) {
      const float* row = b + (p0 + p) * n + j0 + t * panel;
      std::copy(row, row + panel, scratch + (t * kb + p) * panel);
    }
}

// a[0:R, 0:kb] (row stride k) as one panel: a_panel[p * R + r] = a[r, p].
template <std::size_t R>
void pack_rows_as_panel(const float* a, std::size_t k, std::size_t kb, float* a_panel) {
  for (std::size_t p = 0; p < kb; ++p)
#pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r) a_panel[p * R + r] = a[r * k + p];
}

// c_tile[0:R, 0:panel] (=|+=) a[0:R, 0:kb] b_panel: a read in place (row stride k) or from
// a_panel, its copy as one panel.
template <std::size_t R, Init init>
void packed_tile(const float* a, std::size_t k, const float* a_panel, const float* b_panel, float* c_tile,
                 std::size_t n, std::size_t kb) {
  using register_tile::tile_product;
  if constexpr (a_as_panel)
    tile_product<R, tile_vectors, init, Layout::Panel>(a_panel, R, b_panel, panel, c_tile, n, kb);
  else
    tile_product<R, tile_vectors, init, Layout::Rows>(a, k, b_panel, panel, c_tile, n, kb);
}

// c[0:m, j0 : j0 + nb] (=|+=) a[0:m, p0 : p0 + kb] times the packed block (first block of k: =).
void multiply_packed_block(const float* a, const float* packed, float* a_panel, float* c, std::size_t m, std::size_t k,
                           std::size_t n, std::size_t p0, std::size_t kb, std::size_t j0, std::size_t nb) {
  auto rows = [&](auto R, std::size_t i) {
    const float* a_block = a + i * k + p0;
    if constexpr (a_as_panel) pack_rows_as_panel<R>(a_block, k, kb, a_panel);
    for (std::size_t t = 0; t * panel < nb; ++t) {
      const float* b_panel = packed + t * kb * panel;
      float* c_tile = c + i * n + j0 + t * panel;
      if (p0 == 0)
        packed_tile<R, Init::Zero>(a_block, k, a_panel, b_panel, c_tile, n, kb);
      else
        packed_tile<R, Init::Load>(a_block, k, a_panel, b_panel, c_tile, n, kb);
    }
  };
  std::size_t i = 0;
  for (; i + packed_rows <= m; i += packed_rows) rows(std::integral_constant<std::size_t, packed_rows>{}, i);
  register_tile::with_rows<packed_rows - 1>(m - i, [&](auto R) { rows(R, i); });
}

// ---------------------------------------------------------------------------------------------
// C = A B^T (+ bias)
//
// Every element is a dot product of two contiguous rows, vectorised over p. A tile computes
// 4 rows of a against 2 rows of b: per step it loads 2 vectors of b and 4 of a for 8 multiply-adds
// into 8 accumulators, which are summed across lanes (reduce_add) once at the end.
// (4 x 2 in both wasm flavours: 6 x 2 spills the 8 row pointers, and 3 x 3 was no faster.)
constexpr std::size_t dot_rows_a = 4;
constexpr std::size_t dot_rows_b = 2;

// c[r, j] = sum_p a[r, p] * b[j, p] + bias[j]   for r < R, j < C
// a: R rows of stride k; b: C rows of stride k; bias: C values or nullptr; c: R rows of stride n.
template <std::size_t R, std::size_t C>
inline void dot_tile(const float* a, const float* b, const float* bias, float* c, std::size_t k, std::size_t n) {
  batch acc[R][C];
  float sum[R][C];
#pragma GCC unroll 8
  for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (std::size_t j = 0; j < C; ++j) acc[r][j] = batch(0.0f);

  simd::vector_then_scalar(
      k,
      [&](std::size_t p) {
        batch b_p[C];  // b[j, p : p+lanes]
#pragma GCC unroll 8
        for (std::size_t j = 0; j < C; ++j) b_p[j] = batch::load_unaligned(b + j * k + p);
#pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r) {
          const batch a_rp = batch::load_unaligned(a + r * k + p);  // a[r, p : p+lanes]
#pragma GCC unroll 8
          for (std::size_t j = 0; j < C; ++j) acc[r][j] = simd::fma(a_rp, b_p[j], acc[r][j]);
        }
      },
      [&] {
#pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 8
          for (std::size_t j = 0; j < C; ++j) sum[r][j] = xsimd::reduce_add(acc[r][j]);
      },
      [&](std::size_t p) {  // the last k % lanes products
#pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 8
          for (std::size_t j = 0; j < C; ++j) sum[r][j] += a[r * k + p] * b[j * k + p];
      });

#pragma GCC unroll 8
  for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (std::size_t j = 0; j < C; ++j) c[r * n + j] = bias ? sum[r][j] + bias[j] : sum[r][j];
}

// c[0:R, 0:cols] = a[0:R, 0:k] b[0:cols, 0:k]^T + bias (c of row stride ldc): tiles of 2 rows of
// b, then one row of b at a time.
template <std::size_t R>
void dot_rows(const float* a, const float* b, const float* bias, float* c, std::size_t k, std::size_t cols,
              std::size_t ldc) {
  std::size_t j = 0;
  for (; j + dot_rows_b <= cols; j += dot_rows_b)
    dot_tile<R, dot_rows_b>(a, b + j * k, bias ? bias + j : nullptr, c + j, k, ldc);
  for (; j < cols; ++j) dot_tile<R, 1>(a, b + j * k, bias ? bias + j : nullptr, c + j, k, ldc);
}

// c = a b^T + bias; a (m, k), b (n, k), bias (n) or nullptr, c (m, n).
// Shared by matmul_transposed_b (no bias) and linear.
void matmul_transposed_b_plus_bias(const float* a, const float* b, const float* bias, float* c, std::size_t m,
                                   std::size_t k, std::size_t n) {
  std::size_t i = 0;
  for (; i + dot_rows_a <= m; i += dot_rows_a) dot_rows<dot_rows_a>(a + i * k, b, bias, c + i * n, k, n, n);
  for (; i < m; ++i) dot_rows<1>(a + i * k, b, bias, c + i * n, k, n, n);
}

// Scalar twin of matmul_transposed_b_plus_bias.
void matmul_transposed_b_plus_bias_reference(const float* a, const float* b, const float* bias, float* c, std::size_t m,
                                             std::size_t k, std::size_t n) {
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (std::size_t p = 0; p < k; ++p) sum += a[i * k + p] * b[j * k + p];
      c[i * n + j] = bias ? sum + bias[j] : sum;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// y = x W^T + bias, W pre-packed
//
// W's panels are b's panels in matmul_packed, packed once for every call: each tile of rows of x
// (in relaxed SIMD copied as one panel) meets every panel of W over the whole of k, then the last
// n % panel columns are dot products with W's unpacked last rows.

// y[0:R, 0:n] = x[0:R, 0:k] W^T + bias
template <std::size_t R>
void linear_packed_rows(const float* x, const float* w_packed, const float* bias, float* y, std::size_t k,
                        std::size_t n, float* x_panel) {
  const std::size_t n_panels = n - n % panel;  // columns in whole panels
  if constexpr (a_as_panel) pack_rows_as_panel<R>(x, k, k, x_panel);
  for (std::size_t j = 0; j < n_panels; j += panel)
    packed_tile<R, Init::Zero>(x, k, x_panel, w_packed + j * k, y + j, n, k);
  if (bias)
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t j = 0; j < n_panels; j += lanes)
        (batch::load_unaligned(y + r * n + j) + batch::load_unaligned(bias + j)).store_unaligned(y + r * n + j);
  dot_rows<R>(x, w_packed + n_panels * k, bias ? bias + n_panels : nullptr, y + n_panels, k, n - n_panels, n);
}

// W[j, p] read from its packed layout
float packed_weight_at(const float* w_packed, std::size_t k, std::size_t n, std::size_t j, std::size_t p) {
  const std::size_t n_panels = n - n % panel;
  if (j >= n_panels) return w_packed[j * k + p];  // the last rows, unpacked
  return w_packed[(j - j % panel) * k + p * panel + j % panel];
}

}  // namespace

std::size_t matmul_packed_scratch_size() { return pack_k * pack_n + (a_as_panel ? packed_rows * pack_k : 0); }

// C = A B
void matmul(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n) {
  matmul_columns(a, b, c, m, k, n, n);
}

// C = A B, b packed block by block
//
// Goto's blocking: a (pack_k, pack_n) block of b is copied into scratch as panels of one tile's
// width, and every tile of rows of a (in relaxed SIMD its block of k copied as one panel, so that
// the 6-row tile reads a through one pointer) then meets the block's panels. The block (256 KiB) stays in
// the L2 cache and each panel is read sequentially; in matmul, b is read a tile-wide strip at a
// time down its rows (a stride of n floats), and a b larger than the cache is fetched again for
// every 4 rows of a. Over the k blocks each element's sum continues in order (Init::Load), and
// the columns after the last full panel go through matmul's own tiles: byte-identical to matmul.
void matmul_packed(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n,
                   float* scratch) {
  const std::size_t n_panels = n - n % panel;  // columns in whole panels
  if (k == 0 || n_panels == 0) return matmul(a, b, c, m, k, n);
  for (std::size_t j0 = 0; j0 < n_panels; j0 += pack_n) {
    const std::size_t nb = std::min(pack_n, n_panels - j0);  // a multiple of panel
    for (std::size_t p0 = 0; p0 < k; p0 += pack_k) {
      const std::size_t kb = std::min(pack_k, k - p0);
      pack_panels(b, n, p0, kb, j0, nb, scratch);
      multiply_packed_block(a, scratch, scratch + pack_k * pack_n, c, m, k, n, p0, kb, j0, nb);
    }
  }
  // the last n % panel columns, unpacked
  matmul_columns(a, b + n_panels, c + n_panels, m, k, n, n - n_panels);
}

void matmul_reference(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n) {
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (std::size_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
  }
}

// C = A B^T
void matmul_transposed_b(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n) {
  matmul_transposed_b_plus_bias(a, b, nullptr, c, m, k, n);
}

void matmul_transposed_b_reference(const float* a, const float* b, float* c, std::size_t m, std::size_t k,
                                   std::size_t n) {
  matmul_transposed_b_plus_bias_reference(a, b, nullptr, c, m, k, n);
}

// y = x W^T + bias
void linear(const float* x, const float* w, const float* bias, float* y, std::size_t m, std::size_t k, std::size_t n) {
  matmul_transposed_b_plus_bias(x, w, bias, y, m, k, n);
}

void linear_reference(const float* x, const float* w, const float* bias, float* y, std::size_t m, std::size_t k,
                      std::size_t n) {
  matmul_transposed_b_plus_bias_reference(x, w, bias, y, m, k, n);
}

// packed[t*P*k + p*P + x] = w[t*P + x, p]; w's last n % P rows copied as they are
void linear_pack_weight(const float* w, float* packed, std::size_t n, std::size_t k) {
  const std::size_t n_panels = n - n % panel;
  for (std::size_t t = 0; t < n_panels; t += panel)
    for (std::size_t x = 0; x < panel; ++x)
      for (std::size_t p = 0; p < k; ++p) packed[t * k + p * panel + x] = w[(t + x) * k + p];
  std::copy(w + n_panels * k, w + n * k, packed + n_panels * k);
}

std::size_t linear_panel_width() { return panel; }

bool linear_packing_pays() { return a_as_panel; }

std::size_t linear_packed_scratch_size(std::size_t k) { return a_as_panel ? packed_rows * k : 0; }

// y = x W^T + bias, W packed: tiles of packed_rows rows of x, then one tile of the rest.
void linear_packed(const float* x, const float* w_packed, const float* bias, float* y, std::size_t m, std::size_t k,
                   std::size_t n, float* scratch) {
  std::size_t i = 0;
  for (; i + packed_rows <= m; i += packed_rows)
    linear_packed_rows<packed_rows>(x + i * k, w_packed, bias, y + i * n, k, n, scratch);
  register_tile::with_rows<packed_rows - 1>(m - i, [&](auto R) {
    linear_packed_rows<decltype(R)::value>(x + i * k, w_packed, bias, y + i * n, k, n, scratch);
  });
}

void linear_packed_reference(const float* x, const float* w_packed, const float* bias, float* y, std::size_t m,
                             std::size_t k, std::size_t n) {
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (std::size_t p = 0; p < k; ++p) sum += x[i * k + p] * packed_weight_at(w_packed, k, n, j, p);
      y[i * n + j] = bias ? sum + bias[j] : sum;
    }
  }
}

}  // namespace aw::kernels
