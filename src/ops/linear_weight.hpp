// The one linear-weight abstraction that the transformer block calls: y = x W^T + b for a weight
// in whichever form it is held. A model packs (or quantizes) its weights once, at load, and its
// forward calls linear(weight, x, y, rows) without knowing the form.
//
//   Rows     W (out, in) row-major float32, as torch and the checkpoints store it: the torch-style
//            ops' weights (nn.TransformerEncoderLayer's tensors from JS). linear_rows_parallel.
//   Packed   W as kernels::linear_pack_weight packs it (panels of the register tile's columns):
//            pretrained weights, packed once at load. linear_packed_rows_parallel.
//
// The int8 form (q8: int8 weights per output channel, activations quantized per row, the ops'
// quantized_linear) is the third case of this switch: a LinearFormat::Q8 whose weight points at
// a QuantizedLinearWeight; nothing else in the block changes.
#pragma once
#include <cstddef>

namespace aw {

enum class LinearFormat { Rows, Packed };

struct LinearWeight {
  LinearFormat format = LinearFormat::Rows;
  const float* weight = nullptr;  // (out_features, in_features) in `format`
  const float* bias = nullptr;    // (out_features) or nullptr
  std::size_t out_features = 0, in_features = 0;
};

// y (rows, out_features) = x (rows, in_features) W^T + b, the rows split over the thread pool.
// y must not overlap x.
void linear(const LinearWeight& w, const float* x, float* y, std::size_t rows);

}  // namespace aw
