// The one linear-weight abstraction that the transformer block calls: y = x W^T + b for a weight
// in whichever form it is held. A model packs (or quantizes) its weights once, at load, and its
// forward calls linear(weight, x, y, rows) without knowing the form.
//
//   Rows     W (out, in) row-major float32, as torch and the checkpoints store it: the torch-style
//            ops' weights (nn.TransformerEncoderLayer's tensors from JS). linear_rows_parallel.
//   Packed   W as kernels::linear_pack_weight packs it (panels of the register tile's columns):
//            pretrained weights, packed once at load. linear_packed_rows_parallel.
//
//   Q8       int8 per output channel, packed for the int8 kernels (ops/quantized_linear: the
//            input quantized per row, exact int32 sums, a float32 epilogue): A.quantize's
//            weights and q8 models. quantized_linear_rows_parallel.
#pragma once
#include <cstddef>

#include "ops/quantized_linear.hpp"

namespace aw {

enum class LinearFormat { Rows, Packed, Q8 };

struct LinearWeight {
  LinearFormat format = LinearFormat::Rows;
  const float* weight = nullptr;  // (out_features, in_features) in `format` (Rows, Packed)
  const float* bias = nullptr;    // (out_features) or nullptr
  std::size_t out_features = 0, in_features = 0;
  const QuantizedLinearWeight* q8 = nullptr;  // Q8: the weight (of those sizes)

  bool present() const { return weight || q8; }  // a weight in either form (not none)
};

// y (rows, out_features) = x (rows, in_features) W^T + b, the rows split over the thread pool.
// y must not overlap x.
void linear(const LinearWeight& w, const float* x, float* y, std::size_t rows);

}  // namespace aw
