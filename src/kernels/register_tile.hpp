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
// to one call, and so is any choice of R.
#pragma once

#include <cstddef>
#include <type_traits>

#include "kernels/simd.hpp"

namespace aw::kernels::register_tile {

using simd::batch;
using simd::lanes;

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
template <std::size_t R, std::size_t V, Init init, Layout layout, std::size_t StaticLda = 0>
inline void tile_product(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                         std::size_t ldc, std::size_t k, const float* c_scale = nullptr)
{
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
            const batch a_rp(a_at(r));  // a[r, p] in every lane
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
inline void with_rows(std::size_t rows, F&& f)
{
    if constexpr (MaxRows > 0) {
        if (rows == MaxRows) f(std::integral_constant<std::size_t, MaxRows>{});
        else with_rows<MaxRows - 1>(rows, f);
    }
}

}  // namespace aw::kernels::register_tile
