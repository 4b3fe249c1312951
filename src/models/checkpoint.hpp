// The one place a checkpoint is read and validated: config.json and the safetensors header of
// model.safetensors -> a CheckpointPlan (the architecture, its ModelConfig, where each parameter
// lives in the resident arena, which bytes of the file fill it), before anything is allocated.
// The JS side only streams the file's bytes (src/js/pretrained.js); the native tests reach
// every rule here (tests/models/checkpoint_test.cpp).
//
// Rules, each an aw::Error naming the file and the field or tensor (and the shapes):
//   config.json   a JSON object; model_type one of architectures(); each field of the
//                 architecture's table of the right JSON type (transformers' default when absent);
//                 the fields it does not implement at their one allowed value; every size within
//                 its bounds (ModelLimits), the heads dividing the hidden size, the parameters
//                 fitting the wasm heap (2 GiB of floats)
//   header        the safetensors format (models/safetensors.hpp)
//   tensors       each the architecture needs present, under its name relative to the base model
//                 or with the architecture's prefix ("distilbert.", "bert."), or with LayerNorm's
//                 old names (gamma/beta), as transformers' from_pretrained accepts them; of the
//                 shape config.json implies; F32, F16 or BF16; the optional ones all or none.
//                 Tensors the model does not use (heads, buffers) are listed, not read.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.hpp"
#include "models/architecture.hpp"
#include "models/weight_stream.hpp"

namespace aw {

constexpr const char* kWeightsFile = "model.safetensors";

// Upper bounds on the sizes a config may ask for (checked before allocating). Generous for
// today's checkpoints (bert-large: D 1024, F 4096, 24 layers; multilingual vocabularies of 250k),
// far below what would overflow the index arithmetic.
struct ModelLimits {
  static constexpr std::int64_t hidden_size = 16384;
  static constexpr std::int64_t num_layers = 256;
  static constexpr std::int64_t intermediate_size = 65536;
  static constexpr std::int64_t vocab_size = 4'000'000;
  static constexpr std::int64_t max_positions = 65536;
  static constexpr std::int64_t type_vocab_size = 1024;
};

// One parameter's place: the block parameter, its layer (-1 outside the layers), its shape and
// offset (floats from the start of the arena, a multiple of 16: a cache line).
struct ParameterSlot {
  Param param = Param::Count;
  std::int64_t layer = -1;
  std::string name;  // the first tensor that fills it, as the table names it (for messages)
  Shape shape;
  bool present = false;  // the architecture has it (and, if optional, the file has it)
  std::size_t offset = 0;
};

// Every parameter slot: kGlobalParams, then kLayerParams per layer.
struct ParameterLayout {
  std::vector<ParameterSlot> slots;
  std::size_t arena_floats = 0;
  std::size_t global(Param p) const { return static_cast<std::size_t>(p); }
  std::size_t layer(std::int64_t l, Param p) const {
    return kGlobalParams + static_cast<std::size_t>(l) * kLayerParams + static_cast<std::size_t>(p) - kGlobalParams;
  }
};

// config.json (its bytes) -> the ModelConfig of its architecture, validated; sizes: the size
// fields config.json sets, in the table's order, for messages ("dim 18, n_heads 3, ...").
struct ReadConfig {
  const Architecture* architecture = nullptr;
  ModelConfig config;
  std::vector<std::pair<std::string, std::int64_t>> sizes;
};
ReadConfig read_config(const std::string& config_json);

// One tensor to read: bytes [begin, end) of the data section into the arena at `offset` floats
// (a part of a fused parameter starts at its first row); transposed: stored (rows, cols), the
// parameter is (cols, rows).
struct TensorRead {
  std::string name;  // as the file names it
  WeightDtype dtype = WeightDtype::F32;
  std::uint64_t begin = 0, end = 0;
  std::size_t offset = 0;
  bool transposed = false;
  std::size_t rows = 0, cols = 0;  // the stored shape (2-D when transposed)
};

struct CheckpointPlan {
  const Architecture* architecture = nullptr;
  ModelConfig config;
  ParameterLayout layout;
  bool with_optional = false;        // the file has the architecture's optional tensors
  std::vector<TensorRead> reads;     // the tensors to read, in file order
  std::vector<std::string> ignored;  // the file's tensors the model does not use
  std::uint64_t data_start = 0;      // the data section's first byte in the file
  std::uint64_t data_bytes = 0;      // its size
};

// The whole checkpoint: config.json's bytes, the N header bytes of model.safetensors (after its
// 8-byte length, see safetensors_header_length) and the file's size.
CheckpointPlan read_checkpoint(const std::string& config_json, const std::uint8_t* header, std::size_t header_bytes,
                               std::uint64_t file_size);

// The same for an architecture given as a table (tests: tables that are not registered).
CheckpointPlan read_checkpoint(const Architecture& architecture, const ModelConfig& config,
                               const std::vector<std::pair<std::string, std::int64_t>>& sizes,
                               const std::uint8_t* header, std::size_t header_bytes, std::uint64_t file_size);

// The layout alone (every slot the architecture has; optional ones only `with_optional`).
ParameterLayout parameter_layout(const Architecture& architecture, const ModelConfig& config, bool with_optional);

// Validates a ModelConfig's sizes (the bounds, the heads, the parameter count) as read_config does.
void validate_model_config(const Architecture& architecture, const ModelConfig& config);

}  // namespace aw
