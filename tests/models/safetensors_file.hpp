// A safetensors file's header for tests: tensors back to back in the order given, and the file's
// size (checkpoint_test.cpp, model_q8_test.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace aw_test {

struct FileTensor {
  std::string name;
  aw::Shape shape;
  std::string dtype = "F32";
};

struct File {
  std::string header;
  std::uint64_t size = 0;
  const std::uint8_t* bytes() const { return reinterpret_cast<const std::uint8_t*>(header.data()); }
};

inline File file_of(const std::vector<FileTensor>& tensors) {
  std::string json = "{";
  std::uint64_t offset = 0;
  for (const FileTensor& t : tensors) {
    std::uint64_t n = t.dtype == "F32" || t.dtype == "I32" ? 4 : t.dtype == "I64" ? 8 : 2;
    std::string shape;
    for (auto d : t.shape) {
      n *= static_cast<std::uint64_t>(d);
      shape += (shape.empty() ? "" : ",") + std::to_string(d);
    }
    json += (json.size() > 1 ? "," : "") + std::string("\"") + t.name + "\":{\"dtype\":\"" + t.dtype +
            "\",\"shape\":[" + shape + "],\"data_offsets\":[" + std::to_string(offset) + "," +
            std::to_string(offset + n) + "]}";
    offset += n;
  }
  json += "}";
  return {json, 8 + json.size() + offset};
}

}  // namespace aw_test
