#include "models/encoder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#include "core/error.hpp"
#include "kernels/activation.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/layer_norm.hpp"
#include "kernels/matmul.hpp"
#include "ops/attention.hpp"
#include "ops/linalg.hpp"

namespace aw {
namespace {

// Messages name the function and its arguments as transformers does (input_ids, attention_mask,
// token_type_ids), each through api_name: the JS bindings respell them (model.forward: inputIds,
// src/js/names.js).
std::string forward_fn() { return api_name("encoder.forward"); }

// The hidden state and the per-layer buffers of one forward call, allocated once and reused by
// every layer. rows = N * L.
struct Activations {
  std::size_t N, L, H, Dh, D, F, rows;
  Tensor x;          // (N, L, D)    the hidden state
  Tensor qkv;        // (N*L, 3D)    x [W_q; W_k; W_v]^T + [b_q; b_k; b_v]
  Tensor q, k, v;    // (N, H, L, Dh) each
  Tensor context;    // (N*L, D)     attention output, heads merged
  Tensor projected;  // (N*L, D)     a sublayer's output before the residual add
  Tensor hidden;     // (N*L, F)     feed-forward hidden layer
};

Activations allocate_activations(const EncoderConfig& c, std::int64_t N, std::int64_t L) {
  const std::int64_t D = c.hidden_size, H = c.num_heads, Dh = D / H, F = c.intermediate_size;
  const std::string fn = forward_fn();
  Activations a;
  a.N = static_cast<std::size_t>(N), a.L = static_cast<std::size_t>(L), a.H = static_cast<std::size_t>(H);
  a.Dh = static_cast<std::size_t>(Dh), a.D = static_cast<std::size_t>(D), a.F = static_cast<std::size_t>(F);
  a.rows = a.N * a.L;
  a.x = make_uninitialised_tensor({N, L, D}, fn + ": hidden state");
  a.qkv = make_uninitialised_tensor({N * L, 3 * D}, fn + ": query/key/value projections");
  a.q = make_uninitialised_tensor({N, H, L, Dh}, fn + ": query heads");
  a.k = make_uninitialised_tensor({N, H, L, Dh}, fn + ": key heads");
  a.v = make_uninitialised_tensor({N, H, L, Dh}, fn + ": value heads");
  a.context = make_uninitialised_tensor({N * L, D}, fn + ": attention output");
  a.projected = make_uninitialised_tensor({N * L, D}, fn + ": sublayer output");
  a.hidden = make_uninitialised_tensor({N * L, F}, fn + ": feed-forward hidden layer");
  return a;
}

void validate_input(const EncoderConfig& c, const EncoderInput& in) {
  const std::string fn = forward_fn(), ids = api_name("input_ids");
  if (in.batch < 1 || in.length < 1)
    fail(ErrorKind::Range, fn + ": " + ids + " must hold at least one token, got shape [" + std::to_string(in.batch) +
                               ", " + std::to_string(in.length) + "]");
  if (in.length > c.max_positions)
    fail(ErrorKind::Range, fn + ": " + ids + " has sequence length " + std::to_string(in.length) +
                               ", longer than the model's " + api_name("max_position_embeddings") + " " +
                               std::to_string(c.max_positions));
  if (in.batch > kMaxElements / in.length)
    fail(ErrorKind::Range,
         fn + ": batch " + std::to_string(in.batch) + " x length " + std::to_string(in.length) + " is too large");
  const std::size_t n = static_cast<std::size_t>(in.batch * in.length);
  auto where = [&](std::size_t i) {
    return " at [" + std::to_string(i / static_cast<std::size_t>(in.length)) + ", " +
           std::to_string(i % static_cast<std::size_t>(in.length)) + "]";
  };
  for (std::size_t i = 0; i < n; ++i)
    if (in.input_ids[i] < 0 || in.input_ids[i] >= c.vocab_size)
      fail(ErrorKind::Range, fn + ": " + ids + where(i) + " = " + std::to_string(in.input_ids[i]) +
                                 " is not a token id in [0, " + std::to_string(c.vocab_size) + ")");
  if (in.attention_mask)
    for (std::size_t i = 0; i < n; ++i)
      if (in.attention_mask[i] > 1)
        fail(ErrorKind::Range, fn + ": " + api_name("attention_mask") + where(i) + " = " +
                                   std::to_string(in.attention_mask[i]) + " must be 0 or 1");
  if (in.token_type_ids) {
    if (c.arch != EncoderArch::Bert)
      fail(ErrorKind::Type, fn + ": " + api_name("token_type_ids") +
                                " are not an input of distilbert (it has no token type embeddings)");
    for (std::size_t i = 0; i < n; ++i)
      if (in.token_type_ids[i] < 0 || in.token_type_ids[i] >= c.type_vocab_size)
        fail(ErrorKind::Range, fn + ": " + api_name("token_type_ids") + where(i) + " = " +
                                   std::to_string(in.token_type_ids[i]) + " is not in [0, " +
                                   std::to_string(c.type_vocab_size) + ")");
  }
}

// M (N, 1, 1, L): 0 where a key is a token, torch.finfo(float32).min where it is padding (as
// transformers: a fully masked row then weighs its keys equally instead of giving NaN). Empty
// when nothing is padding: the attention then reads no mask.
Tensor key_padding_mask(const EncoderInput& in) {
  const std::size_t n = static_cast<std::size_t>(in.batch * in.length);
  if (!in.attention_mask ||
      std::all_of(in.attention_mask, in.attention_mask + n, [](std::uint8_t m) { return m == 1; }))
    return {};
  Tensor m = make_uninitialised_tensor({in.batch, 1, 1, in.length}, forward_fn() + ": attention mask");
  for (std::size_t i = 0; i < n; ++i) m.data[i] = in.attention_mask[i] ? 0.0f : std::numeric_limits<float>::lowest();
  return m;
}

// x[n, l] = LayerNorm(word[ids[n, l]] + position[l] + token_type[types[n, l]])      (N*L, D)
void embed(const Encoder& model, const EncoderInput& in, Activations& a) {
  const ParameterLayout& p = model.layout();
  const float* word = model.parameter(p.global(GlobalParam::WordEmbeddings));
  const float* position = model.parameter(p.global(GlobalParam::PositionEmbeddings));
  const bool bert = model.config().arch == EncoderArch::Bert;
  const float* token_type = bert ? model.parameter(p.global(GlobalParam::TokenTypeEmbeddings)) : nullptr;
  float* x = a.x.data.data();
  for (std::size_t n = 0; n < a.N; ++n)
    for (std::size_t l = 0; l < a.L; ++l) {
      const std::size_t t = n * a.L + l;
      float* row = x + t * a.D;
      kernels::add(word + static_cast<std::size_t>(in.input_ids[t]) * a.D, 1, position + l * a.D, 1, row, a.D);
      if (bert) {  // token type 0 when none are given (transformers' buffered zeros)
        const std::size_t type = in.token_type_ids ? static_cast<std::size_t>(in.token_type_ids[t]) : 0;
        kernels::add(row, 1, token_type + type * a.D, 1, row, a.D);
      }
    }
  kernels::layer_norm(x, model.parameter(p.global(GlobalParam::EmbeddingsNormWeight)),
                      model.parameter(p.global(GlobalParam::EmbeddingsNormBias)), x, a.rows, a.D,
                      static_cast<float>(model.config().layer_norm_eps));
}

// qkv (N, L, 3, H, Dh) -> q, k, v (N, H, L, Dh): transformers' shape() / transpose_for_scores
void split_heads(Activations& a) {
  const float* qkv = a.qkv.data.data();
  float* out[3] = {a.q.data.data(), a.k.data.data(), a.v.data.data()};
  for (std::size_t n = 0; n < a.N; ++n)
    for (std::size_t l = 0; l < a.L; ++l) {
      const float* row = qkv + (n * a.L + l) * 3 * a.D;
      for (std::size_t which = 0; which < 3; ++which)
        for (std::size_t h = 0; h < a.H; ++h)
          std::copy_n(row + which * a.D + h * a.Dh, a.Dh, out[which] + ((n * a.H + h) * a.L + l) * a.Dh);
    }
}

// heads (N, H, L, Dh) -> context (N*L, D): transformers' unshape()
void merge_heads(const Tensor& heads, Activations& a) {
  for (std::size_t n = 0; n < a.N; ++n)
    for (std::size_t h = 0; h < a.H; ++h)
      for (std::size_t l = 0; l < a.L; ++l)
        std::copy_n(heads.data.data() + ((n * a.H + h) * a.L + l) * a.Dh, a.Dh,
                    a.context.data.data() + (n * a.L + l) * a.D + h * a.Dh);
}

// context = MultiHeadSelfAttention(x) before its output projection, through the SDPA op:
// softmax(q k^T / sqrt(Dh) + M) v. Returns the weights (N, H, L, L) when asked for.
Tensor self_attention(const Encoder& model, std::int64_t layer, const Tensor& mask, bool want_weights, Activations& a) {
  const ParameterLayout& p = model.layout();
  // one (N*L, D) x (3D, D)^T product: the query, key and value weights lie back to back
  linear_packed_rows_parallel(a.x.data.data(), model.parameter(p.layer(layer, LayerParam::QueryWeight)),
                              model.parameter(p.layer(layer, LayerParam::QueryBias)), a.qkv.data.data(), a.rows, a.D,
                              3 * a.D);
  split_heads(a);
  const TensorRef mask_ref = mask.ref();
  SdpaOptions options;
  options.float_mask = mask.data.empty() ? nullptr : &mask_ref;  // (N, 1, 1, L) broadcast over heads and queries
  options.return_weights = want_weights;
  SdpaResult r = scaled_dot_product_attention(a.q.ref(), a.k.ref(), a.v.ref(), options);
  merge_heads(r.output, a);
  return std::move(r.weights);
}

// x = LayerNorm(x + y)   (transformers: sa_layer_norm(sa_output + x), BertSelfOutput, ...)
void add_and_norm(const Encoder& model, const float* y, std::size_t weight_slot, std::size_t bias_slot,
                  Activations& a) {
  float* x = a.x.data.data();
  kernels::add(x, 1, y, 1, x, a.rows * a.D);
  kernels::layer_norm(x, model.parameter(weight_slot), model.parameter(bias_slot), x, a.rows, a.D,
                      static_cast<float>(model.config().layer_norm_eps));
}

// projected = act(x W_1^T + b_1) W_2^T + b_2   (distilbert FFN, bert BertIntermediate + BertOutput.dense)
void feed_forward(const Encoder& model, std::int64_t layer, Activations& a) {
  const ParameterLayout& p = model.layout();
  float* hidden = a.hidden.data.data();
  linear_packed_rows_parallel(a.x.data.data(), model.parameter(p.layer(layer, LayerParam::FfnInWeight)),
                              model.parameter(p.layer(layer, LayerParam::FfnInBias)), hidden, a.rows, a.D, a.F);
  const std::size_t n = a.rows * a.F;
  switch (model.config().activation) {
    case EncoderActivation::Gelu:
      kernels::gelu(hidden, hidden, n);
      break;
    case EncoderActivation::GeluTanh:
      kernels::gelu_tanh(hidden, hidden, n);
      break;
    case EncoderActivation::Relu:
      kernels::relu(hidden, hidden, n);
      break;
  }
  linear_packed_rows_parallel(hidden, model.parameter(p.layer(layer, LayerParam::FfnOutWeight)),
                              model.parameter(p.layer(layer, LayerParam::FfnOutBias)), a.projected.data.data(), a.rows,
                              a.F, a.D);
}

// One TransformerBlock / BertLayer: attention, then feed-forward, each with a residual and a
// post-LayerNorm. Returns the attention weights when asked for.
Tensor encoder_layer(const Encoder& model, std::int64_t layer, const Tensor& mask, bool want_weights, Activations& a) {
  const ParameterLayout& p = model.layout();
  Tensor weights = self_attention(model, layer, mask, want_weights, a);
  linear_packed_rows_parallel(a.context.data.data(), model.parameter(p.layer(layer, LayerParam::AttentionOutWeight)),
                              model.parameter(p.layer(layer, LayerParam::AttentionOutBias)), a.projected.data.data(),
                              a.rows, a.D, a.D);
  add_and_norm(model, a.projected.data.data(), p.layer(layer, LayerParam::AttentionNormWeight),
               p.layer(layer, LayerParam::AttentionNormBias), a);
  feed_forward(model, layer, a);
  add_and_norm(model, a.projected.data.data(), p.layer(layer, LayerParam::OutputNormWeight),
               p.layer(layer, LayerParam::OutputNormBias), a);
  return weights;
}

// BertPooler: tanh(x[:, 0] W_p^T + b_p)     (N, D)
Tensor pool(const Encoder& model, const Activations& a) {
  const ParameterLayout& p = model.layout();
  const std::string fn = forward_fn();
  Tensor first = make_uninitialised_tensor({static_cast<std::int64_t>(a.N), static_cast<std::int64_t>(a.D)},
                                           fn + ": pooler input");
  for (std::size_t n = 0; n < a.N; ++n) std::copy_n(a.x.data.data() + n * a.L * a.D, a.D, first.data.data() + n * a.D);
  Tensor out = make_uninitialised_tensor(first.shape, fn + ": pooler output");
  linear_packed_rows_parallel(first.data.data(), model.parameter(p.global(GlobalParam::PoolerWeight)),
                              model.parameter(p.global(GlobalParam::PoolerBias)), out.data.data(), a.N, a.D, a.D);
  for (float& y : out.data) y = std::tanh(y);
  return out;
}

Tensor copy_of(const Tensor& t, const std::string& what) {
  Tensor c = make_uninitialised_tensor(t.shape, what);
  std::copy(t.data.begin(), t.data.end(), c.data.begin());
  return c;
}

}  // namespace

Encoder::Encoder(const EncoderConfig& config, bool with_pooler)
    : config_(config), layout_(encoder_parameters(config, with_pooler)) {
  try {
    arena_.resize(layout_.arena_floats);
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::Range,
         "encoder: out of memory allocating " + std::to_string(layout_.arena_floats * 4) + " bytes for the weights");
  }
}

// The linear layers' weights (N_out, N_in), and the rows of each (the query, key and value
// weights are one (3D, D) product).
std::vector<std::pair<std::size_t, std::size_t>> Encoder::linear_weights() const {
  const std::size_t D = static_cast<std::size_t>(config_.hidden_size);
  const std::size_t F = static_cast<std::size_t>(config_.intermediate_size);
  std::vector<std::pair<std::size_t, std::size_t>> weights;  // (slot, rows)
  for (std::int64_t l = 0; l < config_.num_layers; ++l) {
    weights.push_back({layout_.layer(l, LayerParam::QueryWeight), 3 * D});
    weights.push_back({layout_.layer(l, LayerParam::AttentionOutWeight), D});
    weights.push_back({layout_.layer(l, LayerParam::FfnInWeight), F});
    weights.push_back({layout_.layer(l, LayerParam::FfnOutWeight), D});
  }
  if (has_pooler()) weights.push_back({layout_.global(GlobalParam::PoolerWeight), D});
  return weights;
}

// Each linear weight (n, k), panel by panel in place: its rows t*P .. t*P + P - 1 copied out,
// then packed back into the same floats (kernels/matmul.hpp, linear_pack_weight).
void Encoder::pack_linear_weights() {
  if (packed_) return;
  const std::size_t P = kernels::linear_panel_width();
  std::vector<float> rows;
  for (const auto& [slot, n] : linear_weights()) {
    const std::size_t k = static_cast<std::size_t>(layout_.specs[slot].shape.back());
    rows.resize(P * k);
    float* w = parameter(slot);
    for (std::size_t t = 0; t + P <= n; t += P) {
      std::copy_n(w + t * k, P * k, rows.data());
      kernels::linear_pack_weight(rows.data(), w + t * k, P, k);
    }
  }
  packed_ = true;
}

EncoderOutput Encoder::forward(const EncoderInput& in, const EncoderOptions& options) const {
  if (!packed_) fail(ErrorKind::Shape, forward_fn() + ": the model's weights have not finished loading");
  validate_input(config_, in);
  Activations a = allocate_activations(config_, in.batch, in.length);
  const Tensor mask = key_padding_mask(in);
  EncoderOutput out;
  const std::string state_copy = forward_fn() + ": " + api_name("hidden_states");

  embed(*this, in, a);
  if (options.output_hidden_states) out.hidden_states.push_back(copy_of(a.x, state_copy));
  for (std::int64_t layer = 0; layer < config_.num_layers; ++layer) {
    Tensor weights = encoder_layer(*this, layer, mask, options.output_attentions, a);
    if (options.output_attentions) out.attentions.push_back(std::move(weights));
    if (options.output_hidden_states) out.hidden_states.push_back(copy_of(a.x, state_copy));
  }
  if (has_pooler()) out.pooler_output = pool(*this, a);
  out.last_hidden_state = std::move(a.x);
  return out;
}

Tensor Encoder::word_embeddings(const std::int32_t* ids, std::size_t count) const {
  const std::string fn = api_name("word_embeddings");  // model.embeddings.word_embeddings(ids) in transformers
  for (std::size_t i = 0; i < count; ++i)
    if (ids[i] < 0 || ids[i] >= config_.vocab_size)
      fail(ErrorKind::Range, fn + ": ids[" + std::to_string(i) + "] = " + std::to_string(ids[i]) +
                                 " is not a token id in [0, " + std::to_string(config_.vocab_size) + ")");
  const std::int64_t D = config_.hidden_size;
  Tensor out = make_uninitialised_tensor({static_cast<std::int64_t>(count), D}, fn + ": result");
  const float* word = parameter(layout_.global(GlobalParam::WordEmbeddings));
  for (std::size_t i = 0; i < count; ++i)
    std::copy_n(word + static_cast<std::size_t>(ids[i]) * static_cast<std::size_t>(D), D,
                out.data.data() + i * static_cast<std::size_t>(D));
  return out;
}

}  // namespace aw
