// Reading a checkpoint's tensors into the resident float32 arena as the file streams past:
// the bytes of a safetensors data section arrive in chunks (each tensor's bytes in order, any
// chunk boundaries, possibly splitting an element), and each element is converted to float32
// once, at load (F16 and BF16 widened exactly; safetensors is little-endian).
//
// safetensors format: https://github.com/huggingface/safetensors (safetensors/src/tensor.rs:
// Dtype, TensorInfo.data_offsets relative to the start of the data section).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aw {

class QuantizedWeightWriter;  // models/quantized_weight_writer.hpp

enum class WeightDtype { F32, F16, BF16 };

// "F32" / "F16" / "BF16" -> dtype; throws aw::Error (Type) naming `where` for any other name.
WeightDtype parse_weight_dtype(const std::string& name, const std::string& where);
std::size_t dtype_bytes(WeightDtype dtype);  // 4, 2, 2

// IEEE 754 binary16 -> binary32 (exact: subnormals, infinities and NaN payloads kept).
float half_to_float(std::uint16_t bits);
// bfloat16 -> binary32: the upper 16 bits of a float32.
float bfloat16_to_float(std::uint16_t bits);

// count little-endian elements of `dtype` at src (any alignment) -> count floats at dst.
void decode_weights(WeightDtype dtype, const std::uint8_t* src, float* dst, std::size_t count);

// One tensor to read: bytes [begin, end) of the data section, (end - begin) / dtype_bytes
// elements written to dst; transposed: the elements are a (rows, cols) matrix written to dst as
// its (cols, rows) transpose (GPT-2's Conv1D weights, stored (in, out)). Or, with `quantized`
// set, the bytes go to that writer (a q8 model's linear weight, quantized as it streams in)
// instead of dst.
struct WeightTarget {
  std::string name;  // for messages
  WeightDtype dtype = WeightDtype::F32;
  std::uint64_t begin = 0, end = 0;
  float* dst = nullptr;
  bool transposed = false;
  std::size_t rows = 0, cols = 0;  // the stored shape, when transposed
  QuantizedWeightWriter* quantized = nullptr;
};

class WeightStream {
 public:
  // Targets must not overlap (checked: Shape error naming both) and each must hold whole
  // elements (checked: Shape error); they are kept in file order.
  explicit WeightStream(std::vector<WeightTarget> targets);

  // The data-section bytes [offset, offset + n). Bytes outside every target are skipped. Within
  // a target the bytes must continue exactly where the previous write stopped (Range error
  // naming the tensor otherwise: nothing is written).
  void write(std::uint64_t offset, const std::uint8_t* bytes, std::size_t n);

  // The first target not yet written in full, or nullptr when every one is.
  const WeightTarget* first_incomplete() const;
  std::uint64_t bytes_written(const WeightTarget& target) const;

 private:
  struct State {
    WeightTarget target;
    std::uint64_t written = 0;     // bytes of the target received so far
    std::uint8_t partial[4] = {};  // the bytes of an element split by a chunk boundary
  };
  std::vector<State> states_;  // sorted by begin
  static void store(const WeightTarget& t, const std::uint8_t* src, std::size_t first, std::size_t count);
};

}  // namespace aw
