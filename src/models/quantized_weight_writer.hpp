// A linear layer's weight quantized to int8 as the checkpoint streams past: the F32 / F16 / BF16
// bytes of W (out_features, in_features), row-major and little-endian as safetensors stores them,
// arrive in order in chunks of any size (an element may be split between two chunks). Each row is
// decoded into a buffer of one row of float32 and quantized into the packed weight as soon as it
// is complete (ops/quantized_linear.hpp), so that the float32 weight never exists in full: a q8
// load holds the int8 model plus one row per layer being read.
//
// A weight stored transposed, (in_features, out_features) (GPT-2's Conv1D), has each output
// channel spread over the whole tensor: it is decoded whole into float32 (one tensor, not the
// model), then quantized channel by channel.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/tensor.hpp"
#include "models/weight_stream.hpp"
#include "ops/quantized_linear.hpp"

namespace aw {

class QuantizedWeightWriter {
 public:
  // target: storage for the weight's shape (QuantizedLinearWeight(out, in, ...)), written here;
  // name: the tensor, for messages; transposed: stored (in_features, rows). The tensor fills
  // target's rows first_row .. first_row + rows - 1 (a part of a fused weight: q, k or v; rows
  // kAllRows: from first_row to the last).
  static constexpr std::size_t kAllRows = ~std::size_t{0};
  QuantizedWeightWriter(WeightDtype dtype, QuantizedLinearWeight& target, std::string name, bool transposed = false,
                        std::size_t first_row = 0, std::size_t rows = kAllRows);

  // The next n bytes of the tensor's data. Range error naming the tensor (nothing written) if
  // they run past its end.
  void write(const std::uint8_t* bytes, std::size_t n);

  std::uint64_t bytes_written() const { return written_; }
  std::uint64_t total_bytes() const { return total_; }
  bool complete() const { return written_ == total_; }

 private:
  void allocate();
  void decoded(std::size_t count);

  WeightDtype dtype_;
  QuantizedLinearWeight& target_;
  std::string name_;
  std::uint64_t written_ = 0, total_ = 0;
  bool transposed_ = false;
  AlignedVector<float> stored_;           // the row being read (in_features floats), or the transposed tensor
  AlignedVector<float> channel_;          // transposed: one output channel gathered (in_features floats)
  std::size_t first_row_ = 0, rows_ = 0;  // the target's rows the tensor fills
  std::size_t row_index_ = 0;             // the row being read (of the target)
  std::size_t filled_ = 0;                // floats of stored_ decoded so far
  std::uint8_t partial_[4] = {};          // the bytes of an element split by a chunk boundary
  std::size_t partial_bytes_ = 0;
};

}  // namespace aw
