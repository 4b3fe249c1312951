// Tests for src/models/causal_lm (with models/heads): the causal forward on tiny GPT-2, Llama and
// Qwen2 configurations with random weights -- the cache path equal to the full forward, a
// left-padded row equal to the row alone (positions from the mask), the outputs' shapes, the
// errors leaving the cache unchanged, and the rotary frequencies of rope_scaling. The float64
// comparison against transformers' code is tests/js/causal_lm.test.mjs (tests/js/reference/causal.mjs).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"
#include "models/causal_lm.hpp"
#include "models/checkpoint.hpp"
#include "models/model.hpp"

namespace {

using aw_test::error_of;

const char* kConfigs[] = {
    R"({"model_type": "gpt2", "vocab_size": 23, "n_embd": 10, "n_head": 2, "n_layer": 2, "n_positions": 16})",
    R"({"model_type": "llama", "vocab_size": 23, "hidden_size": 12, "num_attention_heads": 3, "num_key_value_heads": 1, "num_hidden_layers": 2, "intermediate_size": 13, "max_position_embeddings": 16, "tie_word_embeddings": true})",
    R"({"model_type": "qwen2", "vocab_size": 23, "hidden_size": 16, "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 1, "intermediate_size": 9, "max_position_embeddings": 16, "rope_theta": 1000})",
};

// A model of the config with random weights (norm weights near 1), every head loaded.
aw::Model random_model(const std::string& config, std::uint32_t seed) {
  const aw::ReadConfig r = aw::read_config(config);
  aw::Model model(*r.architecture, r.config, false);
  std::uint32_t state = seed;
  const auto uniform = [&] {  // [-0.5, 0.5)
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
  };
  const aw::ParameterLayout& p = model.layout();
  for (std::size_t s = 0; s < p.slots.size(); ++s) {
    if (!p.slots[s].present) continue;
    std::size_t n = 1;
    for (auto d : p.slots[s].shape) n *= static_cast<std::size_t>(d);
    const std::string& name = p.slots[s].name;
    const bool norm = p.slots[s].shape.size() == 1 &&
                      (name.find("norm") != std::string::npos || name.find("ln_") != std::string::npos) &&
                      name.find("bias") == std::string::npos;
    float* w = model.parameter(s);
    for (std::size_t i = 0; i < n; ++i) w[i] = norm ? 1.0f + 0.5f * uniform() : uniform();
  }
  model.pack_linear_weights();
  return model;
}

void check_close(const float* got, const float* want, std::size_t n, double tolerance = 1e-5) {
  for (std::size_t i = 0; i < n; ++i) {
    INFO("element " << i);
    CHECK(std::fabs(got[i] - want[i]) <= tolerance * (1 + std::fabs(want[i])));
  }
}

aw::CausalOutput forward(const aw::Model& m, const std::vector<std::int32_t>& ids, std::int64_t N,
                         const std::vector<std::uint8_t>* mask = nullptr, aw::KvCache* cache = nullptr,
                         aw::CausalOptions options = {}) {
  aw::CausalInput in;
  in.input_ids = ids.data();
  in.attention_mask = mask ? mask->data() : nullptr;
  in.batch = N;
  in.length = static_cast<std::int64_t>(ids.size()) / N;
  return aw::causal_forward(m, in, options, cache);
}

}  // namespace

TEST_CASE("causal_lm: the cache path equals the full forward", "[models][causal_lm]") {
  for (const char* config : kConfigs) {
    INFO(config);
    const aw::Model m = random_model(config, 7);
    const std::size_t V = 23;
    const std::vector<std::int32_t> ids = {3, 17, 0, 22, 9, 4, 11, 5};
    aw::CausalOptions all;
    all.output_hidden_states = all.output_attentions = true;
    const aw::CausalOutput full = forward(m, ids, 1, nullptr, nullptr, all);
    REQUIRE(full.logits.shape == aw::Shape{1, 8, 23});
    REQUIRE(full.hidden_states.size() == static_cast<std::size_t>(m.config().num_layers) + 1);
    REQUIRE(full.attentions.size() == static_cast<std::size_t>(m.config().num_layers));
    CHECK(full.attentions[0].shape == aw::Shape{1, m.config().num_heads, 8, 8});
    // a prompt of 3, then one token at a time (and one call of 2)
    aw::KvCache cache(m);
    const aw::CausalOutput first = forward(m, {ids.begin(), ids.begin() + 3}, 1, nullptr, &cache, all);
    check_close(first.logits.data.data(), full.logits.data.data(), 3 * V);
    CHECK(cache.length() == 3);
    for (std::size_t t = 3; t < 8;) {
      const std::size_t L = t == 5 ? 2 : 1;
      const aw::CausalOutput step = forward(m, {ids.begin() + t, ids.begin() + t + L}, 1, nullptr, &cache, all);
      check_close(step.logits.data.data(), full.logits.data.data() + t * V, L * V);
      // the new rows of the attention: (1, H, L, t + L), the full forward's rows t.. over keys 0..t+L
      const aw::Tensor& a = step.attentions.back();
      REQUIRE(a.shape ==
              aw::Shape{1, m.config().num_heads, static_cast<std::int64_t>(L), static_cast<std::int64_t>(t + L)});
      for (std::int64_t h = 0; h < m.config().num_heads; ++h)
        for (std::size_t l = 0; l < L; ++l)
          check_close(a.data.data() + (h * L + l) * (t + L), full.attentions.back().data.data() + (h * 8 + t + l) * 8,
                      t + L);
      // the last hidden state (after the final norm)
      const std::size_t D = static_cast<std::size_t>(m.config().hidden_size);
      check_close(step.hidden_states.back().data.data(), full.hidden_states.back().data.data() + t * D, L * D);
      t += L;
    }
    CHECK(cache.length() == 8);
    // last_logits_only: each row's last token
    aw::CausalOptions last;
    last.last_logits_only = true;
    const aw::CausalOutput tail = forward(m, ids, 1, nullptr, nullptr, last);
    CHECK(tail.logits.shape == aw::Shape{1, 1, 23});
    check_close(tail.logits.data.data(), full.logits.data.data() + 7 * V, V);
  }
}

TEST_CASE("causal_lm: a left-padded row gives what the row gives alone", "[models][causal_lm]") {
  for (const char* config : kConfigs) {
    INFO(config);
    const aw::Model m = random_model(config, 11);
    const std::size_t V = 23;
    const std::vector<std::int32_t> batch = {0, 0, 5, 6, 7, 1, 2, 3, 4, 8};
    const std::vector<std::uint8_t> mask = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    const aw::CausalOutput padded = forward(m, batch, 2, &mask);
    const aw::CausalOutput alone = forward(m, {5, 6, 7}, 1);
    const aw::CausalOutput second = forward(m, {1, 2, 3, 4, 8}, 1);
    check_close(padded.logits.data.data() + 2 * V, alone.logits.data.data(), 3 * V);
    check_close(padded.logits.data.data() + 5 * V, second.logits.data.data(), 5 * V);
    // and through the cache, a step at a time after the padded prompt
    aw::KvCache cache(m);
    forward(m, batch, 2, &mask, &cache);
    const aw::CausalOutput step = forward(m, {9, 10}, 2, nullptr, &cache);
    const aw::CausalOutput alone_next = forward(m, {5, 6, 7, 9}, 1);
    const aw::CausalOutput second_next = forward(m, {1, 2, 3, 4, 8, 10}, 1);
    check_close(step.logits.data.data(), alone_next.logits.data.data() + 3 * V, V);
    check_close(step.logits.data.data() + V, second_next.logits.data.data() + 5 * V, V);
  }
}

TEST_CASE("causal_lm: bad input is an Error naming it, the cache unchanged", "[models][causal_lm]") {
  const aw::Model m = random_model(kConfigs[0], 3);
  const aw::Model other = random_model(kConfigs[0], 4);
  aw::KvCache cache(m);
  forward(m, {1, 2, 3}, 1, nullptr, &cache);
  CHECK(error_of([&] { forward(m, std::vector<std::int32_t>(14, 1), 1, nullptr, &cache); }) ==
        "lm.forward: 3 cached + 14 tokens are more than the model's max_position_embeddings 16");
  CHECK(error_of([&] { forward(m, std::vector<std::int32_t>(17, 1), 1); }) ==
        "lm.forward: 17 tokens are more than the model's max_position_embeddings 16");
  CHECK(error_of([&] {
          forward(m, {1, 2}, 2, nullptr, &cache);
        }) == "lm.forward: cache holds 1 sequences, input_ids has 2");
  CHECK(error_of([&] { forward(other, {1}, 1, nullptr, &cache); }) == "lm.forward: cache belongs to another model");
  CHECK(error_of([&] {
          forward(m, {1, 23}, 1, nullptr, &cache);
        }) == "lm.forward: input_ids at [0, 1] = 23 is not a token id in [0, 23)");
  const std::vector<std::uint8_t> mask = {2};
  CHECK(error_of([&] { forward(m, {1}, 1, &mask, &cache); }) ==
        "lm.forward: attention_mask at [0, 0] = 2 must be 0 or 1");
  CHECK(cache.length() == 3);
  // still usable, and equal to the full forward
  const aw::CausalOutput step = forward(m, {4}, 1, nullptr, &cache);
  const aw::CausalOutput full = forward(m, {1, 2, 3, 4}, 1);
  check_close(step.logits.data.data(), full.logits.data.data() + 3 * 23, 23);
}

TEST_CASE("causal_lm: a forward that fails leaves an empty cache empty", "[models][causal_lm]") {
  // the logits (1000, 16, 40000) are refused before any layer runs (or the cache takes a batch)
  const aw::Model wide = random_model(
      R"({"model_type": "gpt2", "vocab_size": 40000, "n_embd": 2, "n_head": 1, "n_layer": 1, "n_positions": 16})", 5);
  aw::KvCache wide_cache(wide);
  CHECK(error_of([&] { forward(wide, std::vector<std::int32_t>(1000 * 16, 1), 1000, nullptr, &wide_cache); }) ==
        "lm.forward: the logits of batch 1000 x length 16 x vocabulary 40000 would have more than 536870912 "
        "elements");
  CHECK(wide_cache.batch() == 0);
  // 16 heads of width 1 over 8192 tokens: output_attentions' (1, 16, 8192, 8192) weights are too
  // many elements, found inside the first layer, after the cache took the batch: emptied again
  const aw::Model m = random_model(
      R"({"model_type": "gpt2", "vocab_size": 5, "n_embd": 16, "n_head": 16, "n_layer": 1, "n_positions": 8192})", 6);
  aw::KvCache cache(m);
  aw::CausalOptions attentions;
  attentions.output_attentions = true;
  const std::string error =
      error_of([&] { forward(m, std::vector<std::int32_t>(8192, 1), 1, nullptr, &cache, attentions); });
  CHECK(error.find("more than 536870912 elements") != std::string::npos);
  CHECK(cache.batch() == 0);
  CHECK(cache.length() == 0);
  // another batch size is welcome, and the cache path still equals the full forward
  forward(m, {1, 2, 3, 4}, 2, nullptr, &cache);
  const aw::CausalOutput step = forward(m, {4, 2}, 2, nullptr, &cache);
  const aw::CausalOutput full = forward(m, {1, 2, 4, 3, 4, 2}, 2);
  check_close(step.logits.data.data(), full.logits.data.data() + 2 * 5, 5);
  check_close(step.logits.data.data() + 5, full.logits.data.data() + 5 * 5, 5);
}

TEST_CASE("causal_lm: a cache too large is refused, its size counted in 64 bits", "[models][causal_lm]") {
  // 64 layers x 4096 sequences x 1 key/value head x 16 tokens x head_dim 1024 = 2^32 floats: a
  // product that wraps to 0 in wasm's 32-bit size_t, and passed the check before
  const aw::Model m = random_model(
      R"({"model_type": "llama", "vocab_size": 5, "hidden_size": 16, "num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 1024, "num_hidden_layers": 64, "intermediate_size": 1, "max_position_embeddings": 16})",
      7);
  aw::KvCache cache(m);
  CHECK(error_of([&] { forward(m, std::vector<std::int32_t>(4096, 1), 4096, nullptr, &cache); }) ==
        "lm.forward: a key/value cache of 16 tokens x 4096 sequences would not fit in memory");
  CHECK(cache.batch() == 0);
  forward(m, {1, 2}, 2, nullptr, &cache);  // still usable
  CHECK(cache.length() == 1);
}

TEST_CASE("causal_lm: rotary frequencies of rope_scaling (modeling_rope_utils.py)", "[models][causal_lm]") {
  aw::ModelConfig c;
  c.head_dim = 128;
  c.rope_theta = 500000.0;
  const std::vector<double> plain = aw::rotary_inverse_frequencies(c);
  REQUIRE(plain.size() == 64);
  CHECK(plain[0] == 1.0);
  CHECK(plain[10] == Approx(1.0 / std::pow(500000.0, 20.0 / 128)).epsilon(1e-15));
  c.rope_scaling.type = aw::RopeType::Linear;
  c.rope_scaling.factor = 4;
  CHECK(aw::rotary_inverse_frequencies(c)[10] == Approx(plain[10] / 4).epsilon(1e-15));
  // Llama 3.1: factor 8, low 1, high 4, original 8192. Wavelengths 2 pi / f below 8192 / 4 = 2048
  // are kept, above 8192 divided by 8, between interpolated by (8192 / wavelength - 1) / 3.
  c.rope_scaling = {aw::RopeType::Llama3, 8.0, 1.0, 4.0, 8192.0};
  const std::vector<double> l3 = aw::rotary_inverse_frequencies(c);
  const double pi = 3.14159265358979323846;
  for (std::size_t i = 0; i < 64; ++i) {
    const double wavelength = 2 * pi / plain[i];
    INFO("i " << i << ", wavelength " << wavelength);
    if (wavelength < 2048)
      CHECK(l3[i] == plain[i]);
    else if (wavelength > 8192)
      CHECK(l3[i] == Approx(plain[i] / 8).epsilon(1e-15));
    else {
      const double s = (8192 / wavelength - 1) / 3;
      CHECK(l3[i] == Approx((1 - s) * plain[i] / 8 + s * plain[i]).epsilon(1e-12));
      CHECK(l3[i] < plain[i]);
      CHECK(l3[i] > plain[i] / 8);
    }
  }
}
