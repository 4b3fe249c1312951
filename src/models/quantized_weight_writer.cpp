// Streaming int8 quantization of a weight. See quantized_weight_writer.hpp.
#include "models/quantized_weight_writer.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "core/error.hpp"

namespace aw {

QuantizedWeightWriter::QuantizedWeightWriter(WeightDtype dtype, QuantizedLinearWeight& target, std::string name,
                                             bool transposed, std::size_t first_row, std::size_t rows)
    : dtype_(dtype), target_(target), name_(std::move(name)), transposed_(transposed) {
  const auto out = static_cast<std::size_t>(target.out_features);
  const auto k = static_cast<std::size_t>(target.in_features);
  first_row_ = std::min(first_row, out);
  rows = std::min(rows, out - first_row_);
  rows_ = rows;
  row_index_ = first_row_;
  total_ = static_cast<std::uint64_t>(rows) * k * dtype_bytes(dtype);
  // rows of no values have no bytes to wait for
  if (k == 0) target_.quantize_rows(nullptr, first_row_, rows);
}

// The float32 buffer, when the first bytes arrive (a model's writers are made together, before
// any byte is read: a transposed tensor's buffer exists only while that tensor streams in).
void QuantizedWeightWriter::allocate() {
  const auto k = static_cast<std::size_t>(target_.in_features);
  try {
    stored_.resize(transposed_ ? rows_ * k : k);
    if (transposed_) channel_.resize(k);
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::Range, "tensor '" + name_ + "': out of memory for " + std::to_string(transposed_ ? rows_ * k : k) +
                               " floats to quantize it from");
  }
}

// stored_ holds `count` more decoded floats: quantize what is complete (a row; or, transposed, the
// whole tensor, a column at a time).
void QuantizedWeightWriter::decoded(std::size_t count) {
  filled_ += count;
  if (filled_ < stored_.size()) return;
  filled_ = 0;
  if (!transposed_) {
    target_.quantize_rows(stored_.data(), row_index_++, 1);
    if (row_index_ == first_row_ + rows_) stored_ = {};  // the last row: its memory back
    return;
  }
  const std::size_t n = rows_, k = channel_.size();
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t p = 0; p < k; ++p) channel_[p] = stored_[p * n + j];  // W[j, :] = stored[:, j]
    target_.quantize_rows(channel_.data(), first_row_ + j, 1);
  }
  stored_ = {};  // done: its memory back
  channel_ = {};
}

void QuantizedWeightWriter::write(const std::uint8_t* bytes, std::size_t n) {
  if (n > total_ - written_)
    fail(ErrorKind::Range, "tensor '" + name_ + "': " + std::to_string(n) + " more bytes after " +
                               std::to_string(written_) + " run past its " + std::to_string(total_));
  if (n == 0) return;
  if (stored_.empty()) allocate();
  const std::size_t size = dtype_bytes(dtype_);
  written_ += n;
  while (n > 0) {
    if (partial_bytes_ > 0 || n < size) {  // an element split by a chunk boundary
      const std::size_t take = std::min(size - partial_bytes_, n);
      std::memcpy(partial_ + partial_bytes_, bytes, take);
      partial_bytes_ += take, bytes += take, n -= take;
      if (partial_bytes_ == size) {
        decode_weights(dtype_, partial_, stored_.data() + filled_, 1);
        partial_bytes_ = 0;
        decoded(1);
      }
      continue;
    }
    // whole elements, up to the end of what stored_ holds
    const std::size_t count = std::min(n / size, stored_.size() - filled_);
    decode_weights(dtype_, bytes, stored_.data() + filled_, count);
    bytes += count * size, n -= count * size;
    decoded(count);
  }
}

}  // namespace aw
