// The register-blocked micro-kernel of the matrix products: matmul (kernels/matmul.cpp) and the
// two products of the fused attention (kernels/flash_attention.cpp), Q K^T and P V.
//
//   c[0:R, 0:V*lanes]  =              a[0:R, 0:k] b[0:k, 0:V*lanes]     (Init::Zero)
//   c[0:R, 0:V*lanes] +=              a[0:R, 0:k] b[0:k, 0:V*lanes]     (Init::Load)
//   c[r, :]            = c_scale[r] c[r, :] + a[r, 0:k] b[0:k, :]       (Init::Rescale)
//
// A tile of R rows x V vectors of c stays in registers while p runs over k: per step V loads of
// row p of b, R broadcasts of a[r, p] and R*V multiply-adds. Each element's sum runs over p in
// order, so a product split along k (Init::Load after Init::Zero) or along rows is byte-identical
// to one call, and so is any choice of R (or V): the two wasm flavours differ only by rounding
// (fused or not).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/simd.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace aw::kernels::register_tile {

using simd::batch;
using simd::lanes;

// The tile shape of every product: 4 rows x 2 vectors, in both wasm flavours (and natively).
// V8 gives wasm 15 SIMD registers on x86-64 (xmm0-14), and a step needs
//   R*V accumulators + V rows of b + the broadcasts of a[:, p] that are live at once,
// where Node 20's TurboFan schedules every load of the loop body before its arithmetic, so that
// all R broadcasts (v128.load32_splat) are live together: 4 x 2 takes 8 + 2 + 4 = 14.
// Measured (scripts/tile-bench.sh, GFLOP/s, Layout::Panel, k 768, b in L2; docs/performance.md):
//                              AMD EPYC Zen 4            Intel Sapphire Rapids
//                              Node 20 / 24 / Chromium   Node 20
//   4 x 2 splat loads          55 / 52 / 56              61.5
//   6 x 2 late broadcasts      39 / 37 / 38              43.1
//   6 x 2 splat loads          27 / 59 / 60              (spills in Node 20)
//   3 x 3 splat loads          58 / 59 / 61              not measured
// The 6 x 2 tile with late broadcasts (an i32 load, then i32x4.splat: one broadcast register for
// all rows) that the relaxed build used until now is the slowest on both vendors: the splat from
// a general-purpose register is two shuffle-port operations per row, where a splat load is a
// plain load. 4 x 2 is the best measured on Intel and within 5-10 % of the best on AMD, in every
// engine; in SIMD128 (a multiply and an add: one more register) anything larger spills.
constexpr std::size_t tile_rows = 4;
constexpr std::size_t tile_vectors = 2;

// x in every lane, computed where it is used (for the tile benchmark's comparison only: slower
// than a splat load on both vendors, above). A splat load (v128.load32_splat) is a load, which
// TurboFan hoists to the top of the loop body with the others; an i32 load (a general-purpose
// register) then i32x4.splat is arithmetic, scheduled next to its multiply-adds, so that one
// broadcast register serves all R rows. The empty asm keeps clang from folding the two back into
// a splat load.
inline batch broadcast_late(float x) {
#if defined(__wasm_simd128__)
  std::int32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  __asm__("" : "+r"(bits));
  return batch(wasm_i32x4_splat(bits));
#else
  return batch(x);
#endif
}

enum class Init { Zero, Load, Rescale };

// How the tile finds a[r, p]:
//   Rows:  a[r * lda + p], row-major (R pointers, one per row, bumped each step);
//   Panel: a[p * R + r], the R rows interleaved (one pointer for all of them).
// Rows with a compile-time StaticLda reads a[r * StaticLda + p] at constant offsets from one
// pointer, which the wasm load's immediate offset absorbs.
enum class Layout { Rows, Panel };

// Pointers are bumped per step rather than indexed: wasm has no scaled-index addressing, so
// a + r * lda + p would cost integer instructions per load. `#pragma GCC unroll` on the loops
// over the tile's compile-time sizes keeps acc[R][V] in registers (g++ otherwise spills it).
// LateBroadcasts: a[r, p] through broadcast_late (tile benchmark only).
template <std::size_t R, std::size_t V, Init init, Layout layout, std::size_t StaticLda = 0,
          bool LateBroadcasts = false>
inline void tile_product(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c, std::size_t ldc,
                         std::size_t k, const float* c_scale = nullptr) {
  batch acc[R][V];
#pragma GCC unroll 8
  for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (std::size_t v = 0; v < V; ++v) {
      if constexpr (init == Init::Zero) acc[r][v] = batch(0.0f);
      if constexpr (init == Init::Load) acc[r][v] = batch::load_unaligned(c + r * ldc + v * lanes);
      if constexpr (init == Init::Rescale)
        acc[r][v] = batch(c_scale[r]) * batch::load_unaligned(c + r * ldc + v * lanes);
    }

  // acc += a[:, p] b[p, :] with a[r, p] = a_at(r), then b moves to row p + 1
  auto step = [&](auto a_at) {
    batch b_p[V];  // b[p, v*lanes : (v+1)*lanes]
#pragma GCC unroll 8
    for (std::size_t v = 0; v < V; ++v) b_p[v] = batch::load_unaligned(b + v * lanes);
#pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r) {
      const batch a_rp = LateBroadcasts ? broadcast_late(a_at(r)) : batch(a_at(r));  // a[r, p] in every lane
#pragma GCC unroll 8
      for (std::size_t v = 0; v < V; ++v) acc[r][v] = simd::fma(a_rp, b_p[v], acc[r][v]);
    }
    b += ldb;
  };
  if constexpr (layout == Layout::Panel) {
    for (const float* const a_end = a + k * R; a != a_end; a += R) step([&](std::size_t r) { return a[r]; });
  } else if constexpr (StaticLda != 0) {
    for (const float* const a_end = a + k; a != a_end; ++a) step([&](std::size_t r) { return a[r * StaticLda]; });
  } else {
    const float* a_r[R];  // a[r, p]
#pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r) a_r[r] = a + r * lda;
    for (const float* const a_end = a + k; a_r[0] != a_end;) {
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

// f(std::integral_constant<std::size_t, R>{}) with R = rows, for 1 <= rows <= MaxRows: a tile of
// exactly the rows left over after the full tiles.
template <std::size_t MaxRows, class F>
inline void with_rows(std::size_t rows, F&& f) {
  if constexpr (MaxRows > 0) {
    if (rows == MaxRows)
      f(std::integral_constant<std::size_t, MaxRows>{});
    else
      with_rows<MaxRows - 1>(rows, f);
  }
}

}  // namespace aw::kernels::register_tile
