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
//   heads         each step's tensors likewise (a name under the prefix also found without it);
//                 a tied Dense step reads nothing (the word embeddings); an optional head's
//                 tensors all or none. Tensors the model does not use (other heads, buffers such
//                 as GPT-2's attn.bias) are listed, not read.
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
  static constexpr std::int64_t max_positions = 65536;           // learned positions: a (P, D) table
  static constexpr std::int64_t rotary_max_positions = 1 << 24;  // rotary: Llama 3.1's 131072 and more
  static constexpr std::int64_t head_dim = 1024;
  static constexpr std::int64_t type_vocab_size = 1024;
};

// One parameter's place: the block parameter, its layer (-1 outside the layers), its shape and
// offset (floats from the start of the arena, a multiple of 16: a cache line).
struct ParameterSlot {
  Param param = Param::Count;  // Param::Count for a head's tensor
  std::int64_t layer = -1;
  std::int64_t head = -1, step = -1;  // a head's tensor: its head and step, and whether the bias
  bool bias = false;
  std::string name;  // the first tensor that fills it, as the table names it (for messages)
  Shape shape;
  bool present = false;  // the architecture has it (and, if optional, the file has it)
  std::size_t offset = 0;
};

// A head step's slots (kNoSlot: none; a tied weight has none either).
constexpr std::size_t kNoSlot = static_cast<std::size_t>(-1);
struct HeadStepSlots {
  std::size_t weight = kNoSlot, bias = kNoSlot;
  std::int64_t in = 0, out = 0;  // the widths before and after the step
};

// Every parameter slot: kGlobalParams, then kLayerParams per layer, then the loaded heads'.
struct ParameterLayout {
  std::vector<ParameterSlot> slots;
  std::size_t arena_floats = 0;
  std::vector<bool> heads;                        // per architecture head: loaded
  std::vector<std::vector<HeadStepSlots>> steps;  // per architecture head, per step
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
  std::size_t slot = 0;            // the parameter it fills (ParameterLayout::slots)
  std::size_t first_row = 0;       // from this row (a part of a fused parameter)
};

struct CheckpointPlan {
  const Architecture* architecture = nullptr;
  ModelConfig config;
  ParameterLayout layout;
  bool with_optional = false;        // the file has the architecture's optional tensors (not heads)
  std::vector<TensorRead> reads;     // the tensors to read, in file order
  std::vector<std::string> ignored;  // the file's tensors the model does not use
  std::uint64_t data_start = 0;      // the data section's first byte in the file
  std::uint64_t data_bytes = 0;      // its size
};

// The whole checkpoint: config.json's bytes, the N header bytes of model.safetensors (after its
// 8-byte length, see safetensors_header_length) and the file's size.
// head_request: the task head to load (Head::classes): "auto" the one config.json's
// architectures[0] names (none for a class without one), "none", or a task head's name (an
// Error when the architecture has no such head); the chosen head's tensors are required.
CheckpointPlan read_checkpoint(const std::string& config_json, const std::uint8_t* header, std::size_t header_bytes,
                               std::uint64_t file_size, const std::string& head_request = "auto");

// The same for an architecture given as a table (tests: tables that are not registered).
CheckpointPlan read_checkpoint(const Architecture& architecture, const ModelConfig& config,
                               const std::vector<std::pair<std::string, std::int64_t>>& sizes,
                               const std::uint8_t* header, std::size_t header_bytes, std::uint64_t file_size,
                               const std::string& head_request = "auto");

// The layout alone (every slot the architecture has; optional tensors only `with_optional`; the
// heads: those `heads` marks, or when it is empty, the required ones and the optional ones only
// `with_optional`).
ParameterLayout parameter_layout(const Architecture& architecture, const ModelConfig& config, bool with_optional,
                                 std::vector<bool> heads = {});

// Refuses a layout of more than kMaxElements floats: a RangeError naming config.json, the count and
// the largest parameter (a layout that large has saturated offsets: parameter_layout).
void check_parameter_floats(const ParameterLayout& layout);

// Validates a ModelConfig's sizes (the bounds, the heads, the parameter count) as read_config does.
void validate_model_config(const Architecture& architecture, const ModelConfig& config);

}  // namespace aw
