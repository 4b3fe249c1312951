// One transformer block for every architecture (a model is data, a block is code): what differs
// between BERT-family encoders, GPT-2 and Llama is a BlockConfig, never another implementation.
//
//   post-norm (BERT, DistilBERT; nn.TransformerEncoderLayer norm_first = false):
//     x = Norm_a(x + Attention(x));          x = Norm_m(x + Mlp(x))
//   pre-norm (GPT-2, Llama; norm_first = true):
//     x = x + Attention(Norm_a(x));          x = x + Mlp(Norm_m(x))
//   Norm: LayerNorm (weight, bias) or RMSNorm (weight; Llama).
//   Attention(x), heads H of dim Dh, key/value heads Hkv dividing H (grouped-query attention):
//     q, k, v = x W_{q,k,v}^T + b_{q,k,v}                 one fused (H Dh + 2 Hkv Dh, D) product or three
//     q, k = rope(q), rope(k)                             rotary positions, rotate_half layout (Llama)
//     k, v appended to the KV cache (when there is one); S = cached + new tokens
//     a = softmax(q k^T / sqrt(Dh) + M) v                 SDPA: M = the caller's additive mask
//                                                         (key padding), causal aligned bottom-right
//     Attention(x) = a W_o^T + b_o
//   Mlp(x) = act(x W_1^T + b_1) W_2^T + b_2               act: gelu | gelu_tanh | relu | silu
//          = (act(x W_gate^T) * x W_up^T) W_down^T        gated (Llama's SwiGLU: act = silu)
//
// Sources: transformers' modeling_distilbert.py (TransformerBlock), modeling_bert.py (BertLayer),
// modeling_gpt2.py (GPT2Block), modeling_llama.py (LlamaDecoderLayer, LlamaRMSNorm,
// apply_rotary_pos_emb, LlamaMLP); torch's nn.TransformerEncoderLayer.
//
// The attention is the library's one SDPA op (aw::scaled_dot_product_attention: the fused kernel
// over the thread pool, the materialised one when the weights are returned); every linear layer
// goes through aw::linear(LinearWeight) (ops/linear_weight.hpp), whatever form its weight has.
// The block trusts its caller: configs and weights are validated once, where they are read (a
// checkpoint: models/checkpoint; torch's arguments: ops/transformer_encoder_layer).
#pragma once
#include <cstddef>
#include <string>

#include "core/tensor.hpp"
#include "ops/attention_heads.hpp"
#include "ops/linear_weight.hpp"

namespace aw {

enum class NormKind { LayerNorm, RmsNorm };
enum class NormPlacement { Post, Pre };  // after the residual add (BERT) or on the sublayer's input (GPT-2, Llama)
// transformers' ACT2FN names: gelu (exact, erf); gelu_new / gelu_pytorch_tanh (tanh
// approximation); relu; silu (swish).
enum class Activation { Gelu, GeluTanh, Relu, Silu };

struct BlockConfig {
  std::size_t hidden_size = 0;        // D
  std::size_t num_heads = 0;          // H, query heads
  std::size_t num_kv_heads = 0;       // Hkv, key/value heads; divides H (H: multi-head attention)
  std::size_t head_dim = 0;           // Dh (even with rotary positions)
  std::size_t intermediate_size = 0;  // F
  NormKind norm = NormKind::LayerNorm;
  NormPlacement norm_placement = NormPlacement::Post;
  float norm_eps = 1e-12f;
  Activation activation = Activation::Gelu;
  bool gated_mlp = false;  // act(x W_gate^T) * x W_up^T instead of act(x W_1^T + b_1)
  bool causal = false;     // each token attends to itself and the tokens before it
  bool rotary = false;     // rotary positions on q and k (the angles come with the input)

  std::size_t query_width() const { return num_heads * head_dim; }         // H Dh
  std::size_t key_value_width() const { return num_kv_heads * head_dim; }  // Hkv Dh
  std::size_t mlp_width() const { return gated_mlp ? 2 * intermediate_size : intermediate_size; }
};

// A norm's parameters (D each): LayerNorm's weight and bias (nullptr: 1 and 0, as torch's
// elementwise_affine = False), RMSNorm's weight (no bias).
struct NormWeights {
  const float* weight = nullptr;
  const float* bias = nullptr;
};

struct BlockWeights {
  // The query, key and value projections: one fused (H Dh + 2 Hkv Dh, D) weight whose rows are
  // q's, then k's, then v's (BERT's three tensors placed back to back at load, GPT-2's c_attn,
  // torch's in_proj_weight), or, when qkv is not present(), three: q (H Dh, D), k and v (Hkv Dh, D).
  LinearWeight qkv, q, k, v;
  LinearWeight out;      // (D, H Dh)
  LinearWeight mlp_in;   // (F, D); gated: (2F, D), the gate's rows then the up projection's
  LinearWeight mlp_out;  // (D, F)
  NormWeights attention_norm, mlp_norm;
};

// One layer's part of a KV cache (llama2.c's key_cache / value_cache): keys and values of N x Hkv
// heads, `capacity` rows of Dh each, (N, Hkv, capacity, Dh); the first `length` rows of each head
// hold the tokens already seen. The block writes the new tokens' keys and values after them; the
// caller advances `length` once every layer has run.
struct KvCacheLayer {
  float* keys = nullptr;    // (N, Hkv, capacity, Dh)
  float* values = nullptr;  // (N, Hkv, capacity, Dh)
  std::size_t capacity = 0, length = 0;
};

// What every layer of one forward call shares.
struct BlockInput {
  std::size_t batch = 0, length = 0;  // N, L: the new tokens, N x L rows of x
  TokenOrder order = TokenOrder::BatchFirst;
  // Additive mask broadcastable to SDPA's (N, H, L, S), S = cached + new tokens: the key padding
  // (N, 1, 1, S), or torch's merged masks; nullptr for none.
  const TensorRef* mask = nullptr;
  // Rotary angles of each token (n, l) at row n L + l: cos and sin (N L, Dh / 2), when rotary.
  const float* rotary_cos = nullptr;
  const float* rotary_sin = nullptr;
  bool output_attentions = false;  // return the attention weights (N, H, L, S)
};

// The per-layer buffers of one forward call, allocated once and reused by every layer.
struct BlockScratch {
  Tensor normed;     // (N L, D)               a pre-norm's output
  Tensor qkv;        // (N L, H Dh + 2 Hkv Dh)  the projections (fused: side by side; else one after the other)
  Tensor q, k, v;    // (N, H, L, Dh), (N, Hkv, L, Dh) x 2 (k, v unused with a cache)
  Tensor context;    // (N L, H Dh)            attention output, heads merged
  Tensor projected;  // (N L, D)               a sublayer's output before the residual add
  Tensor hidden;     // (N L, F) or (N L, 2F)  the MLP's hidden layer
  Tensor gated;      // (N L, F)               act(gate) * up (gated only)
};

// x = act(x), n values in place (the block's MLP; the heads' Activation steps).
void activate(Activation activation, float* x, std::size_t n);

// out = Norm(in) over rows of `width` (LayerNorm: weight, bias; RMSNorm: weight). out may be in.
void normalize(NormKind norm, const NormWeights& weights, float eps, const float* in, float* out, std::size_t rows,
               std::size_t width);

// Throws aw::Error (Range, naming `fn`) when the buffers would not fit in memory.
BlockScratch allocate_block_scratch(const BlockConfig& config, std::size_t batch, std::size_t length,
                                    const std::string& fn);

// x (N L, D), in place: one block. With a cache, the new keys and values are written at rows
// [cache->length, cache->length + L) of its heads and the attention reads rows [0, that end).
// Returns the attention weights (N, H, L, S) when input.output_attentions, else an empty tensor.
Tensor transformer_block(const BlockConfig& config, const BlockWeights& weights, const BlockInput& input,
                         BlockScratch& scratch, float* x, KvCacheLayer* cache = nullptr);

}  // namespace aw
