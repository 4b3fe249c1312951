// Matrix products: xsimd kernels and their scalar references. See matmul.hpp.
#include "kernels/matmul.hpp"

#include <algorithm>
#include <utility>

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
// Tiles of 4 rows x 2 vectors of C (register_tile.hpp), a read in place.
constexpr std::size_t tile_rows = register_tile::tile_rows;
constexpr std::size_t tile_vectors = register_tile::tile_vectors;
constexpr std::size_t panel = tile_vectors * lanes;  // the columns of one tile
// The blocked products' block of b (or W^T): block_k rows x block_n columns (256 KiB), whole
// panels on every arch. It stays in the L2 cache (1 MiB on Zen 4, 2 MiB on Sapphire Rapids) while
// every tile of rows of a meets it; a tile's 4 x block_k of a (4 KiB) stays in L1.
constexpr std::size_t block_k = 256, block_n = 256;
static_assert(block_n % panel == 0, "whole panels per block");

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

// The same panels from W^T: scratch[t*kb*panel + p*panel + x] = w[j0 + t*panel + x, p0 + p], w of
// row stride k (nb a multiple of panel). Square blocks of lanes x lanes go through registers
// (xsimd::transpose); the last kb % lanes columns are copied one by one.
void pack_panels_transposed(const float* w, std::size_t k, std::size_t p0, std::size_t kb, std::size_t j0,
                            std::size_t nb, float* scratch) {
  for (std::size_t t = 0; t * panel < nb; ++t)
    for (std::size_t x0 = 0; x0 < panel; x0 += lanes) {
      const float* rows = w + (j0 + t * panel + x0) * k + p0;  // w[j0 + t*panel + x0 + l, p0 + p]
      float* out = scratch + t * kb * panel + x0;              // out[p * panel + l]
      simd::vector_then_scalar(
          kb,
          [&](std::size_t p) {
            batch block[lanes];  // rows l, columns p .. p + lanes; then rows p + l, columns l
            for (std::size_t l = 0; l < lanes; ++l) block[l] = batch::load_unaligned(rows + l * k + p);
            xsimd::transpose(block, block + lanes);
            for (std::size_t l = 0; l < lanes; ++l) block[l].store_unaligned(out + (p + l) * panel);
          },
          [&](std::size_t p) {
            for (std::size_t l = 0; l < lanes; ++l) out[p * panel + l] = rows[l * k + p];
          });
    }
}

// c[0:m, 0:nb] (=|+=) a[0:m, 0:kb] b_block, with b_block as nb / panel panels (kb, panel), the t-th
// at b_panels + t * panel_stride; a of row stride lda, c of row stride ldc. Tiles of tile_rows rows
// (a read in place), each meeting every panel of the block, then one tile of the last m % tile_rows.
template <Init init>
void multiply_panels(const float* a, std::size_t lda, const float* b_panels, std::size_t panel_stride, float* c,
                     std::size_t ldc, std::size_t m, std::size_t kb, std::size_t nb) {
  auto rows = [&](auto R, std::size_t i) {
    for (std::size_t t = 0; t * panel < nb; ++t)
      register_tile::tile_product<R, tile_vectors, init, Layout::Rows>(a + i * lda, lda, b_panels + t * panel_stride,
                                                                       panel, c + i * ldc + t * panel, ldc, kb);
  };
  std::size_t i = 0;
  for (; i + tile_rows <= m; i += tile_rows) rows(std::integral_constant<std::size_t, tile_rows>{}, i);
  register_tile::with_rows<tile_rows - 1>(m - i, [&](auto R) { rows(R, i); });
}

// c[0:m, 0:n_panels] = a[0:m, 0:k] B, B (k, n_panels) in blocks of block_k x block_n:
// block(p0, kb, j0, nb) returns the block's panels and the distance between two of them. Over
// the blocks of k each element's sum continues in order (Init::Load), as in one tile over all of k.
template <class Block>
void multiply_blocks(const float* a, float* c, std::size_t m, std::size_t k, std::size_t ldc, std::size_t n_panels,
                     Block&& block) {
  for (std::size_t j0 = 0; j0 < n_panels; j0 += block_n) {
    const std::size_t nb = std::min(block_n, n_panels - j0);  // a multiple of panel
    for (std::size_t p0 = 0; p0 < k; p0 += block_k) {
      const std::size_t kb = std::min(block_k, k - p0);
      const auto [panels, stride] = block(p0, kb, j0, nb);
      if (p0 == 0)
        multiply_panels<Init::Zero>(a + p0, k, panels, stride, c + j0, ldc, m, kb, nb);
      else
        multiply_panels<Init::Load>(a + p0, k, panels, stride, c + j0, ldc, m, kb, nb);
    }
  }
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
// One row of a (a decode step's y = x W^T) takes 4 rows of b at a time instead: 4 independent
// accumulators hide the multiply-add's latency where 1 x 2 was bound by it (each sum is the same).
template <std::size_t R>
void dot_rows(const float* a, const float* b, const float* bias, float* c, std::size_t k, std::size_t cols,
              std::size_t ldc) {
  std::size_t j = 0;
  if constexpr (R == 1)
    for (; j + 2 * dot_rows_b <= cols; j += 2 * dot_rows_b)
      dot_tile<R, 2 * dot_rows_b>(a, b + j * k, bias ? bias + j : nullptr, c + j, k, ldc);
  for (; j + dot_rows_b <= cols; j += dot_rows_b)
    dot_tile<R, dot_rows_b>(a, b + j * k, bias ? bias + j : nullptr, c + j, k, ldc);
  for (; j < cols; ++j) dot_tile<R, 1>(a, b + j * k, bias ? bias + j : nullptr, c + j, k, ldc);
}

// c[0:m, 0:cols] = a b^T + bias; a (m, k), b (cols, k), bias (cols) or nullptr, c of row stride ldc.
void dot_columns(const float* a, const float* b, const float* bias, float* c, std::size_t m, std::size_t k,
                 std::size_t cols, std::size_t ldc) {
  std::size_t i = 0;
  for (; i + dot_rows_a <= m; i += dot_rows_a) dot_rows<dot_rows_a>(a + i * k, b, bias, c + i * ldc, k, cols, ldc);
  for (; i < m; ++i) dot_rows<1>(a + i * k, b, bias, c + i * ldc, k, cols, ldc);
}

// c = a b^T + bias; a (m, k), b (n, k), bias (n) or nullptr, c (m, n).
// Shared by matmul_transposed_b (no bias) and linear.
void matmul_transposed_b_plus_bias(const float* a, const float* b, const float* bias, float* c, std::size_t m,
                                   std::size_t k, std::size_t n) {
  dot_columns(a, b, bias, c, m, k, n, n);
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
// y = x W^T + bias, W in panels
//
// W's panels are b's panels in matmul_packed, packed once for every call (linear_packed) or
// block by block for one call (linear_blockwise): the blocked product of matmul_packed over the
// columns in whole panels, then the bias, then the last n % panel columns as dot products with
// W's unpacked last rows.

// y[:, 0:n_panels] += bias[0:n_panels]
void add_bias(const float* bias, float* y, std::size_t m, std::size_t n, std::size_t n_panels) {
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t j = 0; j < n_panels; j += lanes)
      (batch::load_unaligned(y + r * n + j) + batch::load_unaligned(bias + j)).store_unaligned(y + r * n + j);
}

// W[j, p] read from its packed layout
float packed_weight_at(const float* w_packed, std::size_t k, std::size_t n, std::size_t j, std::size_t p) {
  const std::size_t n_panels = n - n % panel;
  if (j >= n_panels) return w_packed[j * k + p];  // the last rows, unpacked
  return w_packed[(j - j % panel) * k + p * panel + j % panel];
}

}  // namespace

std::size_t matmul_packed_scratch_size() { return block_k * block_n; }

// C = A B
void matmul(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n) {
  matmul_columns(a, b, c, m, k, n, n);
}

// C = A B, b packed block by block
//
// Goto's blocking: a (block_k, block_n) block of b is copied into scratch as panels of one tile's
// width, and every tile of rows of a then meets the block's panels. The block (256 KiB) stays in
// the L2 cache and each panel is read sequentially; in matmul, b is read a tile-wide strip at a
// time down its rows (a stride of n floats), and a b larger than the cache is fetched again for
// every 4 rows of a. Over the k blocks each element's sum continues in order (Init::Load), and
// the columns after the last full panel go through matmul's own tiles: byte-identical to matmul.
void matmul_packed(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n,
                   float* scratch) {
  const std::size_t n_panels = n - n % panel;  // columns in whole panels
  if (k == 0 || n_panels == 0) return matmul(a, b, c, m, k, n);
  multiply_blocks(a, c, m, k, n, n_panels, [&](std::size_t p0, std::size_t kb, std::size_t j0, std::size_t nb) {
    pack_panels(b, n, p0, kb, j0, nb, scratch);
    return std::pair<const float*, std::size_t>{scratch, kb * panel};
  });
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
  if (k > 0) pack_panels_transposed(w, k, 0, k, 0, n_panels, packed);
  std::copy(w + n_panels * k, w + n * k, packed + n_panels * k);
}

std::size_t linear_panel_width() { return panel; }

// y = x W^T + bias, W packed: panel t's rows p0 .. p0 + kb - 1 lie at w_packed + t*panel*k + p0*panel.
// y[0:n_panels] = x W^T for one row of x (a decode step): T panels at a time, each element summed
// over all of k in order with one multiply-add per p -- the same sums as the one-row tile of
// multiply_blocks (byte-identical) -- but T x 2 independent accumulators instead of 2, so that
// the multiply-add's latency no longer bounds the stream of W (read once, T panels side by side).
namespace {

constexpr std::size_t gemv_panels = 4;
template <std::size_t T>
void gemv_panel_group(const float* x, const float* w, float* y, std::size_t k) {
  batch acc[T][tile_vectors];
  const float* w_t[T];  // panel t's row p
#pragma GCC unroll 8
  for (std::size_t t = 0; t < T; ++t) {
    w_t[t] = w + t * panel * k;
#pragma GCC unroll 8
    for (std::size_t v = 0; v < tile_vectors; ++v) acc[t][v] = batch(0.0f);
  }
  for (std::size_t p = 0; p < k; ++p) {
    const batch x_p(x[p]);
#pragma GCC unroll 8
    for (std::size_t t = 0; t < T; ++t) {
#pragma GCC unroll 8
      for (std::size_t v = 0; v < tile_vectors; ++v)
        acc[t][v] = simd::fma(x_p, batch::load_unaligned(w_t[t] + v * lanes), acc[t][v]);
      w_t[t] += panel;
    }
  }
#pragma GCC unroll 8
  for (std::size_t t = 0; t < T; ++t)
#pragma GCC unroll 8
    for (std::size_t v = 0; v < tile_vectors; ++v) acc[t][v].store_unaligned(y + t * panel + v * lanes);
}

void gemv_packed(const float* x, const float* w_packed, float* y, std::size_t k, std::size_t n_panels) {
  std::size_t j = 0;
  for (; j + gemv_panels * panel <= n_panels; j += gemv_panels * panel)
    gemv_panel_group<gemv_panels>(x, w_packed + j * k, y + j, k);
  for (; j < n_panels; j += panel) gemv_panel_group<1>(x, w_packed + j * k, y + j, k);
}

}  // namespace

void linear_packed(const float* x, const float* w_packed, const float* bias, float* y, std::size_t m, std::size_t k,
                   std::size_t n) {
  const std::size_t n_panels = n - n % panel;
  if (k == 0) return linear(x, w_packed, bias, y, m, k, n);
  if (m == 1)
    gemv_packed(x, w_packed, y, k, n_panels);
  else
    multiply_blocks(x, y, m, k, n, n_panels, [&](std::size_t p0, std::size_t, std::size_t j0, std::size_t) {
      return std::pair<const float*, std::size_t>{w_packed + j0 * k + p0 * panel, panel * k};
    });
  if (bias) add_bias(bias, y, m, n, n_panels);
  dot_columns(x, w_packed + n_panels * k, bias ? bias + n_panels : nullptr, y + n_panels, m, k, n - n_panels, n);
}

std::size_t linear_blockwise_scratch_size() { return block_k * block_n; }

// y = x W^T + bias, W packed block by block into scratch
void linear_blockwise(const float* x, const float* w, const float* bias, float* y, std::size_t m, std::size_t k,
                      std::size_t n, float* scratch) {
  const std::size_t n_panels = n - n % panel;
  if (k == 0) return linear(x, w, bias, y, m, k, n);
  multiply_blocks(x, y, m, k, n, n_panels, [&](std::size_t p0, std::size_t kb, std::size_t j0, std::size_t nb) {
    pack_panels_transposed(w, k, p0, kb, j0, nb, scratch);
    return std::pair<const float*, std::size_t>{scratch, kb * panel};
  });
  if (bias) add_bias(bias, y, m, n, n_panels);
  dot_columns(x, w + n_panels * k, bias ? bias + n_panels : nullptr, y + n_panels, m, k, n - n_panels, n);
}

void linear_blockwise_reference(const float* x, const float* w, const float* bias, float* y, std::size_t m,
                                std::size_t k, std::size_t n, float*) {
  linear_reference(x, w, bias, y, m, k, n);
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
