// A model is data: each architecture is a table (models/architectures.cpp) of
//   - the config.json fields it reads into a ModelConfig, with transformers' defaults
//     (configuration_*.py), and the fields whose other values it does not implement;
//   - the block it runs (norm kind and placement, activation or gated MLP, causal or not, rotary
//     or learned positions) and its embeddings;
//   - its tensors: each hub name (relative to the base model, "{}" = the layer index) and the
//     block parameter it fills (a whole parameter, or the rows of a fused one: q/k/v, gate/up);
//   - its heads: what runs on the last layer's output, each a sequence of steps (dense,
//     activation, norm) over named tensors: the final norm of a causal model, the LM head (its own
//     weight or the word embeddings, tied), and the encoders' task heads.
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

// config.json's rope_scaling (transformers' modeling_rope_utils.py, ROPE_INIT_FUNCTIONS): the
// inverse frequencies of the rotary angles, inv_freq[i] = 1 / theta^(2i / Dh), then
//   Default  (rope_scaling null) unchanged
//   Linear   inv_freq / factor
//   Llama3   (Llama 3.1+) per wavelength 2 pi / inv_freq: kept below original / high_freq_factor,
//            divided by factor above original / low_freq_factor, interpolated between
// Other rope types (dynamic, yarn, longrope, ...) are an Error naming them.
enum class RopeType { Default, Linear, Llama3 };
struct RopeScaling {
  RopeType type = RopeType::Default;
  double factor = 1.0;
  double low_freq_factor = 1.0, high_freq_factor = 4.0;  // Llama3
  double original_max_positions = 8192.0;                // Llama3: original_max_position_embeddings
};

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
  double rope_theta = 10000.0;       // rotary positions only
  RopeScaling rope_scaling;          // rotary positions only: config.json's rope_scaling
  bool tie_word_embeddings = false;  // a head's tied weight is the word embeddings (HeadStep::tied)
  // The task heads' (architecture.hpp, Head::classes): config.json's architectures[0] ("" when
  // absent), and the classifiers' outputs K (PretrainedConfig.num_labels: id2label's length, else
  // num_labels, else 2).
  std::string architecture_class;
  std::int64_t num_labels = 2;
  BlockConfig block;  // the block every layer runs, from the sizes above and the table
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

// An integer of config.json, transformers' default when absent. A fallback of kDerived is worked
// out from the others when the field is absent or null: intermediate_size 4 D (GPT-2's n_inner),
// num_kv_heads H, head_dim D / H.
constexpr std::int64_t kDerived = -1;
struct SizeField {
  const char* key;
  std::int64_t ModelConfig::*member;
  std::int64_t fallback;
};

// ---------------------------------------------------------------------------------------------
// Heads: what runs on the last layer's output (N*L rows of D), as data. A head is a sequence of
// steps over a width that starts at D:
//   Dense       y = x W^T + b          W (out, width) from the file, or the word embeddings (V, D)
//                                      when the step is tied and config.json ties them
//                                      (tie_word_embeddings); b optional
//   Activation  y = act(x)             the block's ACT2FN kinds (BERT's pooler needs one more: tanh)
//   Norm        y = Norm(x)            LayerNorm (weight, bias) or RMSNorm (weight), the config's eps
// Its tensors are named as the task model's state_dict names them (GPT2LMHeadModel: lm_head.weight,
// transformer.ln_f.weight); a name under the base model's prefix is also found without it (a bare
// base model's file), as from_pretrained does. The reader checks each step's tensors (shape from
// the width and `out`, dtype) and loads them as it loads the block's parameters; Dense weights are
// packed with the layers'. Examples (transformers' modeling_*.py):
//   GPT-2   final_norm (base): Norm(LayerNorm, transformer.ln_f)
//           lm_head:           Dense(lm_head.weight -> V, tied: wte)
//   Llama   final_norm (base): Norm(RMSNorm, model.norm);  lm_head: Dense(lm_head.weight -> V, tied)
//   BERT pooler (FirstToken):  Dense(bert.pooler.dense -> D), Activation(tanh)
//   DistilBERT masked LM:      Dense(vocab_transform -> D), Activation(gelu), Norm(vocab_layer_norm),
//                              Dense(vocab_projector, tied, with its own bias -> V)

// A head's output width (Dense): resolved from the ModelConfig.
enum class HeadSize { Hidden, Vocab, Labels };  // D, V, K (ModelConfig::num_labels)
enum class HeadOp { Dense, Activation, Norm };

struct HeadStep {
  HeadOp op = HeadOp::Dense;
  const char* weight = nullptr;              // Dense (out, width) / Norm (width): the tensor's name
  const char* bias = nullptr;                // nullptr: none
  HeadSize out = HeadSize::Hidden;           // Dense: the width after it
  bool tied = false;                         // Dense: the word embeddings when config.json ties them
  bool transposed = false;                   // Dense: stored (width, out), as GPT-2's Conv1D
  Activation activation = Activation::Gelu;  // Activation
  bool model_activation = false;             // Activation: the model's own (config.json's), not `activation`
  NormKind norm = NormKind::LayerNorm;       // Norm
};
inline HeadStep dense_step(const char* weight, const char* bias, HeadSize out, bool tied = false) {
  HeadStep s;
  s.op = HeadOp::Dense, s.weight = weight, s.bias = bias, s.out = out, s.tied = tied;
  return s;
}
inline HeadStep activation_step(Activation activation) {
  HeadStep s;
  s.op = HeadOp::Activation, s.activation = activation;
  return s;
}
// The model's activation (config.json's activation / hidden_act), as BERT's and DistilBERT's
// masked-LM transforms use it.
inline HeadStep model_activation_step() {
  HeadStep s;
  s.op = HeadOp::Activation, s.model_activation = true;
  return s;
}
inline HeadStep norm_step(NormKind norm, const char* weight, const char* bias) {
  HeadStep s;
  s.op = HeadOp::Norm, s.norm = norm, s.weight = weight, s.bias = bias;
  return s;
}

// Which rows a head reads: every token's, or each sequence's first (a [CLS] pooler / classifier),
// or the base model's pooler output (BERT's pooler: its optional tensors then required).
enum class HeadInput { Tokens, FirstToken, Pooled };

struct Head {
  const char* name;  // "final_norm", "lm_head", ...: how the model and the bindings find it
  std::vector<HeadStep> steps;
  HeadInput input = HeadInput::Tokens;
  // In the base model: runs in place on the last layer's output before any other head, and its
  // result is the last hidden state (GPT-2's ln_f, Llama's norm: transformers' hidden_states end
  // after it). Tokens only, width kept (norms and activations).
  bool base = false;
  // Loaded only when the file has its tensors, all of them or none (a task head a base model's
  // file lacks); a required head's missing tensor is an Error.
  bool optional = false;
  // A task head (the encoders' ...ForMaskedLM, ...ForSequenceClassification, ...): loaded only
  // when chosen, by config.json's architectures[0] being one of these classes or by its name
  // (loadPretrained's head option); at most one is, and then its tensors are required. Its logits
  // are the forward's `logits`. Empty: not a task head.
  std::vector<const char*> classes = {};
};

// A field the architecture does not implement but for one value (absent = that value): any other
// is an Error naming it. allowed: the value as JSON text ("\"absolute\"", "false", "null").
// null_is_allowed: whether an explicit null means that value too, as where transformers tests the
// field's truth (None is false); not where None takes another branch (BertEmbeddings adds its
// positions only `if self.position_embedding_type == "absolute"`; GPT-2 scales only `if
// scale_attn_weights`).
struct Unsupported {
  const char* key;
  const char* allowed;
  bool null_is_allowed = true;
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
  // After the last layer, in order (the base heads first).
  std::vector<Head> heads = {};
  // config.json's key that ties Dense steps marked `tied` to the word embeddings, and its default
  // (transformers' PretrainedConfig: tie_word_embeddings; GPT-2 true, Llama false); nullptr: the
  // default always.
  const char* tie_key = nullptr;
  bool tie_fallback = false;
  double rope_theta_fallback = 10000.0;  // rotary: config.json's rope_theta when absent
};

// The head of that name (nullptr: none), and its index in architecture.heads.
const Head* find_head(const Architecture& architecture, const char* name, std::size_t* index = nullptr);

// Every architecture the reader knows, and the one of a model_type (nullptr: none).
const std::vector<const Architecture*>& architectures();
const Architecture* find_architecture(const std::string& model_type);

}  // namespace aw
