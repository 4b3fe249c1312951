// Streaming int8 quantization of a weight. See quantized_weight_writer.hpp.
#include "models/quantized_weight_writer.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "core/error.hpp"

namespace aw {

QuantizedWeightWriter::QuantizedWeightWriter(WeightDtype dtype, QuantizedLinearWeight& target, std::string name)
    : dtype_(dtype), target_(target), name_(std::move(name)) {
  const auto rows = static_cast<std::uint64_t>(target.out_features);
  const auto k = static_cast<std::uint64_t>(target.in_features);
  total_ = rows * k * dtype_bytes(dtype);
  try {
    row_.resize(static_cast<std::size_t>(k));
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::Range, "tensor '" + name_ + "': out of memory for one row of " + std::to_string(k) + " floats");
  }
  // rows of no values have no bytes to wait for
  if (k == 0) target_.quantize_rows(row_.data(), 0, static_cast<std::size_t>(rows));
}

void QuantizedWeightWriter::write(const std::uint8_t* bytes, std::size_t n) {
  if (n > total_ - written_)
    fail(ErrorKind::Range, "tensor '" + name_ + "': " + std::to_string(n) + " more bytes after " +
                               std::to_string(written_) + " run past its " + std::to_string(total_));
  const std::size_t size = dtype_bytes(dtype_), k = row_.size();
  // one element at a time across a chunk boundary, else whole runs of elements up to the row's end
  auto decoded = [&](std::size_t count) {
    row_filled_ += count;
    if (row_filled_ == k) {  // a whole row: quantized into place
      target_.quantize_rows(row_.data(), row_index_, 1);
      ++row_index_;
      row_filled_ = 0;
    }
  };
  written_ += n;
  while (n > 0) {
    if (partial_bytes_ > 0 || n < size) {  // an element split by a chunk boundary
      const std::size_t take = std::min(size - partial_bytes_, n);
      std::memcpy(partial_ + partial_bytes_, bytes, take);
      partial_bytes_ += take, bytes += take, n -= take;
      if (partial_bytes_ == size) {
        decode_weights(dtype_, partial_, row_.data() + row_filled_, 1);
        partial_bytes_ = 0;
        decoded(1);
      }
      continue;
    }
    const std::size_t count = std::min(n / size, k - row_filled_);
    decode_weights(dtype_, bytes, row_.data() + row_filled_, count);
    bytes += count * size, n -= count * size;
    decoded(count);
  }
}

}  // namespace aw
