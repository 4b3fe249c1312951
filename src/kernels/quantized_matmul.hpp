// The int8 linear layer: y = x W^T + bias with W quantized per output channel (symmetric int8) and
// x quantized dynamically per row (u7 with a zero point; kernels/quantize.hpp), the products
// summed exactly in int32, then an f32 epilogue (scales, bias, optionally an activation):
//
//   y[i, j] = act(float(sum_p (qx[i, p] - zx[i]) qw[j, p]) * (sx[i] * sw[j]) + bias[j])
//           = act(float(sum_p qx[i, p] qw[j, p] - zx[i] sum_p qw[j, p]) * (sx[i] * sw[j]) + bias[j])
//
// The integer sums are exact on every engine and CPU: qx in [0, 127] is the i7 operand of relaxed
// SIMD's dot product, whatever the engine lowers it to (kernels/quantize.hpp). The epilogue is
// plain IEEE multiplies and adds (no fused multiply-add, which engines may or may not fuse): one
// build gives the same bytes in every engine, and the relaxed-SIMD and SIMD128 builds give the
// same bytes as each other (the activations' own kernels aside).
//
// sx * sw is formed in float32, which bounds the layer's range below float32's: where a row's and
// a channel's largest magnitudes multiply to more than ~5.5e42 (127^2 FLT_MAX) it overflows (the
// output inf, or NaN where the integer sum is 0), and below ~1.9e-34 (127^2 FLT_MIN) it is
// subnormal and loses bits. Either order of the two multiplies fails somewhere at such extremes
// ((sum sx) sw overflows for large x and tiny w); trained models' values lie far inside.
//
// Weights are packed once (at quantization) for the register tiles: panels of 8 output channels,
// each 4 values of k of the 8 channels in 32 bytes:
//   packed[(t * groups + g) * 32 + c * 4 + b] = qw[8 t + c, 4 g + b],   groups = 2 ceil(k / 8),
// zero beyond n and k. scales and sums are padded with zeros to whole panels.
//
// Where the engine emulates relaxed SIMD's dot product (RelaxedI16Dot below), each group's
// products come as int16 pair sums (pmaddubsw), and the kernel adds two groups' (g even and g + 1)
// in int16 before widening them to int32 (pmaddwd), which halves the widening multiplies. Each
// int16 lane then holds a quad of products, k = 8h + {0, 1, 4, 5} or 8h + {2, 3, 6, 7}: the
// weights' quantization bounds every quad's sum |q| by 258 (kernels/quantize.hpp), so with qx in
// [0, 127] the lane stays within 127 x 258 = 32766 and the sums stay exact.
//
// Kernels never allocate, never throw and know nothing about JS. The inputs and y need no
// particular alignment, the scratch 16 bytes (it holds floats and int32s); y must not overlap any
// input or the scratch.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aw::kernels {

constexpr std::size_t int8_panel_columns = 8;  // output channels per panel
constexpr std::size_t int8_group = 4;          // values of k per 32-bit lane
// Rows a caller splitting a product between threads keeps together: a multiple of every product's
// register tile (6, 2 and 4 rows), so that each part runs whole tiles.
constexpr std::size_t int8_row_multiple = 12;

// Sizes of the packed weight (bytes) and of its scales and sums (elements, padded to whole panels).
std::size_t quantized_weight_bytes(std::size_t n, std::size_t k);
std::size_t quantized_weight_channels(std::size_t n);

// A quantized weight W (n, k) in the packed layout.
struct QuantizedWeightView {
  const std::int8_t* packed = nullptr;  // quantized_weight_bytes(n, k)
  const float* scales = nullptr;        // quantized_weight_channels(n): W[j, :] ~ scales[j] qw[j, :]
  const std::int32_t* sums = nullptr;   // quantized_weight_channels(n): sum_p qw[j, p]
  std::size_t n = 0, k = 0;
};

// Quantizes rows first .. first + rows - 1 of W (n, k) -- w holds them: (rows, k) row-major -- into
// the packed weight of all n rows (weight_quantization, quantize_weights: kernels/quantize.hpp),
// with their scales and sums. Writing row n - 1 also zeroes the padding of the last panel. Rows
// may come in any order, once each: a weight can be quantized as it streams in, a few rows at a
// time.
void quantize_weight_rows(const float* w, std::size_t first, std::size_t rows, std::size_t n, std::size_t k,
                          std::int8_t* packed, float* scales, std::int32_t* sums);
// qw[j, p] read back from the packed layout.
std::int8_t packed_weight_at(const std::int8_t* packed, std::size_t k, std::size_t j, std::size_t p);

// How the int8 products are computed. Every way gives the same integers; which is fastest depends
// on how the engine lowers relaxed SIMD's dot product on its CPU (scripts/int8-probe.mjs):
//  - RelaxedDot:     i32x4.relaxed_dot_i8x16_i7x16_add (one instruction where it is AVX-VNNI's
//                    vpdpbusd or ARM's sdot; three where it is emulated with pmaddubsw);
//  - RelaxedI16Dot:  i16x8.relaxed_dot_i8x16_i7x16 twice, i16x8.add, i32x4.extadd_pairwise_i16x8_s,
//                    i32x4.add per two groups (pmaddubsw x 2, paddw, pmaddwd, paddd: faster where
//                    the one above is emulated);
//  - Simd128Dot:     i32x4.dot_i16x8_s on the weights widened as they load (every wasm SIMD engine);
//  - Portable:       plain loops (native builds, which only test the kernels).
enum class Int8Product { RelaxedDot, RelaxedI16Dot, Simd128Dot, Portable };
// Whether this build has it (RelaxedDot: and the engine computes it exactly; Node 20's baseline
// compiler does not).
bool int8_product_available(Int8Product product);
// This build's choice on this engine: RelaxedDot where the relaxed dot is one instruction
// (relaxed_dot_lowering() gives 129540 or -508) and exact, else RelaxedI16Dot; Simd128Dot
// in the SIMD128 build, Portable natively.
Int8Product preferred_int8_product();
// i32x4.relaxed_dot_i8x16_i7x16_add(127 x 16, -1 x 16, 0)'s first lane: 129540 where the i7
// operand is read unsigned without saturation (AVX-VNNI), 65534 unsigned with pmaddubsw's
// saturation, -508 signed (ARM sdot, AVX-VNNI-INT8); 0 where the build has no relaxed SIMD.
std::int32_t relaxed_dot_lowering();

enum class OutputActivation { None, Relu, Gelu, GeluTanh };  // kernels/activation.hpp's

// Scratch for quantized_linear: the quantized activations of a block of rows, and their scales.
std::size_t quantized_linear_scratch_bytes(std::size_t k);

// y = act(x W^T + bias) as above. x (m, k), w (n, k) quantized, bias (n) or nullptr, y (m, n);
// scratch: quantized_linear_scratch_bytes(k) bytes, 16-byte aligned, contents ignored. Rows are independent: a
// product split by rows gives the same bytes. The activation is kernels/activation.hpp's, run over
// 64 columns of each row at a time while they are in the cache: the same bytes as running it over
// each row of the result afterwards.
void quantized_linear(const float* x, const QuantizedWeightView& w, const float* bias, float* y, std::size_t m,
                      OutputActivation act, void* scratch, Int8Product product = preferred_int8_product());
// The scalar twin: each row quantized by quantize_activation_row_reference, each sum computed
// directly as sum_p (qx - zx) qw in int64, the same epilogue (and the activations' references).
void quantized_linear_reference(const float* x, const QuantizedWeightView& w, const float* bias, float* y,
                                std::size_t m, OutputActivation act, void* scratch,
                                Int8Product product = preferred_int8_product());

}  // namespace aw::kernels
