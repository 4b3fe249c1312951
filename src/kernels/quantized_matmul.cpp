// The int8 linear layer: the register tiles per way of computing the products, and the scalar
// reference. See quantized_matmul.hpp.
//
// The tiles use wasm_simd128.h directly: xsimd has no integer dot product (and no relaxed
// SIMD). Natively (where only the tests run) the Portable tile is plain loops.
#include "kernels/quantized_matmul.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/activation.hpp"
#include "kernels/quantize.hpp"
#include "kernels/register_tile.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace aw::kernels {
namespace {

constexpr std::size_t panel = int8_panel_columns;
constexpr std::size_t group = int8_group;
constexpr std::size_t panel_bytes_per_group = panel * group;  // 32
// Rows of x quantized at a time: their u7 copy (96 x k bytes) stays in the L2 cache while every
// panel of W meets it. 96: whole tiles of every product (6, 2 and 4 rows), and W streamed once per
// 96 rows (it was 64 with 4-row tiles; measured for every route: docs/performance.md, "The relaxed
// dot as one instruction").
constexpr std::size_t block_rows = 96;
// Rows per register tile (see the tiles): 6 for RelaxedDot, 2 for RelaxedI16Dot, 4 for SIMD128.
template <Int8Product product>
constexpr std::size_t tile_rows = product == Int8Product::RelaxedDot      ? 6
                                  : product == Int8Product::RelaxedI16Dot ? 2
                                                                          : 4;
static_assert(int8_row_multiple % tile_rows<Int8Product::RelaxedDot> == 0 &&
                  int8_row_multiple % tile_rows<Int8Product::RelaxedI16Dot> == 0 &&
                  int8_row_multiple % tile_rows<Int8Product::Simd128Dot> == 0 && block_rows % int8_row_multiple == 0,
              "whole tiles per block and per int8_row_multiple");
// Panels whose outputs a fused activation covers at once: 96 rows x 64 columns, 24 KB.
constexpr std::size_t activation_panels = 8;

std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }
// Groups of a row, in whole pairs (the int16 sums of RelaxedI16Dot add two groups).
std::size_t groups_of(std::size_t k) { return round_up((k + group - 1) / group, 2); }

// The i7 operand as each way reads it: bytes, or (SIMD128) bytes widened to int16.
template <Int8Product product>
using ActivationType = std::conditional_t<product == Int8Product::Simd128Dot, std::int16_t, std::uint8_t>;

// The scratch of a block: its rows' quantized values (lda = 4 groups per row), then their scales
// and zero points.
template <class A>
struct BlockScratch {
  A* q;
  float* scales;
  std::int32_t* zero_points;
  std::size_t lda;
  BlockScratch(void* scratch, std::size_t k) : lda(groups_of(k) * group) {
    auto* bytes = static_cast<unsigned char*>(scratch);
    q = reinterpret_cast<A*>(bytes);
    scales = reinterpret_cast<float*>(bytes + round_up(block_rows * lda * sizeof(A), 16));
    zero_points = reinterpret_cast<std::int32_t*>(scales + block_rows);
  }
};

// x[0:rows, 0:k] -> the block's quantized rows, the padding of each row (k .. lda) zero.
template <class A>
void quantize_block(const float* x, std::size_t rows, std::size_t k, const BlockScratch<A>& s) {
  for (std::size_t r = 0; r < rows; ++r) {
    A* q = s.q + r * s.lda;
    const ActivationQuantization a = quantize_activation_row(x + r * k, k, q);
    std::fill(q + k, q + s.lda, A{0});
    s.scales[r] = a.scale;
    s.zero_points[r] = a.zero_point;
  }
}

// The epilogue of one output, scalar: float(sum - zx sum_w) * (sx * sw) (+ bias, where there is
// one). The vector epilogue below computes the same operations lane by lane, in the same order.
// The correction wraps in 32 bits: its exact value, sum_p (qx - zx) qw, fits (|k| <= 2^17).
inline float dequantized(std::int32_t sum, std::int32_t zero_point, std::int32_t weight_sum, float scale,
                         float weight_scale, const float* bias) {
  const auto corrected =
      static_cast<std::int32_t>(static_cast<std::uint32_t>(sum) -
                                static_cast<std::uint32_t>(zero_point) * static_cast<std::uint32_t>(weight_sum));
  const float s = scale * weight_scale;
  const float value = static_cast<float>(corrected) * s;
  return bias ? value + *bias : value;
}

void apply_activation(float* y, std::size_t n, OutputActivation act) {
  switch (act) {
    case OutputActivation::None:
      break;
    case OutputActivation::Relu:
      relu(y, y, n);
      break;
    case OutputActivation::Gelu:
      gelu(y, y, n);
      break;
    case OutputActivation::GeluTanh:
      gelu_tanh(y, y, n);
      break;
  }
}

void apply_activation_reference(float* y, std::size_t n, OutputActivation act) {
  switch (act) {
    case OutputActivation::None:
      break;
    case OutputActivation::Relu:
      relu_reference(y, y, n);
      break;
    case OutputActivation::Gelu:
      gelu_reference(y, y, n);
      break;
    case OutputActivation::GeluTanh:
      gelu_tanh_reference(y, y, n);
      break;
  }
}

// Where a tile's R x 8 outputs go, and the per-channel constants of its panel.
struct TileOutput {
  float* y;  // y[r * ldy + c]
  std::size_t ldy;
  const float* weight_scales;       // 8
  const std::int32_t* weight_sums;  // 8
  const float* bias;                // 8, or nullptr
};

// ---------------------------------------------------------------------------------------------
// The register tiles: sums[r][c] = sum over the panel's groups of a[r, 4g : 4g + 4] . w[c, 4g : 4g + 4]
// for R rows (tile_rows, or fewer for the last rows) x the panel's 8 channels.

#if defined(__wasm_simd128__)

// V8 gives wasm 15 SIMD registers on x86-64. RelaxedDot, 6 rows x 8 channels: 12 accumulators,
// the panel's 2 vectors and one broadcast at a time (Node 24 and Chromium keep the wasm's order:
// a row's splat load next to its two dots). Where the dot is one instruction (VNNI's vpdpbusd,
// which adds into its accumulator: a dependency chain of several cycles) 12 independent sums keep
// the multipliers busier than 4 rows' 8. Where it is emulated, RelaxedI16Dot is chosen anyway.
// Measured (scripts/int8-probe.mjs, AMD EPYC Zen 5 with avx_vnni, GOP/s in Node 24 / Chromium
// 156): 4 x 8 177-188 / 183-189, 6 x 8 203-213 / 210, 2 x 16 and 3 x 12 189-202 / 195-210
// (docs/performance.md, "The relaxed dot as one instruction"). RelaxedI16Dot holds two groups of
// the panel (4 vectors) and two broadcasts per row: at 4 rows that is more than Node 20's V8
// (11.3) allocates without spilling, so it takes 2 rows x 8 channels. Measured
// (scripts/int8-probe.mjs, AMD EPYC Zen 4, GOP/s in Node 20 / Node 24 / Chromium 156, where the
// relaxed dot is emulated): one group per widening, 4 x 8: 99.9 / 104.9 / 104.9; two groups,
// 2 x 8: 107.9 / 110.2 / 108.9; 4 x 8: 80.5 / 114.3 / 118.0 (docs/performance.md, "Two groups per
// widening"): 2 x 8 is the shape whose worst engine is best.

// y tile = epilogue(acc): acc[r][v] holds channels 4v .. 4v + 3 of row r.
template <std::size_t R>
inline void store_tile(const v128_t (&acc)[R][2], const float* scales, const std::int32_t* zero_points,
                       const TileOutput& out) {
#pragma GCC unroll 8
  for (std::size_t r = 0; r < R; ++r) {
    const v128_t zx = wasm_i32x4_splat(zero_points[r]), sx = wasm_f32x4_splat(scales[r]);
#pragma GCC unroll 2
    for (std::size_t v = 0; v < 2; ++v) {
      const v128_t corrected = wasm_i32x4_sub(acc[r][v], wasm_i32x4_mul(zx, wasm_v128_load(out.weight_sums + 4 * v)));
      const v128_t s = wasm_f32x4_mul(sx, wasm_v128_load(out.weight_scales + 4 * v));
      v128_t value = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(corrected), s);
      if (out.bias) value = wasm_f32x4_add(value, wasm_v128_load(out.bias + 4 * v));
      wasm_v128_store(out.y + r * out.ldy + 4 * v, value);
    }
  }
}

#if defined(__wasm_relaxed_simd__)
// a[r, 4g : 4g + 4] in every 32-bit lane; w: the panel's 32 bytes per group.
//  - RelaxedDot:    acc += dot(w_g, a_g) in int32, one group at a time;
//  - RelaxedI16Dot: acc += widen(dot16(w_g, a_g) + dot16(w_g+1, a_g+1)), two groups at a time: the
//                   int16 sum of a lane is a quad of products, exact (quantized_matmul.hpp).
template <std::size_t R, Int8Product product>
inline void relaxed_tile(const std::uint8_t* a, std::size_t lda, const std::int8_t* w, std::size_t groups,
                         v128_t (&acc)[R][2]) {
  constexpr std::size_t step = product == Int8Product::RelaxedDot ? 1 : 2;  // groups
#pragma GCC unroll 8
  for (std::size_t r = 0; r < R; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);
  for (const std::int8_t* const w_end = w + groups * panel_bytes_per_group; w != w_end;
       w += step * panel_bytes_per_group, a += step * group) {
    const v128_t w0 = wasm_v128_load(w), w1 = wasm_v128_load(w + 16);  // group g: channels 0-3, 4-7
    if constexpr (product == Int8Product::RelaxedDot) {
#pragma GCC unroll 8
      for (std::size_t r = 0; r < R; ++r) {
        const v128_t x = wasm_v128_load32_splat(a + r * lda);
        acc[r][0] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w0, x, acc[r][0]);
        acc[r][1] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w1, x, acc[r][1]);
      }
    } else {
      const v128_t w2 = wasm_v128_load(w + 32), w3 = wasm_v128_load(w + 48);  // group g + 1
#pragma GCC unroll 8
      for (std::size_t r = 0; r < R; ++r) {
        const v128_t x0 = wasm_v128_load32_splat(a + r * lda), x1 = wasm_v128_load32_splat(a + r * lda + group);
        const v128_t low =
            wasm_i16x8_add(wasm_i16x8_relaxed_dot_i8x16_i7x16(w0, x0), wasm_i16x8_relaxed_dot_i8x16_i7x16(w2, x1));
        const v128_t high =
            wasm_i16x8_add(wasm_i16x8_relaxed_dot_i8x16_i7x16(w1, x0), wasm_i16x8_relaxed_dot_i8x16_i7x16(w3, x1));
        acc[r][0] = wasm_i32x4_add(acc[r][0], wasm_i32x4_extadd_pairwise_i16x8(low));
        acc[r][1] = wasm_i32x4_add(acc[r][1], wasm_i32x4_extadd_pairwise_i16x8(high));
      }
    }
  }
}
#endif

// SIMD128: i32x4.dot_i16x8_s on 16-bit operands. One pass per half panel (4 channels): the two
// halves of a group's 16 bytes widen to channels (0, 1) and (2, 3), 4 values of k each, whose dot
// with a[r, 4g : 4g + 4] (twice, as int16) leaves each channel's sum in two lanes, added pairwise
// at the end. 4 rows x 4 channels: 8 accumulators, 2 weight vectors, 4 broadcasts.
template <std::size_t R>
inline void simd128_tile(const std::int16_t* a, std::size_t lda, const std::int8_t* w, std::size_t groups,
                         v128_t (&acc)[R][2]) {
#pragma GCC unroll 2
  for (std::size_t half = 0; half < 2; ++half) {
    v128_t part[R][2];
#pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r) part[r][0] = part[r][1] = wasm_i32x4_splat(0);
    const std::int16_t* a_g = a;
    for (const std::int8_t *w_g = w + 16 * half, *const w_end = w_g + groups * panel_bytes_per_group; w_g != w_end;
         w_g += panel_bytes_per_group, a_g += group) {
      const v128_t w01 = wasm_i16x8_load8x8(w_g), w23 = wasm_i16x8_load8x8(w_g + 8);
#pragma GCC unroll 8
      for (std::size_t r = 0; r < R; ++r) {
        const v128_t x = wasm_v128_load64_splat(a_g + r * lda);
        part[r][0] = wasm_i32x4_add(part[r][0], wasm_i32x4_dot_i16x8(w01, x));
        part[r][1] = wasm_i32x4_add(part[r][1], wasm_i32x4_dot_i16x8(w23, x));
      }
    }
#pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r)  // lanes (c0, c0, c1, c1), (c2, c2, c3, c3) -> (c0, c1, c2, c3)
      acc[r][half] = wasm_i32x4_add(wasm_i32x4_shuffle(part[r][0], part[r][1], 0, 2, 4, 6),
                                    wasm_i32x4_shuffle(part[r][0], part[r][1], 1, 3, 5, 7));
  }
}

template <std::size_t R, Int8Product product, class A>
inline void int8_tile(const A* a, std::size_t lda, const std::int8_t* w, std::size_t groups, const float* scales,
                      const std::int32_t* zero_points, const TileOutput& out) {
  v128_t acc[R][2];
  if constexpr (product == Int8Product::Simd128Dot) {
    simd128_tile<R>(a, lda, w, groups, acc);
  } else {
#if defined(__wasm_relaxed_simd__)
    relaxed_tile<R, product>(a, lda, w, groups, acc);
#endif
  }
  store_tile<R>(acc, scales, zero_points, out);
}

#else  // natively

template <std::size_t R, Int8Product product, class A>
inline void int8_tile(const A* a, std::size_t lda, const std::int8_t* w, std::size_t groups, const float* scales,
                      const std::int32_t* zero_points, const TileOutput& out) {
  std::int32_t acc[R][panel] = {};
  for (std::size_t g = 0; g < groups; ++g, w += panel_bytes_per_group)
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t c = 0; c < panel; ++c)
        for (std::size_t b = 0; b < group; ++b)
          acc[r][c] += static_cast<std::int32_t>(a[r * lda + g * group + b]) * w[c * group + b];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < panel; ++c)
      out.y[r * out.ldy + c] = dequantized(acc[r][c], zero_points[r], out.weight_sums[c], scales[r],
                                           out.weight_scales[c], out.bias ? out.bias + c : nullptr);
}

#endif

// One block of rows (at most block_rows), quantized into the scratch, against every panel.
template <Int8Product product>
void quantized_block(const float* x, const QuantizedWeightView& w, const float* bias, float* y, std::size_t rows,
                     OutputActivation act, void* scratch) {
  using A = ActivationType<product>;
  const BlockScratch<A> s(scratch, w.k);
  quantize_block(x, rows, w.k, s);
  const std::size_t groups = groups_of(w.k), full_panels = w.n / panel;
  for (std::size_t t = 0; t * panel < w.n; ++t) {
    const std::int8_t* w_panel = w.packed + t * groups * panel_bytes_per_group;
    const std::size_t j = t * panel, columns = std::min(panel, w.n - j);
    // the last panel's channels beyond n: computed into a tile of its own, then copied
    constexpr std::size_t rows_per_tile = tile_rows<product>;
    float last_tile[rows_per_tile * panel];
    float last_bias[panel] = {};
    if (bias && t == full_panels) std::copy(bias + j, bias + w.n, last_bias);
    const bool full = t < full_panels;
    auto tile = [&](auto R, std::size_t i) {
      const TileOutput out{full ? y + i * w.n + j : last_tile, full ? w.n : panel, w.scales + j, w.sums + j,
                           bias ? (full ? bias + j : last_bias) : nullptr};
      int8_tile<decltype(R)::value, product>(s.q + i * s.lda, s.lda, w_panel, groups, s.scales + i, s.zero_points + i,
                                             out);
      if (!full)
        for (std::size_t r = 0; r < R; ++r)
          std::copy(last_tile + r * panel, last_tile + r * panel + columns, y + (i + r) * w.n + j);
    };
    std::size_t i = 0;
    for (; i + rows_per_tile <= rows; i += rows_per_tile) tile(std::integral_constant<std::size_t, rows_per_tile>{}, i);
    register_tile::with_rows<rows_per_tile - 1>(rows - i, [&](auto R) { tile(R, i); });
    // the activation over the block's rows, a few panels' columns at a time: they are still in the
    // L1 cache, and each call covers enough values to keep the kernel's loop in its vector body
    const std::size_t end = j + columns;  // the columns done so far
    if (act != OutputActivation::None && (end == w.n || (t + 1) % activation_panels == 0)) {
      const std::size_t first = t / activation_panels * activation_panels * panel;
      for (std::size_t r = 0; r < rows; ++r) apply_activation(y + r * w.n + first, end - first, act);
    }
  }
}

template <Int8Product product>
void quantized_linear_blocks(const float* x, const QuantizedWeightView& w, const float* bias, float* y, std::size_t m,
                             OutputActivation act, void* scratch) {
  for (std::size_t i = 0; i < m; i += block_rows)
    quantized_block<product>(x + i * w.k, w, bias, y + i * w.n, std::min(block_rows, m - i), act, scratch);
}

#if defined(__wasm_relaxed_simd__)
// Read at run time: not folded by the compiler.
volatile std::int8_t probe_w = 127, probe_x = -1, exact_w = -5, exact_x = 100;

// i32x4.relaxed_dot_i8x16_i7x16_add(w x 16, x x 16, 0), first lane
__attribute__((noinline)) std::int32_t relaxed_dot_lane(std::int8_t w, std::int8_t x) {
  const v128_t dot =
      wasm_i32x4_relaxed_dot_i8x16_i7x16_add(wasm_i8x16_splat(w), wasm_i8x16_splat(x), wasm_i32x4_splat(0));
  return wasm_i32x4_extract_lane(dot, 0);
}

// Whether the engine's relaxed dot gives the exact sum within [0, 127]: 4 x -5 x 100 = -2000.
// Node 20's baseline compiler (Liftoff, V8 11.3) gives -4000 until the function is optimised
// (docs/performance.md); there the product is never used.
bool relaxed_dot_exact() {
  static const bool exact = relaxed_dot_lane(exact_w, exact_x) == -2000;
  return exact;
}
#endif

}  // namespace

std::size_t quantized_weight_bytes(std::size_t n, std::size_t k) { return round_up(n, panel) * groups_of(k) * group; }

std::size_t quantized_weight_channels(std::size_t n) { return round_up(n, panel); }

void quantize_weight_rows(const float* w, std::size_t first, std::size_t rows, std::size_t n, std::size_t k,
                          std::int8_t* packed, float* scales, std::int32_t* sums) {
  const std::size_t groups = groups_of(k);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t j = first + r;
    const float* w_j = w + r * k;
    const WeightQuantization row = weight_quantization(w_j, k);
    // the row's 4-byte groups lie 32 bytes apart in its panel: quantized a piece at a time into
    // a buffer, then spread (the padding of the last group zero)
    std::int8_t* out = packed + (j / panel) * groups * panel_bytes_per_group + (j % panel) * group;
    std::int32_t sum = 0;
    constexpr std::size_t piece = 256;  // values, whole groups
    std::int8_t q[piece];
    for (std::size_t p0 = 0; p0 < groups * group; p0 += piece) {
      const std::size_t count = std::min(piece, groups * group - p0), values = std::min(count, k - std::min(k, p0));
      quantize_weights(w_j + p0, values, row, q);
      std::fill(q + values, q + count, std::int8_t{0});
      for (std::size_t p = 0; p < count; ++p) sum += q[p];
      for (std::size_t g = 0; g < count / group; ++g)
        std::memcpy(out + (p0 / group + g) * panel_bytes_per_group, q + g * group, group);
    }
    scales[j] = row.scale;
    sums[j] = sum;
  }
  // the last panel's channels beyond n: zero weights, scales and sums
  if (first + rows == n && n % panel != 0) {
    for (std::size_t j = n; j < round_up(n, panel); ++j) {
      std::int8_t* out = packed + (j / panel) * groups * panel_bytes_per_group + (j % panel) * group;
      for (std::size_t g = 0; g < groups; ++g) std::memset(out + g * panel_bytes_per_group, 0, group);
      scales[j] = 0.0f;
      sums[j] = 0;
    }
  }
}

std::int8_t packed_weight_at(const std::int8_t* packed, std::size_t k, std::size_t j, std::size_t p) {
  const std::size_t groups = groups_of(k);
  return packed[((j / panel) * groups + p / group) * panel_bytes_per_group + (j % panel) * group + p % group];
}

std::int32_t relaxed_dot_lowering() {
#if defined(__wasm_relaxed_simd__)
  return relaxed_dot_lane(probe_w, probe_x);
#else
  return 0;
#endif
}

bool int8_product_available(Int8Product product) {
  switch (product) {
#if defined(__wasm_relaxed_simd__)
    case Int8Product::RelaxedDot:
      return relaxed_dot_exact();
    case Int8Product::RelaxedI16Dot:
      return true;
#endif
#if defined(__wasm_simd128__)
    case Int8Product::Simd128Dot:
      return true;
#else
    case Int8Product::Portable:
      return true;
#endif
    default:
      return false;
  }
}

Int8Product preferred_int8_product() {
#if defined(__wasm_relaxed_simd__)
  static const Int8Product chosen = [] {
    const std::int32_t lowering = relaxed_dot_lowering();
    const bool one_instruction = lowering == 129540 || lowering == -508;
    return one_instruction && relaxed_dot_exact() ? Int8Product::RelaxedDot : Int8Product::RelaxedI16Dot;
  }();
  return chosen;
#elif defined(__wasm_simd128__)
  return Int8Product::Simd128Dot;
#else
  return Int8Product::Portable;
#endif
}

std::size_t quantized_linear_scratch_bytes(std::size_t k) {
  const std::size_t a_bytes = int8_product_available(Int8Product::Simd128Dot) ? 2 : 1;  // the widest operand
  return round_up(block_rows * groups_of(k) * group * a_bytes, 16) +
         block_rows * (sizeof(float) + sizeof(std::int32_t));
}

void quantized_linear(const float* x, const QuantizedWeightView& w, const float* bias, float* y, std::size_t m,
                      OutputActivation act, void* scratch, Int8Product product) {
  if (!int8_product_available(product)) product = preferred_int8_product();
  switch (product) {
#if defined(__wasm_relaxed_simd__)
    case Int8Product::RelaxedDot:
      return quantized_linear_blocks<Int8Product::RelaxedDot>(x, w, bias, y, m, act, scratch);
    case Int8Product::RelaxedI16Dot:
      return quantized_linear_blocks<Int8Product::RelaxedI16Dot>(x, w, bias, y, m, act, scratch);
#endif
#if defined(__wasm_simd128__)
    case Int8Product::Simd128Dot:
      return quantized_linear_blocks<Int8Product::Simd128Dot>(x, w, bias, y, m, act, scratch);
#else
    case Int8Product::Portable:
      return quantized_linear_blocks<Int8Product::Portable>(x, w, bias, y, m, act, scratch);
#endif
    default:
      return;
  }
}

void quantized_linear_reference(const float* x, const QuantizedWeightView& w, const float* bias, float* y,
                                std::size_t m, OutputActivation act, void* scratch, Int8Product) {
  auto* q = static_cast<std::uint8_t*>(scratch);  // one row's u7 values
  for (std::size_t i = 0; i < m; ++i) {
    const ActivationQuantization a = quantize_activation_row_reference(x + i * w.k, w.k, q);
    for (std::size_t j = 0; j < w.n; ++j) {
      std::int64_t sum = 0;
      for (std::size_t p = 0; p < w.k; ++p)
        sum += (static_cast<std::int64_t>(q[p]) - a.zero_point) * packed_weight_at(w.packed, w.k, j, p);
      y[i * w.n + j] =
          dequantized(static_cast<std::int32_t>(sum), 0, 0, a.scale, w.scales[j], bias ? bias + j : nullptr);
    }
    apply_activation_reference(y + i * w.n, w.n, act);
  }
}

}  // namespace aw::kernels
