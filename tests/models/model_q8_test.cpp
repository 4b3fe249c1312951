// Tests for a q8 model (src/models/model with ModelDtype::Q8): the checkpoint's linear weights
// and word embeddings quantized as their bytes stream in (q, k and v as row ranges of one fused
// weight, chunks that split elements) equal each weight quantized whole from the float32 model's;
// every other parameter is the same floats; the arena holds none of them; the word embeddings
// read back as scale * q; the forward runs every linear layer through LinearFormat::Q8, within a
// per-token cosine of the float32 model's, the same bytes on 1, 2 and 3 threads. (The q8 encoder against the float64
// reference of transformers' modeling files: tests/js/pretrained_q8.test.mjs.)
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "models/causal_lm.hpp"
#include "models/checkpoint.hpp"
#include "models/model.hpp"
#include "models/safetensors_file.hpp"
#include "ops/quantized_linear.hpp"

namespace {

using aw_test::FileTensor;

// The tensors of a DistilBERT (D, F, layers) or a BERT with its pooler, as the hub names them.
std::vector<FileTensor> encoder_tensors(bool bert, std::int64_t V, std::int64_t P, std::int64_t D, std::int64_t F,
                                        int layers) {
  const std::string e = bert ? "bert.embeddings." : "distilbert.embeddings.";
  std::vector<FileTensor> t = {{e + "word_embeddings.weight", {V, D}}, {e + "position_embeddings.weight", {P, D}}};
  if (bert) t.push_back({e + "token_type_embeddings.weight", {2, D}});
  t.push_back({e + "LayerNorm.weight", {D}});
  t.push_back({e + "LayerNorm.bias", {D}});
  for (int l = 0; l < layers; ++l) {
    const std::string p = (bert ? "bert.encoder.layer." : "distilbert.transformer.layer.") + std::to_string(l) + ".";
    const auto linear = [&](const std::string& name, std::int64_t out, std::int64_t in) {
      t.push_back({p + name + ".weight", {out, in}});
      t.push_back({p + name + ".bias", {out}});
    };
    const auto norm = [&](const std::string& name) {
      t.push_back({p + name + ".weight", {D}});
      t.push_back({p + name + ".bias", {D}});
    };
    if (bert) {
      for (const char* x : {"query", "key", "value"}) linear(std::string("attention.self.") + x, D, D);
      linear("attention.output.dense", D, D);
      norm("attention.output.LayerNorm");
      linear("intermediate.dense", F, D);
      linear("output.dense", D, F);
      norm("output.LayerNorm");
    } else {
      for (const char* x : {"q_lin", "k_lin", "v_lin", "out_lin"}) linear(std::string("attention.") + x, D, D);
      norm("sa_layer_norm");
      linear("ffn.lin1", F, D);
      linear("ffn.lin2", D, F);
      norm("output_layer_norm");
    }
  }
  if (bert) {
    t.push_back({"bert.pooler.dense.weight", {D, D}});
    t.push_back({"bert.pooler.dense.bias", {D}});
  }
  return t;
}

struct Checkpoint {
  aw::CheckpointPlan plan;
  std::vector<std::uint8_t> data;  // the data section
};

// A checkpoint of random F32 values: LayerNorm weights 1 + normal(0, std), the rest normal(0, std).
// std 0.07 for D = 64 gives the products the scale of BERT-base's initialisation (std 0.02,
// initializer_range, at D = 768: sqrt(D) std = 0.55).
Checkpoint random_checkpoint(const std::string& config, const std::vector<FileTensor>& tensors, std::uint32_t seed,
                             float std = 0.07f) {
  const aw_test::File f = aw_test::file_of(tensors);
  Checkpoint c{aw::read_checkpoint(config, f.bytes(), f.header.size(), f.size), {}};
  c.data.resize(f.size - 8 - f.header.size());
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, std);
  for (const aw::TensorRead& r : c.plan.reads) {
    const bool norm_weight = r.name.find("LayerNorm.weight") != std::string::npos ||
                             r.name.find("layer_norm.weight") != std::string::npos ||
                             (r.name.find(".ln_") != std::string::npos && r.name.find(".weight") != std::string::npos);
    for (std::uint64_t b = r.begin; b < r.end; b += 4) {
      const float v = norm_weight ? 1.0f + normal(rng) : normal(rng);
      std::memcpy(c.data.data() + b, &v, 4);
    }
  }
  return c;
}

// The model of that dtype, streamed in chunks of `chunk` bytes; packed (finished) or not.
std::unique_ptr<aw::Model> load(const Checkpoint& c, aw::ModelDtype dtype, std::size_t chunk, bool finish = true) {
  auto model = std::make_unique<aw::Model>(c.plan, dtype);
  aw::WeightStream stream(model->weight_targets(c.plan.reads));
  for (std::size_t at = 0; at < c.data.size(); at += chunk)
    stream.write(at, c.data.data() + at, std::min(chunk, c.data.size() - at));
  REQUIRE(stream.first_incomplete() == nullptr);
  if (finish) model->pack_linear_weights();
  return model;
}

template <class V>
std::vector<unsigned char> bytes_of(const V& v) {
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  return std::vector<unsigned char>(p, p + v.size() * sizeof(v[0]));
}

std::size_t floats_of(const aw::Shape& shape) {
  std::size_t n = 1;
  for (auto d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

double cosine(const float* a, const float* b, std::size_t n) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

const std::string kDistil = R"({"model_type": "distilbert", "vocab_size": 50, "dim": 12, "n_heads": 3, "n_layers": 2,
    "hidden_dim": 19, "max_position_embeddings": 16})";
const std::string kBert = R"({"model_type": "bert", "vocab_size": 50, "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 2, "intermediate_size": 130, "max_position_embeddings": 64, "type_vocab_size": 2})";

}  // namespace

TEST_CASE("q8 model: each linear weight quantized as it streams in equals the float32 weight quantized whole",
          "[models][model][quantized]") {
  for (bool bert : {false, true}) {
    CAPTURE(bert);
    const Checkpoint c = bert ? random_checkpoint(kBert, encoder_tensors(true, 50, 64, 64, 130, 2), 11)
                              : random_checkpoint(kDistil, encoder_tensors(false, 50, 16, 12, 19, 2), 12);
    const auto f32 = load(c, aw::ModelDtype::Float32, 1 << 20, false);  // the checkpoint's layout
    for (std::size_t chunk : {std::size_t{7}, std::size_t{4096}}) {
      CAPTURE(chunk);
      const auto q8 = load(c, aw::ModelDtype::Q8, chunk);
      CHECK(q8->dtype() == aw::ModelDtype::Q8);
      const auto& slots = q8->layout().slots;
      std::size_t linear_floats = 0, quantized_bytes = 0, linear_weights = 0;
      for (std::size_t s = 0; s < slots.size(); ++s) {
        if (!slots[s].present) continue;
        CAPTURE(slots[s].name);
        const std::size_t n = floats_of(slots[s].shape);
        if (const aw::QuantizedLinearWeight* q = q8->quantized(s)) {
          const aw::QuantizedLinearWeight want = aw::quantize_linear_weight({f32->parameter(s), slots[s].shape});
          CHECK(bytes_of(q->packed) == bytes_of(want.packed));
          CHECK(bytes_of(q->scales) == bytes_of(want.scales));
          CHECK(bytes_of(q->sums) == bytes_of(want.sums));
          linear_floats += (n + 15) / 16 * 16;
          quantized_bytes += q->resident_bytes();
          ++linear_weights;
        } else {
          CHECK(std::memcmp(q8->parameter(s), f32->parameter(s), n * 4) == 0);
        }
      }
      // q/k/v, out, the MLP's two per layer; the pooler; the word embeddings (int8 rows)
      CHECK(linear_weights == 4 * 2 + (bert ? 1 : 0) + 1);
      CHECK(q8->quantized(q8->layout().global(aw::Param::WordEmbeddings)) != nullptr);
      CHECK(q8->quantized(q8->layout().global(aw::Param::PositionEmbeddings)) == nullptr);
      CHECK(q8->layout().arena_floats + linear_floats == f32->layout().arena_floats);
      CHECK(q8->resident_bytes() == q8->layout().arena_floats * 4 + quantized_bytes);
      const aw::BlockWeights w = q8->layer_weights(1);
      for (const aw::LinearWeight* l : {&w.qkv, &w.out, &w.mlp_in, &w.mlp_out}) {
        CHECK(l->format == aw::LinearFormat::Q8);
        CHECK(l->q8 != nullptr);
        CHECK(l->bias != nullptr);
      }
    }
  }
}

TEST_CASE("q8 model: word embeddings read back as each row's scale times its int8 values",
          "[models][model][quantized]") {
  const Checkpoint c = random_checkpoint(kDistil, encoder_tensors(false, 50, 16, 12, 19, 2), 14);
  const auto f32 = load(c, aw::ModelDtype::Float32, 1 << 20), q8 = load(c, aw::ModelDtype::Q8, 1 << 20);
  const std::size_t slot = q8->layout().global(aw::Param::WordEmbeddings);
  const aw::Tensor want = aw::dequantize(*q8->quantized(slot));  // (50, 12)
  const std::vector<std::int32_t> ids = {0, 49, 7, 7};
  const aw::Tensor got = q8->word_embeddings(ids.data(), ids.size()),
                   exact = f32->word_embeddings(ids.data(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t p = 0; p < 12; ++p) {
      CHECK(got.data[i * 12 + p] == want.data[static_cast<std::size_t>(ids[i]) * 12 + p]);
      // int8 per row: within half a step (max |row| / 254) of the float32 value
      CHECK(std::fabs(got.data[i * 12 + p] - exact.data[i * 12 + p]) <=
            q8->quantized(slot)->scales[ids[i]] * 0.5f + 1e-7f);
    }
}

TEST_CASE("q8 model: the forward within a per-token cosine of 0.999 of float32, the same bytes on 1, 2, 3 threads",
          "[models][model][quantized]") {
  const Checkpoint c = random_checkpoint(kBert, encoder_tensors(true, 50, 64, 64, 130, 2), 13);
  const auto f32 = load(c, aw::ModelDtype::Float32, 1 << 20), q8 = load(c, aw::ModelDtype::Q8, 1 << 20);
  const std::int64_t N = 2, L = 40, D = 64;
  std::vector<std::int32_t> ids(N * L);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int32_t>((i * 17 + 3) % 50);
  std::vector<std::uint8_t> mask(ids.size(), 1);
  std::fill(mask.begin() + L + 30, mask.end(), 0);  // the second row: 30 tokens, then padding
  const aw::EncoderInput in{ids.data(), mask.data(), nullptr, N, L};
  const aw::EncoderOutput want = f32->forward(in, {}), got = q8->forward(in, {});
  double worst = 1;
  for (std::int64_t t = 0; t < N * L; ++t)
    if (mask[static_cast<std::size_t>(t)])
      worst = std::min(worst, cosine(got.last_hidden_state.data.data() + t * D,
                                     want.last_hidden_state.data.data() + t * D, static_cast<std::size_t>(D)));
  INFO("worst per-token cosine " << worst);
  CHECK(worst >= 0.999);
  CHECK(worst < 1.0);  // it is the int8 path
  for (std::int64_t n = 0; n < N; ++n)
    CHECK(cosine(got.pooler_output.data.data() + n * D, want.pooler_output.data.data() + n * D,
                 static_cast<std::size_t>(D)) >= 0.999);
  for (std::size_t threads : {2, 3}) {
    aw::set_thread_count(threads);
    const aw::EncoderOutput many = q8->forward(in, {});
    aw::set_thread_count(1);
    CHECK(bytes_of(many.last_hidden_state.data) == bytes_of(got.last_hidden_state.data));
  }
}

TEST_CASE(
    "q8 GPT-2: Conv1D weights quantized from their (in, out) storage, the LM head tied to the int8 word "
    "embeddings; logits within cosine 0.999 of float32",
    "[models][model][quantized]") {
  const std::int64_t V = 50, P = 64, D = 64, F = 256;
  std::vector<FileTensor> t = {{"transformer.wte.weight", {V, D}}, {"transformer.wpe.weight", {P, D}}};
  for (int l = 0; l < 2; ++l) {
    const std::string p = "transformer.h." + std::to_string(l) + ".";
    t.push_back({p + "ln_1.weight", {D}});
    t.push_back({p + "ln_1.bias", {D}});
    t.push_back({p + "attn.c_attn.weight", {D, 3 * D}});  // (in, out)
    t.push_back({p + "attn.c_attn.bias", {3 * D}});
    t.push_back({p + "attn.c_proj.weight", {D, D}});
    t.push_back({p + "attn.c_proj.bias", {D}});
    t.push_back({p + "ln_2.weight", {D}});
    t.push_back({p + "ln_2.bias", {D}});
    t.push_back({p + "mlp.c_fc.weight", {D, F}});
    t.push_back({p + "mlp.c_fc.bias", {F}});
    t.push_back({p + "mlp.c_proj.weight", {F, D}});
    t.push_back({p + "mlp.c_proj.bias", {D}});
  }
  t.push_back({"transformer.ln_f.weight", {D}});
  t.push_back({"transformer.ln_f.bias", {D}});
  const Checkpoint c = random_checkpoint(
      R"({"model_type": "gpt2", "vocab_size": 50, "n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 64})", t, 15);
  const auto f32 = load(c, aw::ModelDtype::Float32, 1 << 20, false), q8 = load(c, aw::ModelDtype::Q8, 1000);
  for (std::int64_t l = 0; l < 2; ++l)  // c_attn (D, 3D) stored: the int8 weight of its transpose
    for (aw::Param w : {aw::Param::QkvWeight, aw::Param::MlpInWeight, aw::Param::MlpOutWeight}) {
      const std::size_t slot = q8->layout().layer(l, w);
      const aw::QuantizedLinearWeight want =
          aw::quantize_linear_weight({f32->parameter(slot), q8->layout().slots[slot].shape});
      CHECK(bytes_of(q8->quantized(slot)->packed) == bytes_of(want.packed));
      CHECK(bytes_of(q8->quantized(slot)->scales) == bytes_of(want.scales));
    }
  REQUIRE(q8->has_head(1));  // lm_head, tied to wte
  CHECK(q8->head_dense(1, 0).format == aw::LinearFormat::Q8);
  CHECK(q8->head_dense(1, 0).q8 == q8->quantized(q8->layout().global(aw::Param::WordEmbeddings)));
  f32->pack_linear_weights();
  std::vector<std::int32_t> ids(20);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int32_t>((i * 13 + 5) % 50);
  aw::CausalInput in;
  in.input_ids = ids.data();
  in.batch = 1;
  in.length = 20;
  const aw::CausalOutput want = aw::causal_forward(*f32, in, {}), got = aw::causal_forward(*q8, in, {});
  REQUIRE(got.logits.shape == want.logits.shape);
  double worst = 1;
  for (std::size_t r = 0; r < 20; ++r)
    worst = std::min(worst, cosine(got.logits.data.data() + r * V, want.logits.data.data() + r * V, V));
  INFO("worst per-token cosine of the logits " << worst);
  CHECK(worst >= 0.999);
  CHECK(worst < 1.0);
}
