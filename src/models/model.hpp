// A pretrained model for inference: an architecture's table (models/architecture), the
// ModelConfig read from its config.json, and its weights resident in one float32 arena laid out
// by the checkpoint reader (models/checkpoint). Every layer is the one transformer block
// (models/transformer_block), whose linear weights are packed once, at load — or, for a q8 model
// (ModelDtype::Q8), quantized to int8 per output channel as their bytes stream in
// (models/quantized_weight_writer: the float32 weight never exists in full) and run by the int8
// layer (LinearFormat::Q8, ops/quantized_linear). A q8 model also keeps its word embeddings as
// int8 rows, one scale per token (read back as float32 rows, scale * q: the embedding sums,
// norms and attention compute in float32), for a quarter of their memory.
//
// The encoder forward (DistilBertModel, BertModel: transformers' modeling_distilbert.py /
// modeling_bert.py, eval mode):
//   x_0 = LayerNorm(word[ids] + position[0:L] (+ token_type[types]))         (N*L, D)
//   x_l = block(x_{l-1})   post-norm, bidirectional, M = 0 for tokens and finfo(float32).min for
//                          padding keys (N, 1, 1, L)
//   pooler (bert, optional): tanh(x[:, 0] W_p^T + b_p)                        (N, D)
//   logits (a task head, models/heads): its steps on every token, on chosen tokens, on each
//          sequence's first or on the pooler output                (N, L, K) / (P, K) / (N, K)
// The causal forward with a KV cache (GPT-2, Llama) is the same loop over the same block with
// a cache per layer, then the architecture's heads (models/causal_lm, models/heads).
#pragma once
#include <cstdint>
#include <vector>

#include <memory>

#include "core/tensor.hpp"
#include "models/checkpoint.hpp"
#include "models/quantized_weight_writer.hpp"
#include "ops/linear_weight.hpp"

namespace aw {

// How a model holds its linear layers' weights: float32 (packed) or int8 (q8).
enum class ModelDtype { Float32, Q8 };

struct EncoderInput {
  const std::int32_t* input_ids = nullptr;       // (N, L)
  const std::uint8_t* attention_mask = nullptr;  // (N, L), 1 = token, 0 = padding; null: all tokens
  const std::int32_t* token_type_ids = nullptr;  // (N, L), models with token types only; null: all 0
  std::int64_t batch = 0, length = 0;            // N, L
};

struct EncoderOptions {
  bool output_hidden_states = false;  // the embeddings output and every layer's output
  bool output_attentions = false;     // every layer's attention weights
  bool output_logits = false;         // the task head's logits (the model must have one)
  // output_logits of a head on every token: only at these (n, l) pairs, P of them (2P ints;
  // null: at every token). The fill-mask helper's [MASK] positions: V logits for those alone.
  const std::int32_t* positions = nullptr;
  std::size_t position_count = 0;
};

struct EncoderOutput {
  Tensor last_hidden_state;           // (N, L, D)
  std::vector<Tensor> hidden_states;  // num_layers + 1 of (N, L, D), embeddings first
  std::vector<Tensor> attentions;     // num_layers of (N, H, L, L)
  Tensor pooler_output;               // (N, D) when the model has a pooler, else empty
  Tensor logits;                      // output_logits: (N, L, K), at positions (P, K), first token/pooled (N, K)
};

class Model {
 public:
  // Allocates the arena for a validated config (aw::Error Range when it does not fit); the
  // parameters are uninitialised until written (parameter(), or the plan's reads through
  // weight_targets and a WeightStream). with_optional: the architecture's optional tensors
  // (BERT's pooler) have slots.
  // heads: which of the architecture's heads have slots (parameter_layout's rule when empty).
  // q8: the linear layers' weights are int8 (their slots take no room in the arena).
  Model(const Architecture& architecture, const ModelConfig& config, bool with_optional, std::vector<bool> heads = {},
        ModelDtype dtype = ModelDtype::Float32);
  explicit Model(const CheckpointPlan& plan, ModelDtype dtype = ModelDtype::Float32);

  const Architecture& architecture() const { return *architecture_; }
  const ModelConfig& config() const { return config_; }
  const ParameterLayout& layout() const { return layout_; }
  bool has(Param p) const { return layout_.slots[layout_.global(p)].present; }
  bool has_pooler() const { return has(Param::PoolerWeight); }
  ModelDtype dtype() const { return dtype_; }
  // The weights' memory: the float32 arena and the int8 weights.
  std::size_t resident_bytes() const;
  // The task head loaded (architecture.hpp, Head::classes): its index in architecture().heads,
  // or kNoSlot when there is none.
  std::size_t task_head() const;

  // A parameter's floats, in the checkpoint's layout until pack_linear_weights(). Not for the
  // linear weights of a q8 model (quantized(slot)).
  float* parameter(std::size_t slot) { return arena_.data() + layout_.slots[slot].offset; }
  const float* parameter(std::size_t slot) const { return arena_.data() + layout_.slots[slot].offset; }
  // A q8 model's int8 weight for a linear layer's slot, or its word embeddings' (nullptr for
  // every other slot).
  QuantizedLinearWeight* quantized(std::size_t slot) { return quantized_[slot].get(); }
  const QuantizedLinearWeight* quantized(std::size_t slot) const { return quantized_[slot].get(); }

  // The plan's reads as targets in this model's arena (for a WeightStream); a q8 model's linear
  // weights go to writers that quantize them (kept until pack_linear_weights()).
  std::vector<WeightTarget> weight_targets(const std::vector<TensorRead>& reads);

  // Once every parameter is written: permutes the float32 linear layers' weights in place into
  // the packed layout of kernels::linear_packed (LinearFormat::Packed), which forward() reads
  // (the arena stays the same size; only a panel's worth of scratch is used), and frees a q8
  // load's writers.
  void pack_linear_weights();
  // Validates the input (ids in [0, V), types in [0, T), mask values 0/1, 1 <= L <= P, N >= 1)
  // before computing; aw::Error naming the argument otherwise.
  EncoderOutput forward(const EncoderInput& input, const EncoderOptions& options) const;

  // The learned input embeddings word[ids]: (count, D) (model.embeddings.word_embeddings(ids)).
  Tensor word_embeddings(const std::int32_t* ids, std::size_t count) const;
  // out (D) = word[id]: a q8 model's int8 row times its scale, or the float32 row, whether the table
  // is rows or packed (a tied LM head's weight is packed with the linear weights,
  // pack_linear_weights: the decode step's largest product then runs in the packed kernel, and a
  // lookup reads the row's D floats a panel apart).
  void word_embedding(std::int32_t id, float* out) const;

  // Layer l's parameters as the block takes them.
  BlockWeights layer_weights(std::int64_t layer) const;
  // The linear weight of a slot with its bias, in whichever form the model holds it.
  LinearWeight linear_weight(std::size_t weight_slot, std::size_t bias_slot, std::size_t out, std::size_t in) const;

  // Whether head h of the architecture is loaded, and a step's parameters: a Dense step's weight
  // (packed, or the word embeddings as rows when tied), a Norm step's weight and bias.
  bool has_head(std::size_t h) const { return h < layout_.heads.size() && layout_.heads[h]; }
  LinearWeight head_dense(std::size_t h, std::size_t step) const;
  NormWeights head_norm(std::size_t h, std::size_t step) const;

 private:
  const float* parameter_or_null(std::size_t slot) const {
    return slot != kNoSlot && layout_.slots[slot].present ? parameter(slot) : nullptr;
  }
  std::vector<std::pair<std::size_t, std::size_t>> linear_weights() const;  // (slot, rows)

  const Architecture* architecture_;
  ModelConfig config_;
  ParameterLayout layout_;
  ModelDtype dtype_ = ModelDtype::Float32;
  AlignedVector<float> arena_;
  std::vector<std::unique_ptr<QuantizedLinearWeight>> quantized_;  // per slot: q8 linear weights
  std::vector<std::unique_ptr<QuantizedWeightWriter>> writers_;    // while a q8 model loads
  bool packed_ = false;       // the linear weights are packed (pack_linear_weights)
  bool tied_packed_ = false;  // the word embeddings are packed too: a loaded head's Dense is tied to them
};

}  // namespace aw
