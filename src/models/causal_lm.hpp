// A causal language model's forward (GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM in eval
// mode; transformers' modeling_gpt2.py, modeling_llama.py, modeling_qwen2.py) on the one block,
// with a KV cache resident in wasm memory:
//   positions  p[n, l] = cumsum(attention_mask[n])[P + l] - 1, 1 where the mask is 0 (as
//              generate's prepare_inputs_for_generation computes position_ids), P = cached tokens
//   x_0        word[ids] (+ position[p] when learned: GPT-2)                          (N*L, D)
//   x_l        block(x_{l-1}): pre-norm, causal aligned bottom-right over the S = P + L keys, key
//              padding from the mask (cached and new), rotary angles p * inv_freq (Llama, Qwen2;
//              rope_scaling default / linear / llama3 as modeling_rope_utils.py)
//   h          the base heads in place (ln_f / norm): hidden_states' last entry
//   logits     lm_head(h) (its own weight, or the word embeddings when tied)          (N, L, V)
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/tensor.hpp"
#include "models/model.hpp"

namespace aw {

// The keys and values of every layer for N sequences (llama2.c's key_cache / value_cache): per
// layer (N, Hkv, capacity, Dh), the first length() rows of each head filled; the attention mask
// of the cached tokens and each row's count of real ones (for the next positions). It grows (a
// copy) as tokens arrive, up to the model's max_position_embeddings. It belongs to one model.
class KvCache {
 public:
  explicit KvCache(const Model& model) : model_(&model) {}
  const Model* model() const { return model_; }
  std::size_t batch() const { return batch_; }  // 0 until the first forward
  std::size_t length() const { return length_; }
  std::size_t capacity() const { return capacity_; }
  std::size_t resident_bytes() const { return (keys_.size() + values_.size()) * sizeof(float); }

  // Room for `total` tokens of `batch` rows (aw::Error Range when it does not fit in memory).
  void reserve(std::size_t batch, std::size_t total, const std::string& fn);
  KvCacheLayer layer(std::size_t l);
  const std::uint8_t* mask() const { return mask_.data(); }    // (N, capacity)
  std::int64_t seen(std::size_t n) const { return seen_[n]; }  // real tokens of row n so far
  // After every layer has written L more tokens: their mask (N, L) joins the cache's.
  void advance(std::size_t L, const std::uint8_t* new_mask);
  void clear();

 private:
  const Model* model_;
  std::size_t batch_ = 0, length_ = 0, capacity_ = 0;
  AlignedVector<float> keys_, values_;  // (layers, N, Hkv, capacity, Dh)
  std::vector<std::uint8_t> mask_;      // (N, capacity)
  std::vector<std::int64_t> seen_;      // (N)
};

struct CausalInput {
  const std::int32_t* input_ids = nullptr;       // (N, L)
  const std::uint8_t* attention_mask = nullptr;  // (N, L) of the new tokens, 1 = token; null: all 1
  const std::int32_t* position_ids = nullptr;    // (N, L); null: from the mask and the cache
  std::int64_t batch = 0, length = 0;            // N, L
};

struct CausalOptions {
  bool output_hidden_states = false;  // num_layers + 1 of (N, L, D), the last after the final norm
  bool output_attentions = false;     // num_layers of (N, H, L, S)
  bool last_logits_only = false;      // logits (N, 1, V) of each row's last token (generation)
};

struct CausalOutput {
  Tensor logits;                      // (N, L, V), or (N, 1, V)
  std::vector<Tensor> hidden_states;  //
  std::vector<Tensor> attentions;     //
};

// Validates the input (ids in [0, V), mask 0/1, positions in [0, P), the cache's model and batch,
// cached + new tokens <= max_position_embeddings) before computing; aw::Error naming the argument
// otherwise, the cache unchanged. With a cache, the new tokens attend to the cached ones and are
// appended to it.
CausalOutput causal_forward(const Model& model, const CausalInput& input, const CausalOptions& options,
                            KvCache* cache = nullptr);

// The rotary inverse frequencies inv_freq[i], i < Dh / 2, of the config (rope_theta, rope_scaling),
// in float64.
std::vector<double> rotary_inverse_frequencies(const ModelConfig& config);

}  // namespace aw
