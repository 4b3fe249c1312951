#include "models/encoder_config.hpp"

#include <cmath>

#include "core/error.hpp"

namespace aw {
namespace {

void check_size(std::int64_t value, std::int64_t lo, std::int64_t hi, const char* field) {
  if (value < lo || value > hi)
    fail(ErrorKind::Range, api_name("encoder config") + ": " + field + " must be in [" + std::to_string(lo) + ", " +
                               std::to_string(hi) + "], got " + std::to_string(value));
}

bool is_bert(const EncoderConfig& c) { return c.arch == EncoderArch::Bert; }

// Floats of every parameter, in int64 (each size is bounded, so no product overflows).
std::int64_t parameter_floats(const EncoderConfig& c) {
  const std::int64_t D = c.hidden_size, F = c.intermediate_size;
  const std::int64_t embeddings = (c.vocab_size + c.max_positions + c.type_vocab_size) * D + 2 * D;
  const std::int64_t layer = 4 * D * D + 4 * D + 2 * D * F + F + D + 4 * D;
  const std::int64_t pooler = is_bert(c) ? D * D + D : 0;
  return embeddings + c.num_layers * layer + pooler;
}

}  // namespace

void validate_encoder_config(const EncoderConfig& c) {
  using L = EncoderLimits;
  check_size(c.hidden_size, 1, L::hidden_size, "hidden size (dim / hidden_size)");
  check_size(c.num_heads, 1, c.hidden_size, "number of heads (n_heads / num_attention_heads)");
  if (c.hidden_size % c.num_heads != 0)
    fail(ErrorKind::Range, api_name("encoder config") + ": the number of heads " + std::to_string(c.num_heads) +
                               " must divide the hidden size " + std::to_string(c.hidden_size));
  check_size(c.num_layers, 1, L::num_layers, "number of layers (n_layers / num_hidden_layers)");
  check_size(c.intermediate_size, 1, L::intermediate_size, "feed-forward size (hidden_dim / intermediate_size)");
  check_size(c.vocab_size, 1, L::vocab_size, "vocab_size");
  check_size(c.max_positions, 1, L::max_positions, "max_position_embeddings");
  if (is_bert(c))
    check_size(c.type_vocab_size, 1, L::type_vocab_size, "type_vocab_size");
  else
    check_size(c.type_vocab_size, 0, 0, "type_vocab_size (distilbert has no token types)");
  if (!(std::isfinite(c.layer_norm_eps) && c.layer_norm_eps >= 0 && c.layer_norm_eps < 1))
    fail(ErrorKind::Range, api_name("encoder config") + ": layer_norm_eps must be a number in [0, 1), got " +
                               std::to_string(c.layer_norm_eps));
  const std::int64_t floats = parameter_floats(c);
  if (floats > kMaxElements)
    fail(ErrorKind::Range, api_name("encoder config") + ": the parameters would take " + std::to_string(floats) +
                               " floats, more than the " + std::to_string(kMaxElements) +
                               " (2 GiB) the wasm heap can hold");
}

ParameterLayout encoder_parameters(const EncoderConfig& c, bool with_pooler) {
  validate_encoder_config(c);
  const std::int64_t V = c.vocab_size, D = c.hidden_size, F = c.intermediate_size, P = c.max_positions,
                     T = c.type_vocab_size;
  const bool bert = is_bert(c);
  ParameterLayout layout;
  layout.specs.resize(static_cast<std::size_t>(GlobalParam::Count) +
                      static_cast<std::size_t>(c.num_layers) * static_cast<std::size_t>(LayerParam::Count));
  std::size_t next = 0;  // floats used so far
  // Places a parameter; `follows` = directly after the previous one (the fused query/key/value
  // blocks), otherwise at the next multiple of 16 floats (64 bytes: a cache line).
  auto place = [&](std::size_t slot, std::string name, Shape shape, bool follows = false) {
    ParameterSpec& s = layout.specs[slot];
    if (!follows) next = (next + 15) / 16 * 16;
    s.name = std::move(name);
    s.offset = next;
    std::size_t n = 1;
    for (auto d : shape) n *= static_cast<std::size_t>(d);
    s.shape = std::move(shape);
    next += n;
  };
  auto absent = [&](std::size_t slot, std::string name, Shape shape) {
    ParameterSpec& s = layout.specs[slot];
    s.name = std::move(name);
    s.shape = std::move(shape);
    s.present = false;
  };

  place(layout.global(GlobalParam::WordEmbeddings), "embeddings.word_embeddings.weight", {V, D});
  place(layout.global(GlobalParam::PositionEmbeddings), "embeddings.position_embeddings.weight", {P, D});
  if (bert)
    place(layout.global(GlobalParam::TokenTypeEmbeddings), "embeddings.token_type_embeddings.weight", {T, D});
  else
    absent(layout.global(GlobalParam::TokenTypeEmbeddings), "embeddings.token_type_embeddings.weight", {0, D});
  place(layout.global(GlobalParam::EmbeddingsNormWeight), "embeddings.LayerNorm.weight", {D});
  place(layout.global(GlobalParam::EmbeddingsNormBias), "embeddings.LayerNorm.bias", {D});
  const std::size_t pooler_w = layout.global(GlobalParam::PoolerWeight),
                    pooler_b = layout.global(GlobalParam::PoolerBias);
  if (bert && with_pooler) {
    place(pooler_w, "pooler.dense.weight", {D, D});
    place(pooler_b, "pooler.dense.bias", {D});
  } else {
    absent(pooler_w, "pooler.dense.weight", {D, D});
    absent(pooler_b, "pooler.dense.bias", {D});
  }
  if (bert) layout.specs[pooler_w].optional = layout.specs[pooler_b].optional = true;

  // Per layer: distilbert's TransformerBlock / bert's BertLayer, the same computation.
  for (std::int64_t l = 0; l < c.num_layers; ++l) {
    const std::string p = (bert ? "encoder.layer." : "transformer.layer.") + std::to_string(l) + ".";
    auto slot = [&](LayerParam k) { return layout.layer(l, k); };
    const std::string q = bert ? "attention.self.query." : "attention.q_lin.";
    const std::string k = bert ? "attention.self.key." : "attention.k_lin.";
    const std::string v = bert ? "attention.self.value." : "attention.v_lin.";
    place(slot(LayerParam::QueryWeight), p + q + "weight", {D, D});
    place(slot(LayerParam::KeyWeight), p + k + "weight", {D, D}, true);
    place(slot(LayerParam::ValueWeight), p + v + "weight", {D, D}, true);
    place(slot(LayerParam::QueryBias), p + q + "bias", {D});
    place(slot(LayerParam::KeyBias), p + k + "bias", {D}, true);
    place(slot(LayerParam::ValueBias), p + v + "bias", {D}, true);
    const std::string out = bert ? "attention.output.dense." : "attention.out_lin.";
    const std::string norm1 = bert ? "attention.output.LayerNorm." : "sa_layer_norm.";
    const std::string ffn_in = bert ? "intermediate.dense." : "ffn.lin1.";
    const std::string ffn_out = bert ? "output.dense." : "ffn.lin2.";
    const std::string norm2 = bert ? "output.LayerNorm." : "output_layer_norm.";
    place(slot(LayerParam::AttentionOutWeight), p + out + "weight", {D, D});
    place(slot(LayerParam::AttentionOutBias), p + out + "bias", {D});
    place(slot(LayerParam::AttentionNormWeight), p + norm1 + "weight", {D});
    place(slot(LayerParam::AttentionNormBias), p + norm1 + "bias", {D});
    place(slot(LayerParam::FfnInWeight), p + ffn_in + "weight", {F, D});
    place(slot(LayerParam::FfnInBias), p + ffn_in + "bias", {F});
    place(slot(LayerParam::FfnOutWeight), p + ffn_out + "weight", {D, F});
    place(slot(LayerParam::FfnOutBias), p + ffn_out + "bias", {D});
    place(slot(LayerParam::OutputNormWeight), p + norm2 + "weight", {D});
    place(slot(LayerParam::OutputNormBias), p + norm2 + "bias", {D});
  }
  layout.arena_floats = (next + 15) / 16 * 16;
  return layout;
}

}  // namespace aw
