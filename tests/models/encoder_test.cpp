// Tests for src/models/encoder_config and src/models/encoder: the config's bounds and messages,
// the parameter layout (names as transformers' state_dict, the query/key/value weights back to
// back), and the forward against the library's TransformerEncoderLayer op (torch's
// nn.TransformerEncoderLayer, post-norm, itself tested against float64): a BERT layer is that
// layer with in_proj_weight = [W_q; W_k; W_v]. Then padding, attention weights, input checks and
// threads. (The float64 reference of whole models from transformers' modeling files is in
// tests/js/reference/encoder.mjs.)
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "models/encoder.hpp"
#include "ops/transformer_encoder_layer.hpp"

namespace {

aw::EncoderConfig tiny(aw::EncoderArch arch) {
  aw::EncoderConfig c;
  c.arch = arch;
  c.vocab_size = 50;
  c.hidden_size = 12;  // 3 heads of 4
  c.num_heads = 3;
  c.num_layers = 2;
  c.intermediate_size = 19;
  c.max_positions = 16;
  c.type_vocab_size = arch == aw::EncoderArch::Bert ? 2 : 0;
  c.activation = aw::EncoderActivation::Gelu;
  c.layer_norm_eps = 1e-12;
  return c;
}

// Every parameter random: LayerNorm weights near 1, the rest in [-0.5, 0.5); then the linear
// weights packed for forward(), unless the test reads them in the checkpoint's layout.
void randomise(aw::Encoder& model, std::uint32_t seed, bool pack = true) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  const auto& specs = model.layout().specs;
  for (std::size_t s = 0; s < specs.size(); ++s) {
    if (!specs[s].present) continue;
    std::size_t n = 1;
    for (auto d : specs[s].shape) n *= static_cast<std::size_t>(d);
    const bool norm_weight = specs[s].name.find("LayerNorm.weight") != std::string::npos ||
                             specs[s].name.find("layer_norm.weight") != std::string::npos;
    float* p = model.parameter(s);
    for (std::size_t i = 0; i < n; ++i) p[i] = norm_weight ? 1.0f + u(rng) * 0.5f : u(rng);
  }
  if (pack) model.pack_linear_weights();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const aw::Error& e) {
    return e.what();
  }
  return "no error";
}

void check_close(const float* got, const float* want, std::size_t n, double rel, const char* what) {
  for (std::size_t i = 0; i < n; ++i) {
    INFO(what << "[" << i << "]: " << got[i] << " vs " << want[i]);
    REQUIRE(std::fabs(static_cast<double>(got[i]) - want[i]) <=
            rel * std::max(1.0, std::fabs(static_cast<double>(want[i]))));
  }
}

}  // namespace

TEST_CASE("encoder config: every size bounded, named in the message; parameters must fit 2 GiB", "[models][encoder]") {
  const auto with = [](auto change) {
    aw::EncoderConfig c = tiny(aw::EncoderArch::Bert);
    change(c);
    return error_of([&] { aw::validate_encoder_config(c); });
  };
  CHECK(with([](auto&) {}) == "no error");
  CHECK(with([](auto& c) { c.hidden_size = 0; }) ==
        "encoder config: hidden size (dim / hidden_size) must be in [1, 16384], got 0");
  CHECK(with([](auto& c) { c.num_heads = 5; }) ==
        "encoder config: the number of heads 5 must divide the hidden size 12");
  CHECK(with([](auto& c) { c.num_layers = 1000; }) ==
        "encoder config: number of layers (n_layers / num_hidden_layers) must be in [1, 256], got 1000");
  CHECK(with([](auto& c) { c.vocab_size = 5'000'000; }) ==
        "encoder config: vocab_size must be in [1, 4000000], got 5000000");
  CHECK(with([](auto& c) { c.type_vocab_size = 0; }) == "encoder config: type_vocab_size must be in [1, 1024], got 0");
  CHECK(with([](auto& c) {
          c.layer_norm_eps = NAN;
        }).rfind("encoder config: layer_norm_eps must be a number in [0, 1)", 0) == 0);
  CHECK(with([](auto& c) {
          c.hidden_size = 16384;
          c.num_heads = 16;
          c.intermediate_size = 65536;
          c.num_layers = 100;
        }).find("the parameters would take") != std::string::npos);
  aw::EncoderConfig d = tiny(aw::EncoderArch::DistilBert);
  d.type_vocab_size = 2;
  CHECK(error_of([&] { aw::validate_encoder_config(d); }) ==
        "encoder config: type_vocab_size (distilbert has no token types) must be in [0, 0], got 2");
}

TEST_CASE("encoder parameters: transformers' names and shapes, query/key/value back to back", "[models][encoder]") {
  const aw::EncoderConfig c = tiny(aw::EncoderArch::DistilBert);
  const aw::ParameterLayout p = aw::encoder_parameters(c, false);
  const auto& q = p.specs[p.layer(1, aw::LayerParam::QueryWeight)];
  CHECK(q.name == "transformer.layer.1.attention.q_lin.weight");
  CHECK(q.shape == aw::Shape{12, 12});
  CHECK(p.specs[p.layer(1, aw::LayerParam::KeyWeight)].offset == q.offset + 144);
  CHECK(p.specs[p.layer(1, aw::LayerParam::ValueWeight)].offset == q.offset + 288);
  CHECK(p.specs[p.layer(1, aw::LayerParam::ValueBias)].offset ==
        p.specs[p.layer(1, aw::LayerParam::QueryBias)].offset + 24);
  CHECK(p.specs[p.layer(0, aw::LayerParam::FfnInWeight)].name == "transformer.layer.0.ffn.lin1.weight");
  CHECK(p.specs[p.layer(0, aw::LayerParam::FfnInWeight)].shape == aw::Shape{19, 12});
  CHECK_FALSE(p.specs[p.global(aw::GlobalParam::TokenTypeEmbeddings)].present);
  CHECK_FALSE(p.specs[p.global(aw::GlobalParam::PoolerWeight)].present);
  const aw::ParameterLayout b = aw::encoder_parameters(tiny(aw::EncoderArch::Bert), true);
  CHECK(b.specs[b.layer(0, aw::LayerParam::AttentionNormBias)].name ==
        "encoder.layer.0.attention.output.LayerNorm.bias");
  CHECK(b.specs[b.layer(0, aw::LayerParam::FfnOutWeight)].name == "encoder.layer.0.output.dense.weight");
  CHECK(b.specs[b.layer(0, aw::LayerParam::FfnOutWeight)].shape == aw::Shape{12, 19});
  CHECK(b.specs[b.global(aw::GlobalParam::TokenTypeEmbeddings)].shape == aw::Shape{2, 12});
  CHECK(b.specs[b.global(aw::GlobalParam::PoolerWeight)].optional);
  std::size_t floats = 0;
  for (const auto& s : b.specs) {
    if (!s.present) continue;
    std::size_t n = 1;
    for (auto d : s.shape) n *= static_cast<std::size_t>(d);
    floats += n;
    CHECK(s.offset + n <= b.arena_floats);
  }
  CHECK(b.arena_floats < floats + 16 * b.specs.size() + 16);
}

TEST_CASE("encoder forward: each BERT layer is torch's post-norm TransformerEncoderLayer (gelu, eps, padding mask)",
          "[models][encoder]") {
  aw::EncoderConfig c = tiny(aw::EncoderArch::Bert);
  aw::Encoder model(c, true), unpacked(c, true);  // the same weights; `unpacked` in the checkpoint's layout
  randomise(model, 7);
  randomise(unpacked, 7, false);
  const std::int64_t N = 2, L = 7, D = c.hidden_size, F = c.intermediate_size;
  const std::vector<std::int32_t> ids = {1, 5, 9, 13, 17, 21, 2, 3, 44, 8, 11, 0, 0, 0};
  const std::vector<std::uint8_t> mask = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0};
  const std::vector<std::int32_t> types = {0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0};
  aw::EncoderInput in{ids.data(), mask.data(), types.data(), N, L};
  aw::EncoderOptions opt;
  opt.output_hidden_states = opt.output_attentions = true;
  const aw::EncoderOutput out = model.forward(in, opt);
  REQUIRE(out.hidden_states.size() == 3);
  REQUIRE(out.attentions.size() == 2);
  CHECK(out.last_hidden_state.shape == aw::Shape{N, L, D});
  CHECK(out.attentions[0].shape == aw::Shape{N, 3, L, L});
  CHECK(out.pooler_output.shape == aw::Shape{N, D});

  const aw::ParameterLayout& p = model.layout();
  std::vector<std::uint8_t> ignore(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) ignore[i] = mask[i] ? 0 : 1;  // torch's MHA polarity
  const aw::BoolTensorRef padding{ignore.data(), {N, L}};
  for (std::int64_t layer = 0; layer < c.num_layers; ++layer) {
    auto ref = [&](aw::LayerParam k, aw::Shape shape) {
      return aw::TensorRef{unpacked.parameter(p.layer(layer, k)), shape};
    };
    const aw::TensorRef in_w = ref(aw::LayerParam::QueryWeight, {3 * D, D}),
                        in_b = ref(aw::LayerParam::QueryBias, {3 * D}),
                        out_w = ref(aw::LayerParam::AttentionOutWeight, {D, D}),
                        out_b = ref(aw::LayerParam::AttentionOutBias, {D}),
                        w1 = ref(aw::LayerParam::FfnInWeight, {F, D}), b1 = ref(aw::LayerParam::FfnInBias, {F}),
                        w2 = ref(aw::LayerParam::FfnOutWeight, {D, F}), b2 = ref(aw::LayerParam::FfnOutBias, {D}),
                        n1w = ref(aw::LayerParam::AttentionNormWeight, {D}),
                        n1b = ref(aw::LayerParam::AttentionNormBias, {D}),
                        n2w = ref(aw::LayerParam::OutputNormWeight, {D}),
                        n2b = ref(aw::LayerParam::OutputNormBias, {D});
    aw::EncoderLayerParams lp;
    lp.self_attn.in_proj_weight = &in_w;
    lp.self_attn.in_proj_bias = &in_b;
    lp.self_attn.out_proj_weight = &out_w;
    lp.self_attn.out_proj_bias = &out_b;
    lp.linear1_weight = &w1, lp.linear1_bias = &b1, lp.linear2_weight = &w2, lp.linear2_bias = &b2;
    lp.norm1_weight = &n1w, lp.norm1_bias = &n1b, lp.norm2_weight = &n2w, lp.norm2_bias = &n2b;
    aw::EncoderLayerOptions lo;
    lo.attn.num_heads = c.num_heads;
    lo.attn.batch_first = true;
    lo.attn.key_padding_mask_bool = &padding;
    lo.activation = aw::Activation::Gelu;
    lo.eps = static_cast<float>(c.layer_norm_eps);
    const aw::Tensor want = aw::transformer_encoder_layer(out.hidden_states[layer].ref(), lp, lo);
    INFO("layer " << layer);
    check_close(out.hidden_states[layer + 1].data.data(), want.data.data(), want.data.size(), 1e-5, "hidden state");
  }
}

TEST_CASE("encoder forward: padded rows equal each text alone; attention rows sum to 1, padding keys get 0",
          "[models][encoder]") {
  for (auto arch : {aw::EncoderArch::DistilBert, aw::EncoderArch::Bert}) {
    aw::EncoderConfig c = tiny(arch);
    c.activation = arch == aw::EncoderArch::Bert ? aw::EncoderActivation::GeluTanh : aw::EncoderActivation::Relu;
    aw::Encoder model(c, false);
    randomise(model, 11);
    const std::int64_t L = 9, D = c.hidden_size, H = c.num_heads;
    const std::vector<std::int32_t> batch_ids = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 0, 0, 0, 0};
    const std::vector<std::uint8_t> mask = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0};
    aw::EncoderOptions opt;
    opt.output_attentions = true;
    const auto batch = model.forward({batch_ids.data(), mask.data(), nullptr, 2, L}, opt);
    const auto first = model.forward({batch_ids.data(), nullptr, nullptr, 1, L}, opt);
    const auto second = model.forward({batch_ids.data() + L, nullptr, nullptr, 1, 4}, opt);
    check_close(batch.last_hidden_state.data.data(), first.last_hidden_state.data.data(), L * D, 1e-6, "row 0");
    check_close(batch.last_hidden_state.data.data() + L * D, second.last_hidden_state.data.data(), 4 * D, 1e-6,
                "row 1");
    for (const auto& a : batch.attentions)
      for (std::int64_t n = 0; n < 2; ++n)
        for (std::int64_t h = 0; h < H; ++h)
          for (std::int64_t i = 0; i < L; ++i) {
            double sum = 0;
            for (std::int64_t j = 0; j < L; ++j) {
              const float w = a.data[static_cast<std::size_t>(((n * H + h) * L + i) * L + j)];
              if (!mask[static_cast<std::size_t>(n * L + j)]) CHECK(w == 0.0f);
              sum += w;
            }
            CHECK(std::fabs(sum - 1.0) < 1e-5);
          }
  }
}

TEST_CASE("encoder forward: inputs checked before computing, errors name the position", "[models][encoder]") {
  aw::Encoder distil(tiny(aw::EncoderArch::DistilBert), false), bert(tiny(aw::EncoderArch::Bert), false);
  randomise(distil, 1);
  randomise(bert, 2);
  const std::vector<std::int32_t> ids = {1, 2, 50, 3};
  const std::vector<std::int32_t> types = {0, 1, 2, 0};
  const std::vector<std::uint8_t> mask = {1, 1, 2, 1};
  const std::vector<std::int32_t> long_ids(17, 1);
  CHECK(error_of([&] {
          distil.forward({ids.data(), nullptr, nullptr, 1, 4}, {});
        }) == "encoder.forward: input_ids at [0, 2] = 50 is not a token id in [0, 50)");
  CHECK(error_of([&] {
          distil.forward({ids.data(), nullptr, nullptr, 2, 2}, {});
        }) == "encoder.forward: input_ids at [1, 0] = 50 is not a token id in [0, 50)");
  CHECK(error_of([&] { distil.forward({ids.data(), mask.data(), nullptr, 1, 2}, {}); }) == "no error");
  CHECK(error_of([&] {
          distil.forward({types.data(), mask.data(), nullptr, 1, 4}, {});
        }) == "encoder.forward: attention_mask at [0, 2] = 2 must be 0 or 1");
  CHECK(error_of([&] {
          distil.forward({ids.data(), nullptr, types.data(), 1, 2}, {});
        }) == "encoder.forward: token_type_ids are not an input of distilbert (it has no token type embeddings)");
  CHECK(error_of([&] {
          bert.forward({types.data(), nullptr, types.data(), 1, 4}, {});
        }) == "encoder.forward: token_type_ids at [0, 2] = 2 is not in [0, 2)");
  CHECK(error_of([&] {
          bert.forward({long_ids.data(), nullptr, nullptr, 1, 17}, {});
        }) == "encoder.forward: input_ids has sequence length 17, longer than the model's max_position_embeddings 16");
  CHECK(error_of([&] {
          bert.forward({ids.data(), nullptr, nullptr, 0, 4}, {});
        }) == "encoder.forward: input_ids must hold at least one token, got shape [0, 4]");
  CHECK(error_of([&] { bert.word_embeddings(ids.data(), 4); }) ==
        "word_embeddings: ids[2] = 50 is not a token id in [0, 50)");
  const aw::Tensor rows = bert.word_embeddings(ids.data(), 2);
  CHECK(rows.shape == aw::Shape{2, 12});
  CHECK(std::memcmp(rows.data.data() + 12,
                    bert.parameter(bert.layout().global(aw::GlobalParam::WordEmbeddings)) + 2 * 12, 48) == 0);
}

TEST_CASE("encoder forward: refused until the weights are packed", "[models][encoder]") {
  aw::Encoder model(tiny(aw::EncoderArch::DistilBert), false);
  randomise(model, 3, false);
  const std::vector<std::int32_t> ids = {1, 2, 3};
  CHECK(error_of([&] {
          model.forward({ids.data(), nullptr, nullptr, 1, 3}, {});
        }) == "encoder.forward: the model's weights have not finished loading");
  model.pack_linear_weights();
  CHECK(error_of([&] { model.forward({ids.data(), nullptr, nullptr, 1, 3}, {}); }) == "no error");
}

TEST_CASE("encoder forward: 1, 2 and 3 threads give the same bytes", "[models][encoder]") {
  aw::EncoderConfig c = tiny(aw::EncoderArch::Bert);
  c.hidden_size = 64, c.num_heads = 4, c.intermediate_size = 130, c.max_positions = 200;
  aw::Encoder model(c, true);
  randomise(model, 5);
  std::vector<std::int32_t> ids(2 * 150);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int32_t>(i * 7 % 50);
  std::vector<std::uint8_t> mask(ids.size(), 1);
  std::fill(mask.begin() + 150 + 120, mask.end(), 0);
  const aw::EncoderInput in{ids.data(), mask.data(), nullptr, 2, 150};
  const aw::EncoderOutput one = model.forward(in, {});
  for (std::size_t threads : {2, 3}) {
    aw::set_thread_count(threads);
    const aw::EncoderOutput many = model.forward(in, {});
    aw::set_thread_count(1);
    CHECK(std::memcmp(many.last_hidden_state.data.data(), one.last_hidden_state.data.data(),
                      one.last_hidden_state.data.size() * 4) == 0);
    CHECK(std::memcmp(many.pooler_output.data.data(), one.pooler_output.data.data(),
                      one.pooler_output.data.size() * 4) == 0);
  }
}
