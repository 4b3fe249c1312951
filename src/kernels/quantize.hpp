// Quantization of float32 rows to the two integer operands of the int8 products
// (kernels/quantized_matmul.hpp):
//
//  - weights, symmetric per row (one output channel of a linear layer), int8 in [-127, 127]:
//      scale = max(max |w| / 127, max_quad |w|_1 / 256),   q = clamp(round(w / scale), -127, 127),
//      w ~ scale q
//    where a quad is four values of the row that the int8 kernel sums in int16 before widening
//    (kernels/quantized_matmul.hpp): in each block of 8 values, those at 0, 1, 4, 5 and at 2, 3,
//    6, 7, its sum |w|_1 taken as (|w_a| + |w_a+4|) + (|w_a+1| + |w_a+5|). Then every quad's
//    sum |q| is at most 256 + 4 x 1/2 = 258 (rounding adds at most a half per value), and its
//    products with u7 activations at most 127 x 258 = 32766 in magnitude: they fit int16. On
//    most rows max |w| decides; where a few large values share a quad the scale grows (the
//    rounding step with it) by what they exceed 256 / 127 ~ 2 max |w|.
//  - activations, dynamic and asymmetric per row (one token), u7 in [0, 127]:
//      lo = min(x, 0), hi = max(x, 0),   scale = (hi - lo) / 127,   zero_point = round(-lo / scale)
//      q = clamp(round(x / scale) + zero_point, 0, 127),   x ~ scale (q - zero_point)
//    ONNX's DynamicQuantizeLinear (onnx/defs/quantization: y_scale = (max(x, 0) - min(x, 0)) / 255)
//    with 127 levels rather than 255, per row rather than per tensor: 7 bits, so that the
//    activations fit the i7 operand of relaxed SIMD's integer dot product, which every engine
//    computes exactly within [0, 127] (ARM's sdot reads it signed, x86's pmaddubsw and vpdpbusd
//    unsigned; pmaddubsw's i16 pair sums cannot saturate: 2 * 127 * 127 < 32767).
//
// round() is round-half-to-even (the default rounding mode; f32x4.nearest in wasm), and the
// division is a multiplication by an inverse computed once per row: the SIMD kernels and their
// scalar references give the same bytes. A row holding NaN or an infinity gets scale NaN (and
// q = 0), so that everything computed from it is NaN: a NaN as in float32, an infinity where
// float32 would give +-inf in some outputs (a weight row: that output channel of every row; an
// activation row: that row's every output). Finite rows at
// float32's extremes keep finite constants: where 127 / range would overflow (a row under ~3.7e-37)
// the inverse is held at FLT_MAX and the scale at 1 / FLT_MAX (fewer levels, none wrong); where
// hi - lo overflows, scale = hi / 127 - lo / 127; where a quad's sum overflows, the weights' scale
// is max |w| / 64 (each quad's sum |q| at most 4 x 64).
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no particular
// alignment; outputs must not overlap inputs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aw::kernels {

// The scales of a row of activations: x ~ scale (q - zero_point).
struct ActivationQuantization {
  float scale = 0;
  std::int32_t zero_point = 0;  // in [0, 127]
};

// x (k) -> q (k), u7 in [0, 127]; returns the row's scale and zero point.
// The int16 form writes the same values widened (the SIMD128 product reads 16-bit operands).
ActivationQuantization quantize_activation_row(const float* x, std::size_t k, std::uint8_t* q);
ActivationQuantization quantize_activation_row(const float* x, std::size_t k, std::int16_t* q);
ActivationQuantization quantize_activation_row_reference(const float* x, std::size_t k, std::uint8_t* q);

// The 256 of the weights' scale above: the bound on a quad's sum |q| (up to rounding) that keeps
// quantized_matmul's int16 sums exact.
constexpr float weight_quad_limit = 256.0f;

// A row of weights' scale (w ~ scale q) as above, 0 for a row of zeros; and the factor that maps
// it to integers (127 / max |w| or 256 / max_quad |w|_1, whichever is smaller). Then its values
// (any part of the row, so that a long row can be quantized piece by piece) -> q, int8 in
// [-127, 127].
struct WeightQuantization {
  float scale = 0;
  float inverse = 0;
};
WeightQuantization weight_quantization(const float* w, std::size_t k);
WeightQuantization weight_quantization_reference(const float* w, std::size_t k);
void quantize_weights(const float* w, std::size_t count, const WeightQuantization& row, std::int8_t* q);
void quantize_weights_reference(const float* w, std::size_t count, const WeightQuantization& row, std::int8_t* q);
// The largest quad sum max_quad |w|_1 of a row (k values; beyond k, zeros), as defined above.
float max_quad_abs_sum(const float* w, std::size_t k);
float max_quad_abs_sum_reference(const float* w, std::size_t k);

}  // namespace aw::kernels
