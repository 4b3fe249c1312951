// The int8 ("q8") linear layer: a weight quantized once per output channel (symmetric int8, packed
// for kernels/quantized_matmul) and y = x W^T + b with x quantized dynamically per row, over the
// thread pool. Validation here, arithmetic in kernels/quantize and kernels/quantized_matmul.
//
// What is quantized: the weight (out_features, in_features) to int8 with one scale per output
// channel, w ~ scale_j q; each row of the input to 7 bits with its own scale and zero point. The
// bias, the epilogue and the result stay float32.
#pragma once
#include <cstdint>
#include <string>

#include "core/tensor.hpp"
#include "kernels/quantized_matmul.hpp"

namespace aw {

// The most in_features an int8 layer takes: its int32 sums, up to k * 127 * 127, stay exact.
constexpr std::int64_t kMaxQuantizedInFeatures = std::int64_t{1} << 17;

// A linear layer's weight W (out_features, in_features), quantized and packed.
struct QuantizedLinearWeight {
  AlignedVector<std::int8_t> packed;  // kernels::quantized_weight_bytes(out, in)
  AlignedVector<float> scales;        // (out_features), padded to whole panels with 0
  AlignedVector<std::int32_t> sums;   // (out_features), padded likewise: sum_p q[j, p]
  std::int64_t out_features = 0, in_features = 0;

  QuantizedLinearWeight() = default;
  // Storage for a weight of that shape, its rows yet to be written with quantize_rows. Shape error
  // naming `where` for a negative or too large size (in_features > kMaxQuantizedInFeatures).
  QuantizedLinearWeight(std::int64_t out_features, std::int64_t in_features, const std::string& where);

  // Rows first .. first + rows - 1 of the float32 weight, (rows, in_features) at w, quantized
  // into place (kernels::quantize_weight_rows: any order, each row once).
  void quantize_rows(const float* w, std::size_t first, std::size_t rows);

  kernels::QuantizedWeightView view() const;
  Shape shape() const { return {out_features, in_features}; }
  std::size_t resident_bytes() const;  // packed + scales + sums
};

// W (out_features, in_features) float32 -> its int8 form.
QuantizedLinearWeight quantize_linear_weight(const TensorRef& weight);

// The float32 weight the int8 layer computes with: scales[j] * q[j, p], (out_features, in_features).
Tensor dequantize(const QuantizedLinearWeight& weight);

// torch.nn.functional.linear(input, weight, bias) with weight quantized: y = act(x W^T + b).
// input (..., in_features), bias (out_features) or null; the same checks and messages as linear.
Tensor quantized_linear(const TensorRef& input, const QuantizedLinearWeight& weight, const TensorRef* bias,
                        kernels::OutputActivation act = kernels::OutputActivation::None);

// The kernel kernels::quantized_linear with its scratch, the rows of the result split between the
// threads of core/parallel.hpp when the product is large enough (byte-identical to one thread):
// what a model's int8 layers call. x (m, in_features), bias (out_features) or nullptr,
// y (m, out_features); nothing is checked.
void quantized_linear_rows_parallel(const float* x, const QuantizedLinearWeight& weight, const float* bias, float* y,
                                    std::size_t m, kernels::OutputActivation act = kernels::OutputActivation::None);

}  // namespace aw
