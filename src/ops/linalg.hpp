// Matrix products with torch's semantics: validation and broadcasting here, arithmetic in
// kernels/matmul.
#pragma once
#include <string>

#include "core/tensor.hpp"

namespace aw {

// torch.matmul(input, other): 1-D x 1-D is a dot product (shape []), a 1-D operand gets a
// dimension prepended (input) or appended (other) that is removed afterwards, and the leading
// (batch) dims of both broadcast.
Tensor matmul(const TensorRef& input, const TensorRef& other);

// torch.nn.functional.linear(input, weight, bias): y = x W^T + b.
// input (..., in_features), weight (out_features, in_features), or (in_features) (the result
// without its last dimension; no bias), bias (out_features), [] (added to every output) or null.
Tensor linear(const TensorRef& input, const TensorRef& weight, const TensorRef* bias);

// linear's shapes (and the int8 linear's, ops/quantized_linear): input x (..., in_features), weight
// w (out_features, in_features) or (in_features), bias (out_features), [] or null (with a 1-D
// weight null) -> the result's (..., out_features), or (...) for a 1-D weight. A mismatch is an
// Error naming the three shapes, the weight's followed by weight_note (" (int8)").
Shape linear_result_shape(const Shape& x, const Shape& w, const Shape* bias, const std::string& weight_note = "");

// linear's bias as the kernels take it, n values: the tensor's own, or a [] bias repeated into
// storage (torch broadcasts it over the output features); null without a bias.
const float* linear_bias(const TensorRef* bias, std::size_t n, AlignedVector<float>& storage);

// The kernels kernels::matmul / kernels::linear / kernels::linear_packed (kernels/matmul.hpp,
// same arguments, scratch found here), with the rows of the result split between the threads of
// core/parallel.hpp when the product is large enough. Rows are independent in the kernels, so
// the result is byte-identical to one thread.
void matmul_rows_parallel(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n);
void linear_rows_parallel(const float* x, const float* w, const float* bias, float* y, std::size_t m, std::size_t k,
                          std::size_t n);
void linear_packed_rows_parallel(const float* x, const float* w_packed, const float* bias, float* y, std::size_t m,
                                 std::size_t k, std::size_t n);

}  // namespace aw
