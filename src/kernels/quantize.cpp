// Row quantization: xsimd kernels and their scalar references. See quantize.hpp.
#include "kernels/quantize.hpp"

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/simd.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace aw::kernels {
namespace {

using simd::batch;
using simd::lanes;

constexpr float not_a_number = std::numeric_limits<float>::quiet_NaN();

// How a row's values map to integers: q = clamp(round(x * inverse) + offset, low, high).
struct RowMapping {
  float scale;    // x ~ scale (q - offset)
  float inverse;  // 1 / scale (127 / range), 0 where the row maps to offset only
  float offset;   // the zero point, an integer
  float low, high;
};

constexpr float largest_float = std::numeric_limits<float>::max();

// A row whose extremes are under ~3.7e-37 (127 / FLT_MAX) would get an inverse of +inf, and its
// zeros NaN (0 * inf): the inverse is held at FLT_MAX and the scale at its reciprocal instead, so
// such a row's integers stay under 127 (all 0 under 1 / FLT_MAX), never garbage.
RowMapping with_finite_inverse(RowMapping m) {
  if (m.inverse <= largest_float) return m;
  m.inverse = largest_float;
  m.scale = 1.0f / largest_float;
  return m;
}

// One scalar function for the per-row constants, shared by the kernels and the references.
// lo <= 0 <= hi are the row's extremes; `finite`: no NaN or infinity in the row.
RowMapping activation_mapping(float lo, float hi, bool finite) {
  if (!finite) return {not_a_number, 0.0f, 0.0f, 0.0f, 127.0f};
  const float range = hi - lo;
  if (range == 0.0f) return {0.0f, 0.0f, 0.0f, 0.0f, 127.0f};  // a row of zeros: q = 0
  RowMapping m{range / 127.0f, 127.0f / range, 0.0f, 0.0f, 127.0f};
  if (range > largest_float) {  // hi - lo overflowed; hi / 127 - lo / 127 cannot
    m.scale = hi / 127.0f - lo / 127.0f;
    m.inverse = 1.0f / m.scale;
  }
  m = with_finite_inverse(m);
  const float zero_point = std::nearbyint(-lo * m.inverse);  // in [0, 127] up to rounding
  m.offset = zero_point < 0.0f ? 0.0f : zero_point > 127.0f ? 127.0f : zero_point;
  return m;
}

// max_quad: the row's max_quad_abs_sum (quantize.hpp)
RowMapping weight_mapping(float max_abs, float max_quad, bool finite) {
  if (!finite) return {not_a_number, 0.0f, 0.0f, -127.0f, 127.0f};
  if (max_abs == 0.0f) return {0.0f, 0.0f, 0.0f, -127.0f, 127.0f};  // a row of zeros: q = 0
  const float by_value = max_abs / 127.0f, by_quad = max_quad / weight_quad_limit;
  // a quad's sum that overflowed (values near FLT_MAX) is at most 4 max |w|: q = w * 64 / max |w|
  if (max_quad > largest_float) return {max_abs / 64.0f, 64.0f / max_abs, 0.0f, -127.0f, 127.0f};
  if (by_quad > by_value) return with_finite_inverse({by_quad, weight_quad_limit / max_quad, 0.0f, -127.0f, 127.0f});
  return with_finite_inverse({by_value, 127.0f / max_abs, 0.0f, -127.0f, 127.0f});
}

// The two quads of the block of 8 values at w, as quantize.hpp defines their sums.
struct QuadSums {
  float first, second;  // values 0, 1, 4, 5 and 2, 3, 6, 7
};
QuadSums quad_sums(const float* w) {
  const auto a = [&](std::size_t i) { return std::fabs(w[i]) + std::fabs(w[i + 4]); };
  return {a(0) + a(1), a(2) + a(3)};
}

// The tail of a row (fewer than 8 values) as a block padded with zeros.
QuadSums tail_quad_sums(const float* w, std::size_t count) {
  float block[8] = {};
  for (std::size_t i = 0; i < count; ++i) block[i] = w[i];
  return quad_sums(block);
}

// max(m, the block's two sums), by comparisons (which never select a NaN)
float max_of(float m, const QuadSums& s) {
  m = s.first > m ? s.first : m;
  return s.second > m ? s.second : m;
}

// The integer of one value, as a float: round-half-even, then clamped by comparisons (a NaN
// product, from a non-finite row, lands on `low`). Scalar twin of quantized_batch.
float quantized_scalar(float x, const RowMapping& m) {
  float t = std::nearbyint(x * m.inverse) + m.offset;
  t = t > m.low ? t : m.low;
  return t < m.high ? t : m.high;
}

// f32x4.nearest in wasm (xsimd's wasm arch has no nearbyint and would emulate it).
inline batch round_half_even(batch v) {
#if defined(__wasm_simd128__)
  return batch(wasm_f32x4_nearest(v));
#else
  return xsimd::nearbyint(v);
#endif
}

inline batch quantized_batch(batch x, const RowMapping& m) {
  batch t = round_half_even(x * batch(m.inverse)) + batch(m.offset);
  t = xsimd::select(t > batch(m.low), t, batch(m.low));
  return xsimd::select(t < batch(m.high), t, batch(m.high));
}

// 16 values, integers held as floats within the output type's range, stored as Out.
constexpr std::size_t group = 16;
static_assert(group % lanes == 0, "whole vectors per group");

template <class Out>
inline void store_group(const batch (&t)[group / lanes], Out* q) {
#if defined(__wasm_simd128__)
  // f32 -> i32 (exact: integral values), then narrowed with saturation (which never bites: the
  // values are in range) to i16 and, for bytes, to i8 / u8
  v128_t i32[4];
  for (std::size_t j = 0; j < 4; ++j) i32[j] = wasm_i32x4_trunc_sat_f32x4(t[j]);
  const v128_t lo = wasm_i16x8_narrow_i32x4(i32[0], i32[1]), hi = wasm_i16x8_narrow_i32x4(i32[2], i32[3]);
  if constexpr (std::is_same_v<Out, std::int16_t>) {
    wasm_v128_store(q, lo);
    wasm_v128_store(q + 8, hi);
  } else if constexpr (std::is_same_v<Out, std::int8_t>) {
    wasm_v128_store(q, wasm_i8x16_narrow_i16x8(lo, hi));
  } else {
    wasm_v128_store(q, wasm_u8x16_narrow_i16x8(lo, hi));
  }
#else
  // natively (the tests' build) lane by lane
  alignas(64) float values[group];
  for (std::size_t j = 0; j < group / lanes; ++j) t[j].store_aligned(values + j * lanes);
  for (std::size_t i = 0; i < group; ++i) q[i] = static_cast<Out>(values[i]);
#endif
}

// q[i] = quantized x[i] for i < k
template <class Out>
void quantize_values(const float* x, std::size_t k, const RowMapping& m, Out* q) {
  simd::vector_then_scalar<group>(
      k,
      [&](std::size_t i) {
        batch t[group / lanes];
        for (std::size_t j = 0; j < group / lanes; ++j)
          t[j] = quantized_batch(batch::load_unaligned(x + i + j * lanes), m);
        store_group(t, q + i);
      },
      [&](std::size_t i) { q[i] = static_cast<Out>(quantized_scalar(x[i], m)); });
}

template <class Out>
void quantize_values_reference(const float* x, std::size_t k, const RowMapping& m, Out* q) {
  for (std::size_t i = 0; i < k; ++i) q[i] = static_cast<Out>(quantized_scalar(x[i], m));
}

// The row's extremes min(x, 0), max(x, 0) (or max |x|), and whether it is finite: x - x is 0 for
// a finite x and NaN otherwise, and a sum of them is NaN if any is. The extremes are kept by
// comparisons, which never select a NaN.
struct Extremes {
  float lo = 0, hi = 0;
  bool finite = true;
};

Extremes extremes(const float* x, std::size_t k) {
  batch lo_v(0.0f), hi_v(0.0f), nonfinite_v(0.0f);
  Extremes e;
  float nonfinite = 0.0f;
  simd::vector_then_scalar(
      k,
      [&](std::size_t i) {
        const batch v = batch::load_unaligned(x + i);
        lo_v = xsimd::select(v < lo_v, v, lo_v);
        hi_v = xsimd::select(v > hi_v, v, hi_v);
        nonfinite_v += v - v;
      },
      [&] {
        e.lo = xsimd::reduce_min(lo_v);
        e.hi = xsimd::reduce_max(hi_v);
        nonfinite = xsimd::reduce_add(nonfinite_v);
      },
      [&](std::size_t i) {
        e.lo = x[i] < e.lo ? x[i] : e.lo;
        e.hi = x[i] > e.hi ? x[i] : e.hi;
        nonfinite += x[i] - x[i];
      });
  e.finite = nonfinite == 0.0f;
  return e;
}

Extremes extremes_reference(const float* x, std::size_t k) {
  Extremes e;
  for (std::size_t i = 0; i < k; ++i) {
    e.lo = x[i] < e.lo ? x[i] : e.lo;
    e.hi = x[i] > e.hi ? x[i] : e.hi;
    e.finite = e.finite && std::isfinite(x[i]);
  }
  return e;
}

float max_abs(const Extremes& e) { return -e.lo > e.hi ? -e.lo : e.hi; }

template <class Out>
ActivationQuantization quantize_activation(const float* x, std::size_t k, Out* q) {
  const Extremes e = extremes(x, k);
  const RowMapping m = activation_mapping(e.lo, e.hi, e.finite);
  quantize_values(x, k, m, q);
  return {m.scale, static_cast<std::int32_t>(m.offset)};
}

}  // namespace

ActivationQuantization quantize_activation_row(const float* x, std::size_t k, std::uint8_t* q) {
  return quantize_activation(x, k, q);
}

ActivationQuantization quantize_activation_row(const float* x, std::size_t k, std::int16_t* q) {
  return quantize_activation(x, k, q);
}

ActivationQuantization quantize_activation_row_reference(const float* x, std::size_t k, std::uint8_t* q) {
  const Extremes e = extremes_reference(x, k);
  const RowMapping m = activation_mapping(e.lo, e.hi, e.finite);
  quantize_values_reference(x, k, m, q);
  return {m.scale, static_cast<std::int32_t>(m.offset)};
}

float max_quad_abs_sum(const float* w, std::size_t k) {
  float m = 0.0f;
  std::size_t i = 0;
#if defined(__wasm_simd128__)
  // a = |w[0:4]| + |w[4:8]|, then a + a with its lanes' pairs swapped: (quad 0, quad 0, quad 1,
  // quad 1), each sum in quad_sums' order (the additions commute exactly)
  v128_t m_v = wasm_f32x4_splat(0.0f);
  for (; i + 8 <= k; i += 8) {
    const v128_t a = wasm_f32x4_add(wasm_f32x4_abs(wasm_v128_load(w + i)), wasm_f32x4_abs(wasm_v128_load(w + i + 4)));
    const v128_t s = wasm_f32x4_add(a, wasm_i32x4_shuffle(a, a, 1, 0, 3, 2));
    m_v = wasm_v128_bitselect(s, m_v, wasm_f32x4_gt(s, m_v));
  }
  m = max_of(m, {wasm_f32x4_extract_lane(m_v, 0), wasm_f32x4_extract_lane(m_v, 2)});
#endif
  for (; i + 8 <= k; i += 8) m = max_of(m, quad_sums(w + i));
  if (i < k) m = max_of(m, tail_quad_sums(w + i, k - i));
  return m;
}

float max_quad_abs_sum_reference(const float* w, std::size_t k) {
  float m = 0.0f;
  for (std::size_t i = 0; i < k; i += 8) m = max_of(m, i + 8 <= k ? quad_sums(w + i) : tail_quad_sums(w + i, k - i));
  return m;
}

WeightQuantization weight_quantization(const float* w, std::size_t k) {
  const Extremes e = extremes(w, k);
  const RowMapping m = weight_mapping(max_abs(e), max_quad_abs_sum(w, k), e.finite);
  return {m.scale, m.inverse};
}

WeightQuantization weight_quantization_reference(const float* w, std::size_t k) {
  const Extremes e = extremes_reference(w, k);
  const RowMapping m = weight_mapping(max_abs(e), max_quad_abs_sum_reference(w, k), e.finite);
  return {m.scale, m.inverse};
}

void quantize_weights(const float* w, std::size_t count, const WeightQuantization& row, std::int8_t* q) {
  quantize_values(w, count, RowMapping{row.scale, row.inverse, 0.0f, -127.0f, 127.0f}, q);
}

void quantize_weights_reference(const float* w, std::size_t count, const WeightQuantization& row, std::int8_t* q) {
  quantize_values_reference(w, count, RowMapping{row.scale, row.inverse, 0.0f, -127.0f, 127.0f}, q);
}

}  // namespace aw::kernels
