// Tests for src/models/model: the encoder forward (DistilBERT, BERT through their tables) against
// the library's TransformerEncoderLayer op (torch's nn.TransformerEncoderLayer, post-norm,
// itself tested against float64) on the weights in the checkpoint's layout: a BERT layer is that
// layer with in_proj_weight = [W_q; W_k; W_v]; this checks the packing, the fused q/k/v rows and
// the mask. Then padding, attention weights, input checks and threads. (The float64 reference
// of whole models from transformers' modeling files is in tests/js/reference/encoder.mjs; the
// block's own float64 tests in transformer_block_test.cpp; the config and tensor rules in
// checkpoint_test.cpp.)
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "models/checkpoint.hpp"
#include "models/model.hpp"
#include "ops/transformer_encoder_layer.hpp"

namespace {

using aw_test::error_of;

// A tiny config of a registered architecture, read from config.json text: 3 heads of 4, 2 layers.
aw::ModelConfig tiny(const std::string& model_type, const std::string& activation = "gelu") {
  const std::string json =
      model_type == "bert" ? R"({"model_type": "bert", "vocab_size": 50, "hidden_size": 12, "num_attention_heads": 3,
               "num_hidden_layers": 2, "intermediate_size": 19, "max_position_embeddings": 16,
               "type_vocab_size": 2, "hidden_act": ")" +
                                 activation + R"("})"
                           : R"({"model_type": "distilbert", "vocab_size": 50, "dim": 12, "n_heads": 3, "n_layers": 2,
               "hidden_dim": 19, "max_position_embeddings": 16, "activation": ")" +
                                 activation + R"("})";
  return aw::read_config(json).config;
}

aw::Model make_model(const aw::ModelConfig& c, bool with_pooler) {
  return aw::Model(*aw::find_architecture(c.model_type), c, with_pooler);
}

// Every parameter random: LayerNorm weights near 1, the rest in [-0.5, 0.5); then the linear
// weights packed for forward(), unless the test reads them in the checkpoint's layout.
void randomise(aw::Model& model, std::uint32_t seed, bool pack = true) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  const auto& slots = model.layout().slots;
  for (std::size_t s = 0; s < slots.size(); ++s) {
    if (!slots[s].present) continue;
    std::size_t n = 1;
    for (auto d : slots[s].shape) n *= static_cast<std::size_t>(d);
    const aw::Param p = slots[s].param;
    const bool norm_weight =
        p == aw::Param::EmbeddingNormWeight || p == aw::Param::AttentionNormWeight || p == aw::Param::MlpNormWeight;
    float* values = model.parameter(s);
    for (std::size_t i = 0; i < n; ++i) values[i] = norm_weight ? 1.0f + u(rng) * 0.5f : u(rng);
  }
  if (pack) model.pack_linear_weights();
}

void check_close(const float* got, const float* want, std::size_t n, double rel, const char* what) {
  for (std::size_t i = 0; i < n; ++i) {
    INFO(what << "[" << i << "]: " << got[i] << " vs " << want[i]);
    REQUIRE(std::fabs(static_cast<double>(got[i]) - want[i]) <=
            rel * std::max(1.0, std::fabs(static_cast<double>(want[i]))));
  }
}

}  // namespace

TEST_CASE("encoder forward: each BERT layer is torch's post-norm TransformerEncoderLayer (gelu, eps, padding mask)",
          "[models][model]") {
  const aw::ModelConfig c = tiny("bert");
  aw::Model model = make_model(c, true),
            unpacked = make_model(c, true);  // the same weights; `unpacked` in the checkpoint's layout
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
  const auto ref = [&](std::int64_t layer, aw::Param k, aw::Shape shape) {
    return aw::TensorRef{unpacked.parameter(p.layer(layer, k)), shape};
  };
  std::vector<std::uint8_t> ignore(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) ignore[i] = mask[i] ? 0 : 1;  // torch's MHA polarity
  const aw::BoolTensorRef padding{ignore.data(), {N, L}};
  for (std::int64_t layer = 0; layer < c.num_layers; ++layer) {
    const aw::TensorRef in_w = ref(layer, aw::Param::QkvWeight, {3 * D, D}),
                        in_b = ref(layer, aw::Param::QkvBias, {3 * D}),
                        out_w = ref(layer, aw::Param::OutWeight, {D, D}), out_b = ref(layer, aw::Param::OutBias, {D}),
                        w1 = ref(layer, aw::Param::MlpInWeight, {F, D}), b1 = ref(layer, aw::Param::MlpInBias, {F}),
                        w2 = ref(layer, aw::Param::MlpOutWeight, {D, F}), b2 = ref(layer, aw::Param::MlpOutBias, {D}),
                        n1w = ref(layer, aw::Param::AttentionNormWeight, {D}),
                        n1b = ref(layer, aw::Param::AttentionNormBias, {D}),
                        n2w = ref(layer, aw::Param::MlpNormWeight, {D}), n2b = ref(layer, aw::Param::MlpNormBias, {D});
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
    lo.eps = static_cast<float>(c.norm_eps);
    const aw::Tensor want = aw::transformer_encoder_layer(out.hidden_states[layer].ref(), lp, lo);
    INFO("layer " << layer);
    check_close(out.hidden_states[layer + 1].data.data(), want.data.data(), want.data.size(), 1e-5, "hidden state");
  }
}

TEST_CASE("encoder forward: padded rows equal each text alone; attention rows sum to 1, padding keys get 0",
          "[models][model]") {
  for (const std::string arch : {"distilbert", "bert"}) {
    const aw::ModelConfig c = tiny(arch, arch == "bert" ? "gelu_new" : "relu");
    aw::Model model = make_model(c, false);
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

TEST_CASE("encoder forward: inputs checked before computing, errors name the position", "[models][model]") {
  aw::Model distil = make_model(tiny("distilbert"), false), bert = make_model(tiny("bert"), false);
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
  CHECK(std::memcmp(rows.data.data() + 12, bert.parameter(bert.layout().global(aw::Param::WordEmbeddings)) + 2 * 12,
                    48) == 0);
}

TEST_CASE("encoder forward: refused until the weights are packed", "[models][model]") {
  aw::Model model = make_model(tiny("distilbert"), false);
  randomise(model, 3, false);
  const std::vector<std::int32_t> ids = {1, 2, 3};
  CHECK(error_of([&] {
          model.forward({ids.data(), nullptr, nullptr, 1, 3}, {});
        }) == "encoder.forward: the model's weights have not finished loading");
  model.pack_linear_weights();
  CHECK(error_of([&] { model.forward({ids.data(), nullptr, nullptr, 1, 3}, {}); }) == "no error");
}

TEST_CASE("encoder forward: 1, 2 and 3 threads give the same bytes", "[models][model]") {
  const aw::ModelConfig c = aw::read_config(R"({"model_type": "bert", "vocab_size": 50, "hidden_size": 64,
      "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 130, "max_position_embeddings": 200})")
                                .config;
  aw::Model model = make_model(c, true);
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
