// The int8 linear op: validation, the weight's storage, the row split. See quantized_linear.hpp.
#include "ops/quantized_linear.hpp"

#include <new>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "kernels/quantized_matmul.hpp"
#include "ops/linalg.hpp"

namespace aw {

QuantizedLinearWeight::QuantizedLinearWeight(std::int64_t out, std::int64_t in, const std::string& where)
    : out_features(out), in_features(in) {
  const std::string shape = "[" + std::to_string(out) + ", " + std::to_string(in) + "]";
  if (out < 0 || in < 0) fail(ErrorKind::Shape, where + ": weight " + shape + " has a negative size");
  if (in > kMaxQuantizedInFeatures)
    fail(ErrorKind::Range, where + ": weight " + shape + " has in_features " + std::to_string(in) + ", more than the " +
                               std::to_string(kMaxQuantizedInFeatures) + " an int8 layer sums exactly in 32 bits");
  checked_numel({out, in}, where + ": weight");
  const auto n = static_cast<std::size_t>(out), k = static_cast<std::size_t>(in);
  try {
    packed.resize(kernels::quantized_weight_bytes(n, k));
    scales.resize(kernels::quantized_weight_channels(n));
    sums.resize(kernels::quantized_weight_channels(n));
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::Range, where + ": out of memory for an int8 weight " + shape);
  }
}

void QuantizedLinearWeight::quantize_rows(const float* w, std::size_t first, std::size_t rows) {
  kernels::quantize_weight_rows(w, first, rows, static_cast<std::size_t>(out_features),
                                static_cast<std::size_t>(in_features), packed.data(), scales.data(), sums.data());
}

kernels::QuantizedWeightView QuantizedLinearWeight::view() const {
  return {packed.data(), scales.data(), sums.data(), static_cast<std::size_t>(out_features),
          static_cast<std::size_t>(in_features)};
}

std::size_t QuantizedLinearWeight::resident_bytes() const {
  return packed.size() + scales.size() * sizeof(float) + sums.size() * sizeof(std::int32_t);
}

QuantizedLinearWeight quantize_linear_weight(const TensorRef& weight) {
  if (weight.shape.size() != 2)
    fail(ErrorKind::Shape, "quantize: weight must be 2-D (out_features, in_features), got " + shape_str(weight.shape));
  QuantizedLinearWeight q(weight.shape[0], weight.shape[1], "quantize");
  q.quantize_rows(weight.data, 0, static_cast<std::size_t>(weight.shape[0]));
  return q;
}

Tensor dequantize(const QuantizedLinearWeight& weight) {
  Tensor out = make_uninitialised_tensor(weight.shape(), "dequantize: result");
  const auto n = static_cast<std::size_t>(weight.out_features), k = static_cast<std::size_t>(weight.in_features);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t p = 0; p < k; ++p)
      out.data[j * k + p] = weight.scales[j] * kernels::packed_weight_at(weight.packed.data(), k, j, p);
  return out;
}

void quantized_linear_rows_parallel(const float* x, const QuantizedLinearWeight& weight, const float* bias, float* y,
                                    std::size_t m, kernels::OutputActivation act) {
  const auto k = static_cast<std::size_t>(weight.in_features), n = static_cast<std::size_t>(weight.out_features);
  const std::size_t scratch_bytes = kernels::quantized_linear_scratch_bytes(k);
  AlignedVector<unsigned char> scratch(scratch_bytes * thread_count());
  const kernels::QuantizedWeightView w = weight.view();
  split_rows(
      m, k, n,
      [&](std::size_t begin, std::size_t end, std::size_t worker) {
        kernels::quantized_linear(x + begin * k, w, bias, y + begin * n, end - begin, act,
                                  scratch.data() + worker * scratch_bytes);
      },
      kernels::int8_row_multiple);
}

Tensor quantized_linear(const TensorRef& input, const QuantizedLinearWeight& weight, const TensorRef* bias,
                        kernels::OutputActivation act) {
  const Shape out_shape = linear_result_shape(input.shape, weight.shape(), bias ? &bias->shape : nullptr, " (int8)");
  Tensor out = make_uninitialised_tensor(out_shape, "linear: result");
  const auto N = static_cast<std::size_t>(weight.out_features);
  const std::size_t M = N == 0 ? 0 : out.data.size() / N;
  if (M * N == 0) return out;
  AlignedVector<float> repeated;
  quantized_linear_rows_parallel(input.data, weight, linear_bias(bias, N, repeated), out.data.data(), M, act);
  return out;
}

}  // namespace aw
