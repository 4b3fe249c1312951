// Reading a safetensors header (https://github.com/huggingface/safetensors):
//   8 bytes   N, the header length, unsigned little-endian 64-bit
//   N bytes   UTF-8 JSON header {name: {dtype, shape, data_offsets: [begin, end]}, __metadata__?: {string: string}}
//   rest      the tensors' bytes; data_offsets are relative to the start of this part
//
// Files are untrusted input and are validated as the format's reference implementation does,
// huggingface/safetensors safetensors/src/tensor.rs (commit 24b0b2857fef, 0.8.0-dev), with the
// messages of the package's JS reader (src/js/safetensors.js, which loadSafetensors keeps for
// state dicts without a module): each message names the file, the tensor and the rule.
//   read_metadata   fewer than 8 bytes: HeaderTooSmall; N > MAX_HEADER_SIZE (100,000,000):
//                   HeaderTooLarge; 8 + N past the end: InvalidHeaderLength; not UTF-8 or not
//                   JSON of that schema: InvalidHeaderDeserialization
//   Metadata::validate, tensors sorted by data_offsets: each must begin where the previous one
//                   ended (InvalidOffset), end >= begin; numel x bitsize must be whole bytes
//                   (MisalignedSlice) and equal end - begin (TensorInvalidInfo); no overflow
//                   (ValidationOverflow)
//   read_metadata   the last tensor's end + 8 + N must be the file size (MetadataIncompleteBuffer)
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace aw {

constexpr std::uint64_t kSafetensorsMaxHeader = 100'000'000;

struct SafetensorsTensor {
  std::string name;
  std::string dtype;  // one of the format's dtype names (F32, BF16, I64, ...)
  Shape shape;
  std::uint64_t begin = 0, end = 0;  // data_offsets, relative to the data section
};

struct SafetensorsHeader {
  std::vector<SafetensorsTensor> tensors;  // in file order (by data_offsets)
  std::uint64_t data_start = 0;            // 8 + N: where the data section starts in the file
};

// N from the file's first min(8, file_size) bytes, checked against the file size. `file` names
// the file in messages. aw::Error (Shape) for a rule broken.
std::uint64_t safetensors_header_length(const std::uint8_t* first, std::size_t count, std::uint64_t file_size,
                                        const std::string& file);

// The N header bytes parsed and validated against the file size.
SafetensorsHeader parse_safetensors_header(const std::uint8_t* header, std::size_t n, std::uint64_t file_size,
                                           const std::string& file);

}  // namespace aw
