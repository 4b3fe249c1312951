// The sizes of a BERT-family encoder (Hugging Face's DistilBertModel and BertModel) and where its
// parameters live: one resident float32 arena, each parameter at an offset, named as the base
// model's state_dict names them (transformers' modeling_distilbert.py / modeling_bert.py).
//
// Config files are untrusted input: validate_encoder_config bounds every size before anything is
// allocated, and the parameter count must fit the wasm heap (kMaxElements floats).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace aw {

enum class EncoderArch { DistilBert, Bert };

// transformers' ACT2FN names: "gelu" (exact, erf), "gelu_new" / "gelu_pytorch_tanh" (tanh
// approximation), "relu".
enum class EncoderActivation { Gelu, GeluTanh, Relu };

struct EncoderConfig {
  EncoderArch arch = EncoderArch::DistilBert;
  std::int64_t vocab_size = 0;         // V   (vocab_size)
  std::int64_t hidden_size = 0;        // D   (distilbert: dim; bert: hidden_size)
  std::int64_t num_layers = 0;         //     (n_layers; num_hidden_layers)
  std::int64_t num_heads = 0;          // H   (n_heads; num_attention_heads), divides D
  std::int64_t intermediate_size = 0;  // F   (hidden_dim; intermediate_size)
  std::int64_t max_positions = 0;      // P   (max_position_embeddings)
  std::int64_t type_vocab_size = 0;    // T   (bert: type_vocab_size; distilbert has none: 0)
  EncoderActivation activation = EncoderActivation::Gelu;
  double layer_norm_eps = 1e-12;  // (distilbert: 1e-12 fixed; bert: layer_norm_eps)
};

// Upper bounds on the sizes a config may ask for (checked before allocating). Generous for
// today's checkpoints (bert-large: D 1024, F 4096, 24 layers; multilingual vocabularies of
// 250k), far below what would overflow the index arithmetic.
struct EncoderLimits {
  static constexpr std::int64_t hidden_size = 16384;
  static constexpr std::int64_t num_layers = 256;
  static constexpr std::int64_t intermediate_size = 65536;
  static constexpr std::int64_t vocab_size = 4'000'000;
  static constexpr std::int64_t max_positions = 65536;
  static constexpr std::int64_t type_vocab_size = 1024;
};

// Throws aw::Error (Range) naming the config field when a size is out of its bounds, the heads
// do not divide D, eps is not a finite number in [0, 1), or the parameters would exceed
// kMaxElements floats (2 GiB).
void validate_encoder_config(const EncoderConfig& config);

// The parameters of one encoder layer, in the order of the arena (the query, key and value
// weights back to back form one (3D, D) matrix, their biases one (3D) vector).
enum class LayerParam : std::size_t {
  QueryWeight,
  KeyWeight,
  ValueWeight,  // (D, D) each
  QueryBias,
  KeyBias,
  ValueBias,           // (D) each
  AttentionOutWeight,  // (D, D)
  AttentionOutBias,    // (D)
  AttentionNormWeight,
  AttentionNormBias,  // (D)   post-attention LayerNorm
  FfnInWeight,        // (F, D)
  FfnInBias,          // (F)
  FfnOutWeight,       // (D, F)
  FfnOutBias,         // (D)
  OutputNormWeight,
  OutputNormBias,  // (D)   post-FFN LayerNorm
  Count
};

// The parameters outside the layers.
enum class GlobalParam : std::size_t {
  WordEmbeddings,       // (V, D)
  PositionEmbeddings,   // (P, D)
  TokenTypeEmbeddings,  // (T, D)   bert only
  EmbeddingsNormWeight,
  EmbeddingsNormBias,  // (D)
  PoolerWeight,
  PoolerBias,  // (D, D), (D)   bert only, optional (add_pooling_layer)
  Count
};

struct ParameterSpec {
  std::string name;  // the base model's state_dict name, e.g. "transformer.layer.0.attention.q_lin.weight"
  Shape shape;
  bool present = true;     // false: the architecture has no such parameter (token types of DistilBERT)
  bool optional = false;   // may be absent from a checkpoint (the pooler)
  std::size_t offset = 0;  // in floats from the start of the arena
};

// Every parameter slot of `config` (validated first): GlobalParam::Count global slots, then
// LayerParam::Count per layer. Slots the architecture lacks have present = false and no space;
// the pooler's space is reserved only `with_pooler`.
struct ParameterLayout {
  std::vector<ParameterSpec> specs;
  std::size_t arena_floats = 0;
  std::size_t global(GlobalParam p) const { return static_cast<std::size_t>(p); }
  std::size_t layer(std::int64_t l, LayerParam p) const {
    return static_cast<std::size_t>(GlobalParam::Count) +
           static_cast<std::size_t>(l) * static_cast<std::size_t>(LayerParam::Count) + static_cast<std::size_t>(p);
  }
};
ParameterLayout encoder_parameters(const EncoderConfig& config, bool with_pooler);

}  // namespace aw
