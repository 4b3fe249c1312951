// A pretrained BERT-family encoder for inference: Hugging Face's DistilBertModel and BertModel
// (transformers' modeling_distilbert.py / modeling_bert.py, eval mode: dropout off), with its
// weights resident in one float32 arena.
//
//   x_0 = LayerNorm(word[ids] + position[0:L] (+ token_type[types]))         (N*L, D)
//   per layer l:
//     q, k, v = x W_{q,k,v}^T + b_{q,k,v}, split into heads                  (N, H, L, Dh)
//     a = softmax(q k^T / sqrt(Dh) + M) v, heads merged                       (N*L, D)
//         M = 0 for tokens, finfo(float32).min for padding keys              (N, 1, 1, L)
//     x = LayerNorm(x + a W_o^T + b_o)                                        post-LN
//     x = LayerNorm(x + act(x W_1^T + b_1) W_2^T + b_2)                      act: gelu | gelu_tanh | relu
//   pooler (bert, optional): tanh(x[:, 0] W_p^T + b_p)                        (N, D)
//
// The attention is the library's one SDPA op (aw::scaled_dot_product_attention: the fused
// kernel over the thread pool, or the materialised one when the weights are returned); the
// linear layers are the row-parallel linear kernel on weights packed once, at load.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/tensor.hpp"
#include "models/encoder_config.hpp"

namespace aw {

struct EncoderInput {
  const std::int32_t* input_ids = nullptr;       // (N, L)
  const std::uint8_t* attention_mask = nullptr;  // (N, L), 1 = token, 0 = padding; null: all tokens
  const std::int32_t* token_type_ids = nullptr;  // (N, L), bert only; null: all 0
  std::int64_t batch = 0, length = 0;            // N, L
};

struct EncoderOptions {
  bool output_hidden_states = false;  // the embeddings output and every layer's output
  bool output_attentions = false;     // every layer's attention weights
};

struct EncoderOutput {
  Tensor last_hidden_state;           // (N, L, D)
  std::vector<Tensor> hidden_states;  // num_layers + 1 of (N, L, D), embeddings first
  std::vector<Tensor> attentions;     // num_layers of (N, H, L, L)
  Tensor pooler_output;               // (N, D) when the model has a pooler, else empty
};

class Encoder {
 public:
  // Allocates the arena for a validated config (aw::Error Range when it does not fit); the
  // parameters are uninitialised until written through parameter().
  Encoder(const EncoderConfig& config, bool with_pooler);

  const EncoderConfig& config() const { return config_; }
  const ParameterLayout& layout() const { return layout_; }
  bool has_pooler() const { return layout_.specs[layout_.global(GlobalParam::PoolerWeight)].present; }
  std::size_t resident_bytes() const { return arena_.size() * sizeof(float); }

  // A parameter's floats, in the checkpoint's layout until pack_linear_weights().
  float* parameter(std::size_t slot) { return arena_.data() + layout_.specs[slot].offset; }
  const float* parameter(std::size_t slot) const { return arena_.data() + layout_.specs[slot].offset; }

  // Once every parameter is written: permutes the linear layers' weights in place into the
  // packed layout of kernels::linear_packed (their rows as panels of one register tile's columns),
  // which forward() reads. The arena stays the same size; only a panel's worth of scratch is used.
  void pack_linear_weights();
  // Validates the input (ids in [0, V), types in [0, T), mask values 0/1, 1 <= L <= P, N >= 1)
  // before computing; aw::Error naming the argument otherwise.
  EncoderOutput forward(const EncoderInput& input, const EncoderOptions& options) const;

  // The learned input embeddings word[ids]: (count, D) (model.embeddings.word_embeddings(ids)).
  Tensor word_embeddings(const std::int32_t* ids, std::size_t count) const;

 private:
  std::vector<std::pair<std::size_t, std::size_t>> linear_weights() const;  // (slot, rows)

  EncoderConfig config_;
  ParameterLayout layout_;
  AlignedVector<float> arena_;
  bool packed_ = false;  // the linear weights are packed (pack_linear_weights)
};

}  // namespace aw
