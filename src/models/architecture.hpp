// A model is data: each architecture is a table (models/architectures.cpp) of
//   - the config.json fields it reads into a ModelConfig, with transformers' defaults
//     (configuration_*.py), and the fields whose other values it does not implement;
//   - the block it runs (norm kind and placement, activation or gated MLP, causal or not, rotary
//     or learned positions) and its embeddings;
//   - its tensors: each hub name (relative to the base model, "{}" = the layer index) and the
//     block parameter it fills (a whole parameter, or the rows of a fused one: q/k/v, gate/up).
// One reader (models/checkpoint) turns config.json and a safetensors header into a validated
// plan through these tables; one block (models/transformer_block) computes with the result.
//
// Adding an architecture is adding a table (docs/architecture.md, "How to add an architecture").
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.hpp"
#include "models/transformer_block.hpp"

namespace aw {

// The sizes and settings of one checkpoint, read from its config.json.
struct ModelConfig {
  std::string model_type;              // config.json's model_type
  std::int64_t vocab_size = 0;         // V
  std::int64_t hidden_size = 0;        // D
  std::int64_t num_layers = 0;         //
  std::int64_t num_heads = 0;          // H
  std::int64_t num_kv_heads = 0;       // Hkv (grouped-query attention; H when the config has none)
  std::int64_t head_dim = 0;           // Dh = D / H
  std::int64_t intermediate_size = 0;  // F
  std::int64_t max_positions = 0;      // P
  std::int64_t type_vocab_size = 0;    // T (0: no token types)
  double norm_eps = 1e-12;
  Activation activation = Activation::Gelu;
  double rope_theta = 10000.0;  // rotary positions only
  BlockConfig block;            // the block every layer runs, from the sizes above and the table
};

// The parameters of a model: outside the layers, then those of each layer. A slot of the
// parameter layout holds one; the architecture's tensors fill them.
enum class Param : std::size_t {
  WordEmbeddings,       // (V, D)
  PositionEmbeddings,   // (P, D)   learned positions
  TokenTypeEmbeddings,  // (T, D)
  EmbeddingNormWeight,  // (D)      LayerNorm after the embeddings (BERT family)
  EmbeddingNormBias,    // (D)
  PoolerWeight,         // (D, D)   BERT's pooler
  PoolerBias,           // (D)
  // each layer (the transformer block's parameters)
  AttentionNormWeight,  // (D)      the attention sublayer's norm (after it: post-norm; before: pre-norm)
  AttentionNormBias,    // (D)
  QkvWeight,            // (H Dh + 2 Hkv Dh, D)   q's rows, k's, v's
  QkvBias,              // (H Dh + 2 Hkv Dh)
  OutWeight,            // (D, H Dh)
  OutBias,              // (D)
  MlpNormWeight,        // (D)
  MlpNormBias,          // (D)
  MlpInWeight,          // (F, D); gated: (2F, D), the gate's rows then up's
  MlpInBias,            // (F) or (2F)
  MlpOutWeight,         // (D, F)
  MlpOutBias,           // (D)
  Count
};
constexpr std::size_t kGlobalParams = static_cast<std::size_t>(Param::AttentionNormWeight);
constexpr std::size_t kLayerParams = static_cast<std::size_t>(Param::Count) - kGlobalParams;
inline bool is_layer_param(Param p) { return static_cast<std::size_t>(p) >= kGlobalParams; }

// Which rows of a parameter a tensor fills: all of them, or one part of a fused projection.
enum class Part { Whole, Query, Key, Value, Gate, Up };

// One tensor of the checkpoint. name: relative to the base model (transformers' state_dict of
// DistilBertModel, BertModel, ...), "{}" standing for the layer index; the reader also accepts it
// under the architecture's prefix ("distilbert.", "bert.") as from_pretrained does.
struct TensorRule {
  const char* name;
  Param param;
  Part part = Part::Whole;
  bool optional = false;    // may be absent; the optional tensors come together (BERT's pooler)
  bool transposed = false;  // stored (in, out) as GPT-2's Conv1D: transposed at load
};

// An integer of config.json, transformers' default when absent.
struct SizeField {
  const char* key;
  std::int64_t ModelConfig::*member;
  std::int64_t fallback;
};

// A field the architecture does not implement but for one value (absent = that value): any other
// is an Error naming it. allowed: the value as JSON text ("\"absolute\"", "false", "null").
struct Unsupported {
  const char* key;
  const char* allowed;
};

struct Architecture {
  const char* model_type;  // config.json's model_type
  const char* prefix;      // transformers' base_model_prefix
  std::vector<SizeField> sizes;
  const char* eps_key;  // nullptr: the eps is fixed at eps_fallback (DistilBERT)
  double eps_fallback;
  const char* activation_key;
  const char* activation_fallback;
  std::vector<std::pair<const char*, Activation>> activations;  // the ACT2FN names it accepts
  std::vector<Unsupported> unsupported;
  // the block and the embeddings
  NormKind norm;
  NormPlacement norm_placement;
  bool gated_mlp, causal, rotary;
  std::vector<TensorRule> tensors;
};

// Every architecture the reader knows, and the one of a model_type (nullptr: none).
const std::vector<const Architecture*>& architectures();
const Architecture* find_architecture(const std::string& model_type);

}  // namespace aw
