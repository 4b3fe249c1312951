// Tests for src/models/checkpoint (with src/models/architectures and src/models/safetensors): the
// one reader of a checkpoint. config.json through the architecture tables (model_type, types,
// defaults, unsupported fields, every bound named in its message); the parameter layout
// (transformers' names, fused q/k/v rows back to back); the tensors of a safetensors header
// (prefixed or bare names, old LayerNorm names, heads left unread, missing / misshapen / wrong
// dtype tensors, the optional pooler all or none, the format's own rules); and, with a table
// that is not registered, a Conv1D weight stored (in, out) transposed at load and a gated MLP's
// gate and up rows, streamed through a WeightStream into a model's arena.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "check_error.hpp"
#include "core/error.hpp"
#include "models/checkpoint.hpp"
#include "models/model.hpp"
#include "models/safetensors.hpp"
#include "models/safetensors_file.hpp"

namespace {

const std::string kDistil =
    R"("model_type": "distilbert", "vocab_size": 50, "dim": 12, "n_heads": 3, "n_layers": 2, "hidden_dim": 19, "max_position_embeddings": 16)";
const std::string kBert =
    R"("model_type": "bert", "vocab_size": 50, "hidden_size": 12, "num_attention_heads": 3, "num_hidden_layers": 1, "intermediate_size": 19, "max_position_embeddings": 16, "type_vocab_size": 2)";

std::string with(const std::string& base, const std::string& extra) { return "{" + base + ", " + extra + "}"; }

using aw_test::error_of;
using aw_test::File;
using aw_test::file_of;
using aw_test::FileTensor;
using aw_test::kind_of;

// Every tensor a tiny DistilBERT (kDistil) needs, under `prefix`, and the masked-LM head's.
std::vector<FileTensor> distilbert_tensors(const std::string& prefix = "distilbert.") {
  std::vector<FileTensor> t = {{prefix + "embeddings.word_embeddings.weight", {50, 12}},
                               {prefix + "embeddings.position_embeddings.weight", {16, 12}},
                               {prefix + "embeddings.LayerNorm.weight", {12}},
                               {prefix + "embeddings.LayerNorm.bias", {12}}};
  for (int l = 0; l < 2; ++l) {
    const std::string p = prefix + "transformer.layer." + std::to_string(l) + ".";
    for (const char* lin : {"q_lin", "k_lin", "v_lin", "out_lin"}) {
      t.push_back({p + "attention." + lin + ".weight", {12, 12}});
      t.push_back({p + "attention." + lin + ".bias", {12}});
    }
    for (const char* norm : {"sa_layer_norm", "output_layer_norm"}) {
      t.push_back({p + norm + ".weight", {12}});
      t.push_back({p + norm + ".bias", {12}});
    }
    t.push_back({p + "ffn.lin1.weight", {19, 12}});
    t.push_back({p + "ffn.lin1.bias", {19}});
    t.push_back({p + "ffn.lin2.weight", {12, 19}});
    t.push_back({p + "ffn.lin2.bias", {12}});
  }
  t.push_back({"vocab_projector.weight", {50, 12}});
  t.push_back({"vocab_projector.bias", {50}});
  return t;
}

aw::CheckpointPlan read(const std::string& config, const File& f) {
  return aw::read_checkpoint(config, f.bytes(), f.header.size(), f.size);
}

}  // namespace

TEST_CASE("checkpoint: config.json's model_type, JSON types and unsupported fields", "[models][checkpoint]") {
  const auto config_error = [](const std::string& json) { return error_of([&] { aw::read_config(json); }); };
  CHECK(config_error(with(kDistil, R"("activation": "gelu")")) == "no error");
  CHECK(config_error("{\"model_type\": \"distilbert\",").rfind("config.json: invalid JSON: ", 0) == 0);
  CHECK(config_error("[1, 2]") == "config.json: expected a JSON object, got an array");
  CHECK(config_error(R"({"model_type": "t5"})") ==
        "config.json: model_type 't5' is not supported (supported: distilbert, bert, gpt2, llama, qwen2)");
  CHECK(config_error(R"({"dim": 18})") ==
        "config.json: model_type is missing (supported: distilbert, bert, gpt2, llama, qwen2)");
  CHECK(config_error(with(kDistil, R"("activation": "silu")")) ==
        "config.json: activation 'silu' is not supported (supported: gelu, gelu_new, gelu_pytorch_tanh, relu)");
  CHECK(config_error(R"({"model_type": "distilbert", "dim": "18"})") ==
        "config.json: dim must be an integer, got \"18\"");
  CHECK(kind_of([] { aw::read_config(R"({"model_type": "distilbert", "dim": 1.5})"); }) == aw::ErrorKind::Type);
  CHECK(config_error(with(kBert, R"("position_embedding_type": "relative_key")")) ==
        "config.json: position_embedding_type 'relative_key' is not supported (only 'absolute')");
  CHECK(config_error(with(kBert, R"("is_decoder": true)")) ==
        "config.json: is_decoder true is not supported (only false)");
  CHECK(config_error(with(kBert, R"("layer_norm_eps": "small")")) ==
        "config.json: layer_norm_eps must be a number, got \"small\"");
  // defaults: transformers' DistilBertConfig / BertConfig
  const aw::ModelConfig d = aw::read_config(R"({"model_type": "distilbert"})").config;
  CHECK(d.vocab_size == 30522);
  CHECK(d.hidden_size == 768);
  CHECK(d.num_layers == 6);
  CHECK(d.intermediate_size == 3072);
  CHECK(d.norm_eps == 1e-12);
  CHECK(d.block.norm_placement == aw::NormPlacement::Post);
  const aw::ModelConfig b = aw::read_config(with(kBert, R"("hidden_act": "gelu_new", "layer_norm_eps": 1e-7)")).config;
  CHECK(b.type_vocab_size == 2);
  CHECK(b.activation == aw::Activation::GeluTanh);
  CHECK(b.norm_eps == 1e-7);
  CHECK(b.num_kv_heads == 3);
  CHECK(b.head_dim == 4);
  CHECK(b.block.query_width() == 12);
}

TEST_CASE("checkpoint: every size bounded before allocating, named in the message", "[models][checkpoint]") {
  const auto error = [](const std::string& extra) { return error_of([&] { aw::read_config(with(kDistil, extra)); }); };
  CHECK(error(R"("dim": 0)") == "config.json: hidden size (dim) must be in [1, 16384], got 0");
  CHECK(error(R"("n_heads": 5)") == "config.json: the number of heads 5 must divide the hidden size 12");
  CHECK(error(R"("n_layers": 1000)") == "config.json: number of layers (n_layers) must be in [1, 256], got 1000");
  CHECK(error(R"("vocab_size": 1000000000000)") ==
        "config.json: vocab_size must be in [1, 4000000], got 1000000000000");
  CHECK(error(R"("hidden_dim": -3)") == "config.json: feed-forward size (hidden_dim) must be in [1, 65536], got -3");
  CHECK(error(R"("max_position_embeddings": 1099511627776)") ==
        "config.json: max_position_embeddings must be in [1, 65536], got 1099511627776");
  CHECK(
      error(R"("dim": 16384, "n_heads": 16, "hidden_dim": 65536, "n_layers": 100)").find("the parameters would take") !=
      std::string::npos);
  CHECK(kind_of([] { aw::read_config(with(kDistil, R"("dim": 0)")); }) == aw::ErrorKind::Range);
  CHECK(error_of([] { aw::read_config(with(kBert, R"("type_vocab_size": 0)")); }) ==
        "config.json: type_vocab_size must be in [1, 1024], got 0");
}

TEST_CASE("checkpoint: the layout -- transformers' names and shapes, q/k/v rows back to back", "[models][checkpoint]") {
  const aw::ReadConfig r = aw::read_config(with(kDistil, "\"activation\": \"gelu\""));
  const aw::ParameterLayout p = aw::parameter_layout(*r.architecture, r.config, true);
  const aw::ParameterSlot& qkv = p.slots[p.layer(1, aw::Param::QkvWeight)];
  CHECK(qkv.present);
  CHECK(qkv.name == "transformer.layer.1.attention.q_lin.weight");
  CHECK(qkv.shape == aw::Shape{36, 12});
  CHECK(qkv.offset % 16 == 0);
  CHECK(p.slots[p.layer(0, aw::Param::MlpInWeight)].shape == aw::Shape{19, 12});
  CHECK_FALSE(p.slots[p.global(aw::Param::TokenTypeEmbeddings)].present);
  CHECK_FALSE(p.slots[p.global(aw::Param::PoolerWeight)].present);
  std::size_t floats = 0, present = 0;
  for (const auto& s : p.slots) {
    if (!s.present) continue;
    std::size_t n = 1;
    for (auto d : s.shape) n *= static_cast<std::size_t>(d);
    floats += n, ++present;
    CHECK(s.offset + n <= p.arena_floats);
  }
  CHECK(p.arena_floats < floats + 16 * present + 16);

  // the reads: k_lin's rows follow q_lin's in the fused slot
  const File f = file_of(distilbert_tensors());
  const aw::CheckpointPlan plan = read(with(kDistil, "\"activation\": \"gelu\""), f);
  const auto offset_of = [&](const std::string& name) {
    for (const auto& t : plan.reads)
      if (t.name == name) return t.offset;
    FAIL("no read of " << name);
    return std::size_t{0};
  };
  const std::size_t q = offset_of("distilbert.transformer.layer.1.attention.q_lin.weight");
  CHECK(q == plan.layout.slots[plan.layout.layer(1, aw::Param::QkvWeight)].offset);
  CHECK(offset_of("distilbert.transformer.layer.1.attention.k_lin.weight") == q + 144);
  CHECK(offset_of("distilbert.transformer.layer.1.attention.v_lin.weight") == q + 288);
  CHECK(offset_of("distilbert.transformer.layer.1.attention.v_lin.bias") ==
        offset_of("distilbert.transformer.layer.1.attention.q_lin.bias") + 24);
}

TEST_CASE("checkpoint: the tensors -- prefixed or bare, old names, heads unread; missing, shapes, dtypes",
          "[models][checkpoint]") {
  const std::string config = with(kDistil, "\"activation\": \"gelu\"");
  const aw::CheckpointPlan plan = read(config, file_of(distilbert_tensors()));
  CHECK(plan.reads.size() == 4 + 2 * 16);
  CHECK(plan.ignored == std::vector<std::string>{"vocab_projector.weight", "vocab_projector.bias"});  // file order
  CHECK(plan.data_start == 8 + file_of(distilbert_tensors()).header.size());
  for (std::size_t i = 1; i < plan.reads.size(); ++i) CHECK(plan.reads[i].begin >= plan.reads[i - 1].end);
  // bare names (a DistilBertModel's own save) and the old gamma/beta of LayerNorm
  std::vector<FileTensor> bare = distilbert_tensors("");
  for (auto& t : bare)
    if (t.name == "embeddings.LayerNorm.weight") t.name = "embeddings.LayerNorm.gamma";
  CHECK(read(config, file_of(bare)).reads.size() == 36);

  const auto error = [&](const std::function<void(std::vector<FileTensor>&)>& change, const std::string& cfg = "") {
    std::vector<FileTensor> t = distilbert_tensors();
    change(t);
    return error_of([&] { read(cfg.empty() ? config : cfg, file_of(t)); });
  };
  const std::string W = "distilbert.transformer.layer.1.ffn.lin1.weight";
  CHECK(error([&](auto& t) { t.erase(std::find_if(t.begin(), t.end(), [&](auto& x) { return x.name == W; })); }) ==
        "model.safetensors: tensor 'transformer.layer.1.ffn.lin1.weight' is missing (looked for "
        "'distilbert.transformer.layer.1.ffn.lin1.weight', 'transformer.layer.1.ffn.lin1.weight'); config.json "
        "(model_type distilbert) needs it");
  CHECK(error([](auto&) {}, with(kDistil, R"("hidden_dim": 36)")) ==
        "model.safetensors: tensor 'distilbert.transformer.layer.0.ffn.lin1.weight' has shape [19, 12]; config.json "
        "(vocab_size 50, dim 12, n_heads 3, hidden_dim 36, max_position_embeddings 16) needs [36, 12]");
  CHECK(error([&](auto& t) {
          for (auto& x : t)
            if (x.name == W) x.dtype = "I32";
        }) == "model.safetensors: tensor '" + W + "' has dtype I32; only F32, F16 and BF16 are read");
  CHECK(kind_of([&] {
          std::vector<FileTensor> t = distilbert_tensors();
          t[0].dtype = "I64";
          read(config, file_of(t));
        }) == aw::ErrorKind::Type);
  // the format's own rules come first
  File truncated = file_of(distilbert_tensors());
  truncated.size -= 100;
  CHECK(error_of([&] { read(config, truncated); }).find("model.safetensors: truncated file: the tensors need") == 0);
  const std::uint8_t zip[8] = {'P', 'K', 3, 4, ' ', 'a', ' ', 'z'};
  CHECK(error_of([&] { aw::safetensors_header_length(zip, 8, 64, "model.safetensors"); }).find("HeaderTooLarge") !=
        std::string::npos);
  CHECK(error_of([&] { aw::safetensors_header_length(zip, 4, 4, "model.safetensors"); }) ==
        "model.safetensors: truncated file: 4 bytes, fewer than the 8 of the header length (safetensors: "
        "HeaderTooSmall)");
}

TEST_CASE("checkpoint: BERT's optional pooler comes whole or not at all", "[models][checkpoint]") {
  std::vector<FileTensor> t = {{"bert.embeddings.word_embeddings.weight", {50, 12}},
                               {"bert.embeddings.position_embeddings.weight", {16, 12}},
                               {"bert.embeddings.token_type_embeddings.weight", {2, 12}},
                               {"bert.embeddings.LayerNorm.weight", {12}},
                               {"bert.embeddings.LayerNorm.bias", {12}}};
  const std::string p = "bert.encoder.layer.0.";
  for (const char* lin : {"attention.self.query", "attention.self.key", "attention.self.value",
                          "attention.output.dense", "attention.output.LayerNorm", "output.LayerNorm"}) {
    const bool square = std::strstr(lin, "LayerNorm") == nullptr;
    if (square)
      t.push_back({p + lin + ".weight", {12, 12}});
    else
      t.push_back({p + lin + ".weight", {12}});
    t.push_back({p + lin + ".bias", {12}});
  }
  t.push_back({p + "intermediate.dense.weight", {19, 12}});
  t.push_back({p + "intermediate.dense.bias", {19}});
  t.push_back({p + "output.dense.weight", {12, 19}});
  t.push_back({p + "output.dense.bias", {12}});
  const std::string config = "{" + kBert + "}";
  CHECK_FALSE(aw::Model(read(config, file_of(t))).has_pooler());
  // BertForSequenceClassification's classifier reads the pooler's output: without a pooler, an Error
  std::vector<FileTensor> classifier = t;
  classifier.push_back({"classifier.weight", {2, 12}});
  classifier.push_back({"classifier.bias", {2}});
  CHECK(error_of(
            [&] { read(with(kBert, R"("architectures": ["BertForSequenceClassification"])"), file_of(classifier)); }) ==
        "model.safetensors: tensor 'pooler.dense.weight' is missing; config.json (architectures[0] "
        "BertForSequenceClassification) needs the pooler for the sequence-classification head");
  t.push_back({"bert.pooler.dense.weight", {12, 12}});
  CHECK(error_of([&] { read(config, file_of(t)); }) ==
        "model.safetensors: tensor pooler.dense.bias is missing (pooler.dense.weight is there)");
  t.push_back({"bert.pooler.dense.bias", {12}});
  const aw::CheckpointPlan plan = read(config, file_of(t));
  CHECK(aw::Model(plan).has_pooler());
  CHECK(plan.reads.size() == t.size());
  classifier.push_back({"bert.pooler.dense.weight", {12, 12}});
  classifier.push_back({"bert.pooler.dense.bias", {12}});
  const aw::CheckpointPlan seq =
      read(with(kBert, R"("architectures": ["BertForSequenceClassification"])"), file_of(classifier));
  CHECK(seq.ignored.empty());
  CHECK(aw::Model(seq).has_pooler());
}

TEST_CASE(
    "checkpoint: the task head of architectures[0] (or asked by name) is read, the others not; its tensors "
    "required",
    "[models][checkpoint]") {
  // DistilBertForSequenceClassification's file: the base, pre_classifier and classifier (3 labels)
  std::vector<FileTensor> t = distilbert_tensors();
  t.resize(t.size() - 2);  // no masked-LM head
  t.push_back({"pre_classifier.weight", {12, 12}});
  t.push_back({"pre_classifier.bias", {12}});
  t.push_back({"classifier.weight", {3, 12}});
  t.push_back({"classifier.bias", {3}});
  const File f = file_of(t);
  const std::string labels = R"("id2label": {"0": "a", "1": "b", "2": "c"})";
  const std::string seq = with(kDistil, R"("architectures": ["DistilBertForSequenceClassification"], )" + labels);
  const aw::CheckpointPlan plan = read(seq, f);
  CHECK(plan.ignored.empty());
  CHECK(plan.config.num_labels == 3);
  const aw::Model model(plan);
  REQUIRE(model.task_head() != aw::kNoSlot);
  CHECK(std::string(model.architecture().heads[model.task_head()].name) == "sequence-classification");
  // "none": the base model alone (AutoModel); a ...Model class: no head either
  const auto none = aw::read_checkpoint(seq, f.bytes(), f.header.size(), f.size, "none");
  CHECK(none.ignored.size() == 4);
  CHECK(aw::Model(none).task_head() == aw::kNoSlot);
  CHECK(aw::Model(read(with(kDistil, R"("architectures": ["DistilBertModel"])"), f)).task_head() == aw::kNoSlot);
  // the token classifier reads classifier alone, the same shape: chosen by its class, not by the tensors
  const auto tok = read(with(kDistil, R"("architectures": ["DistilBertForTokenClassification"], )" + labels), f);
  CHECK(tok.ignored == std::vector<std::string>{"pre_classifier.weight", "pre_classifier.bias"});
  // a head whose tensors the file lacks, an unknown head, a classifier of another size
  CHECK(error_of([&] { read(with(kDistil, R"("architectures": ["DistilBertForQuestionAnswering"])"), f); }) ==
        "model.safetensors: tensor 'qa_outputs.weight' is missing (looked for 'qa_outputs.weight'); config.json "
        "(model_type distilbert, architectures[0] DistilBertForQuestionAnswering) needs it for the "
        "question-answering head");
  CHECK(error_of([&] { aw::read_checkpoint(seq, f.bytes(), f.header.size(), f.size, "summarization"); }) ==
        "head 'summarization' is not a head of model_type distilbert (it has 'masked-lm', 'sequence-classification', "
        "'token-classification', 'question-answering')");
  CHECK(error_of([&] { read(with(kDistil, R"("architectures": ["DistilBertForSequenceClassification"])"), f); }) ==
        "model.safetensors: tensor 'classifier.weight' has shape [3, 12]; config.json (vocab_size 50, dim 12, n_heads "
        "3, hidden_dim 19, max_position_embeddings 16) needs [2, 12] for the sequence-classification head (2 labels "
        "from id2label / num_labels)");
  CHECK(error_of([&] { read(with(kDistil, R"("architectures": "DistilBertForMaskedLM")"), f); }) ==
        "config.json: architectures must be a list of class names, got \"DistilBertForMaskedLM\"");
  // the masked-LM head: its projection tied to the word embeddings (read once), untied: its own
  std::vector<FileTensor> mlm = distilbert_tensors();
  mlm.erase(mlm.end() - 2);  // vocab_projector.weight: tied, not in the file
  for (const char* n :
       {"vocab_transform.weight", "vocab_transform.bias", "vocab_layer_norm.weight", "vocab_layer_norm.bias"})
    mlm.push_back({n, std::strcmp(n, "vocab_transform.weight") == 0 ? aw::Shape{12, 12} : aw::Shape{12}});
  const std::string masked = with(kDistil, R"("architectures": ["DistilBertForMaskedLM"])");
  const aw::CheckpointPlan m = read(masked, file_of(mlm));
  CHECK(m.ignored.empty());
  CHECK(aw::Model(m).task_head() == 0);
  CHECK(error_of([&] {
          read(with(kDistil, R"("architectures": ["DistilBertForMaskedLM"], "tie_word_embeddings": false)"),
               file_of(mlm));
        }).find("model.safetensors: tensor 'vocab_projector.weight' is missing") == 0);
}

TEST_CASE("checkpoint: a task head's size counts against the heap's bound (sizes in 64 bits)", "[models][checkpoint]") {
  // a token classifier of 2^21 labels x 2048: 2^32 floats, each size within its own bound; its
  // product wraps to 0 in wasm's 32-bit size_t, and the check left the heads out before
  const std::int64_t D = 2048, labels = std::int64_t{1} << 21;
  std::vector<FileTensor> t = {{"distilbert.embeddings.word_embeddings.weight", {50, D}},
                               {"distilbert.embeddings.position_embeddings.weight", {16, D}},
                               {"distilbert.embeddings.LayerNorm.weight", {D}},
                               {"distilbert.embeddings.LayerNorm.bias", {D}}};
  const std::string p = "distilbert.transformer.layer.0.";
  for (const char* lin : {"q_lin", "k_lin", "v_lin", "out_lin"}) {
    t.push_back({p + "attention." + lin + ".weight", {D, D}});
    t.push_back({p + "attention." + lin + ".bias", {D}});
  }
  for (const char* norm : {"sa_layer_norm", "output_layer_norm"}) {
    t.push_back({p + norm + ".weight", {D}});
    t.push_back({p + norm + ".bias", {D}});
  }
  t.push_back({p + "ffn.lin1.weight", {19, D}});
  t.push_back({p + "ffn.lin1.bias", {19}});
  t.push_back({p + "ffn.lin2.weight", {D, 19}});
  t.push_back({p + "ffn.lin2.bias", {D}});
  t.push_back({"classifier.weight", {labels, D}});
  t.push_back({"classifier.bias", {labels}});
  const std::string config =
      R"({"model_type": "distilbert", "vocab_size": 50, "dim": 2048, "n_heads": 16, "n_layers": 1, "hidden_dim": 19, "max_position_embeddings": 16, "architectures": ["DistilBertForTokenClassification"], "num_labels": 2097152})";
  const std::string error = error_of([&] { read(config, file_of(t)); });
  CHECK(error.rfind("config.json: the parameters would take ", 0) == 0);
  CHECK(error.find("more than the 536870912 (2 GiB) the wasm heap can hold (the largest, classifier.weight, is "
                   "[2097152, 2048])") != std::string::npos);
  // the layout's offsets saturate past the bound instead of wrapping
  const aw::ReadConfig r = aw::read_config(config);
  std::vector<bool> heads(r.architecture->heads.size(), false);
  for (std::size_t h = 0; h < heads.size(); ++h)
    heads[h] = std::string(r.architecture->heads[h].name) == "token-classification";
  const aw::ParameterLayout layout = aw::parameter_layout(*r.architecture, r.config, false, heads);
  CHECK(layout.arena_floats == static_cast<std::size_t>(aw::kMaxElements + 1));
  CHECK(error_of([&] { aw::check_parameter_floats(layout); }) == error);
}

TEST_CASE("checkpoint: the arena's cache-line padding counts against the bound", "[models][checkpoint]") {
  // 256 layers of width 144 whose feed-forward bias of 19 floats each takes 32 in the arena: for
  // the vocabulary below the parameters are <= 2^29 floats and their arena is not, and the
  // weights would be written past it
  const std::string base =
      R"("model_type": "distilbert", "dim": 144, "n_heads": 3, "n_layers": 256, "hidden_dim": 19, "max_position_embeddings": 16)";
  aw::ModelConfig c = aw::read_config(with(base, R"("vocab_size": 50)")).config;
  const aw::Architecture& a = *aw::read_config(with(base, R"("vocab_size": 50)")).architecture;
  const auto unpadded = [&](std::int64_t vocab) {
    c.vocab_size = vocab;
    std::int64_t n = 0;
    for (const aw::ParameterSlot& s : aw::parameter_layout(a, c, true).slots) {
      std::int64_t size = 1;
      for (auto d : s.shape) size *= d;
      if (s.present) n += size;
    }
    return n;
  };
  const std::int64_t u0 = unpadded(50), slope = unpadded(51) - u0;
  const std::int64_t vocab = 50 + (aw::kMaxElements - u0) / slope;  // the largest within the bound
  REQUIRE(unpadded(vocab) <= aw::kMaxElements);
  c.vocab_size = vocab;
  const aw::ParameterLayout layout = aw::parameter_layout(a, c, true);
  CHECK(layout.arena_floats > static_cast<std::size_t>(aw::kMaxElements));
  CHECK(error_of([&] {
          aw::check_parameter_floats(layout);
        }).rfind("config.json: the parameters would take 536870913 floats, more than the 536870912", 0) == 0);
  CHECK(error_of([&] {
          aw::read_config(with(base, "\"vocab_size\": " + std::to_string(vocab)));
        }).rfind("config.json: the parameters would take", 0) == 0);
}

TEST_CASE("checkpoint: a table's Conv1D weight is transposed at load, gate and up rows fill one gated weight",
          "[models][checkpoint]") {
  // A table that is not registered: GPT-2's c_attn stored (D, 3D), a gated MLP, no biases.
  const aw::Architecture arch{
      "test",
      "transformer",
      {},
      nullptr,
      1e-5,
      "hidden_act",
      "silu",
      {{"silu", aw::Activation::Silu}},
      {},
      aw::NormKind::RmsNorm,
      aw::NormPlacement::Pre,
      true,
      true,
      false,
      {
          {"wte.weight", aw::Param::WordEmbeddings},
          {"h.{}.attn.c_attn.weight", aw::Param::QkvWeight, aw::Part::Whole, false, true},
          {"h.{}.attn.c_proj.weight", aw::Param::OutWeight},
          {"h.{}.ln_1.weight", aw::Param::AttentionNormWeight},
          {"h.{}.ln_2.weight", aw::Param::MlpNormWeight},
          {"h.{}.mlp.gate.weight", aw::Param::MlpInWeight, aw::Part::Gate},
          {"h.{}.mlp.up.weight", aw::Param::MlpInWeight, aw::Part::Up},
          {"h.{}.mlp.down.weight", aw::Param::MlpOutWeight},
      },
  };
  aw::ModelConfig c;
  c.model_type = "test";
  c.vocab_size = 5, c.hidden_size = 4, c.num_layers = 1, c.num_heads = 2, c.num_kv_heads = 2, c.head_dim = 2;
  c.intermediate_size = 3, c.max_positions = 8;
  c.block.gated_mlp = true;
  const File f = file_of({{"transformer.wte.weight", {5, 4}},
                          {"transformer.h.0.attn.c_attn.weight", {4, 12}},  // (in, out)
                          {"transformer.h.0.attn.c_proj.weight", {4, 4}},
                          {"transformer.h.0.ln_1.weight", {4}},
                          {"transformer.h.0.ln_2.weight", {4}},
                          {"transformer.h.0.mlp.gate.weight", {3, 4}},
                          {"transformer.h.0.mlp.up.weight", {3, 4}},
                          {"transformer.h.0.mlp.down.weight", {4, 3}}});
  const aw::CheckpointPlan plan = aw::read_checkpoint(arch, c, {}, f.bytes(), f.header.size(), f.size);
  aw::Model model(plan);
  CHECK(model.layout().slots[model.layout().layer(0, aw::Param::MlpInWeight)].shape == aw::Shape{6, 4});
  CHECK_FALSE(model.layout().slots[model.layout().layer(0, aw::Param::QkvBias)].present);
  // the data section: element i of every tensor holds the value i + 1000 * (tensor index)
  std::vector<std::uint8_t> data(f.size - 8 - f.header.size());
  for (std::size_t t = 0; t < plan.reads.size(); ++t)
    for (std::uint64_t b = plan.reads[t].begin, i = 0; b < plan.reads[t].end; b += 4, ++i) {
      const float v = float(i + 1000 * t);
      std::memcpy(data.data() + b, &v, 4);
    }
  aw::WeightStream stream(model.weight_targets(plan.reads));
  for (std::size_t at = 0; at < data.size(); at += 7)  // chunks that split elements
    stream.write(at, data.data() + at, std::min<std::size_t>(7, data.size() - at));
  REQUIRE(stream.first_incomplete() == nullptr);
  const float* qkv = model.parameter(model.layout().layer(0, aw::Param::QkvWeight));  // (12, 4) = c_attn^T
  for (std::size_t o = 0; o < 12; ++o)
    for (std::size_t i = 0; i < 4; ++i) CHECK(qkv[o * 4 + i] == float(i * 12 + o + 1000));
  const float* mlp_in = model.parameter(model.layout().layer(0, aw::Param::MlpInWeight));  // gate rows, then up rows
  CHECK(mlp_in[0] == 5000.0f);
  CHECK(mlp_in[11] == 5011.0f);
  CHECK(mlp_in[12] == 6000.0f);
  CHECK(mlp_in[23] == 6011.0f);
}

// ---------------------------------------------------------------------------------------------
// The causal architectures: gpt2, llama, qwen2, and their heads (final norm, lm_head tied or not)

namespace {

const std::string kGpt2 =
    R"("model_type": "gpt2", "vocab_size": 30, "n_embd": 8, "n_head": 2, "n_layer": 1, "n_positions": 16)";
const std::string kLlama =
    R"("model_type": "llama", "vocab_size": 30, "hidden_size": 8, "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 1, "intermediate_size": 11, "max_position_embeddings": 16)";

// A tiny GPT-2's tensors as GPT2LMHeadModel.save_pretrained writes them (`prefix` "transformer.")
// or as openai-community/gpt2's file has them (bare), lm_head absent (tied).
std::vector<FileTensor> gpt2_tensors(const std::string& prefix = "transformer.") {
  std::vector<FileTensor> t = {{prefix + "wte.weight", {30, 8}}, {prefix + "wpe.weight", {16, 8}}};
  const std::string p = prefix + "h.0.";
  t.push_back({p + "ln_1.weight", {8}});
  t.push_back({p + "ln_1.bias", {8}});
  t.push_back({p + "attn.bias", {1, 1, 16, 16}});  // the causal-mask buffer: listed, not read
  t.push_back({p + "attn.c_attn.weight", {8, 24}});
  t.push_back({p + "attn.c_attn.bias", {24}});
  t.push_back({p + "attn.c_proj.weight", {8, 8}});
  t.push_back({p + "attn.c_proj.bias", {8}});
  t.push_back({p + "ln_2.weight", {8}});
  t.push_back({p + "ln_2.bias", {8}});
  t.push_back({p + "mlp.c_fc.weight", {8, 32}});
  t.push_back({p + "mlp.c_fc.bias", {32}});
  t.push_back({p + "mlp.c_proj.weight", {32, 8}});
  t.push_back({p + "mlp.c_proj.bias", {8}});
  t.push_back({prefix + "ln_f.weight", {8}});
  t.push_back({prefix + "ln_f.bias", {8}});
  return t;
}

std::vector<FileTensor> llama_tensors(bool lm_head, bool biases = false) {
  std::vector<FileTensor> t = {{"model.embed_tokens.weight", {30, 8}}};
  const std::string p = "model.layers.0.";
  t.push_back({p + "input_layernorm.weight", {8}});
  t.push_back({p + "self_attn.q_proj.weight", {8, 8}});
  t.push_back({p + "self_attn.k_proj.weight", {4, 8}});
  t.push_back({p + "self_attn.v_proj.weight", {4, 8}});
  if (biases) {
    t.push_back({p + "self_attn.q_proj.bias", {8}});
    t.push_back({p + "self_attn.k_proj.bias", {4}});
    t.push_back({p + "self_attn.v_proj.bias", {4}});
  }
  t.push_back({p + "self_attn.o_proj.weight", {8, 8}});
  t.push_back({p + "post_attention_layernorm.weight", {8}});
  t.push_back({p + "mlp.gate_proj.weight", {11, 8}});
  t.push_back({p + "mlp.up_proj.weight", {11, 8}});
  t.push_back({p + "mlp.down_proj.weight", {8, 11}});
  t.push_back({"model.norm.weight", {8}});
  if (lm_head) t.push_back({"lm_head.weight", {30, 8}, "BF16"});
  return t;
}

const aw::ParameterSlot* slot_named(const aw::CheckpointPlan& plan, const std::string& name) {
  for (const aw::ParameterSlot& s : plan.layout.slots)
    if (s.present && s.name == name) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("checkpoint: gpt2's table -- defaults, Conv1D weights, ln_f and the tied lm_head", "[models][checkpoint]") {
  // GPT2Config's defaults (configuration_gpt2.py): n_inner null -> 4 n_embd, tied
  const aw::ModelConfig d = aw::read_config(R"({"model_type": "gpt2", "n_inner": null})").config;
  CHECK(d.vocab_size == 50257);
  CHECK(d.hidden_size == 768);
  CHECK(d.intermediate_size == 3072);
  CHECK(d.max_positions == 1024);
  CHECK(d.norm_eps == 1e-5);
  CHECK(d.activation == aw::Activation::GeluTanh);
  CHECK(d.tie_word_embeddings);
  CHECK(d.block.causal);
  CHECK(d.block.norm_placement == aw::NormPlacement::Pre);
  CHECK_FALSE(d.block.rotary);
  const auto config_error = [](const std::string& extra) {
    return error_of([&] { aw::read_config(with(kGpt2, extra)); });
  };
  CHECK(config_error(R"("scale_attn_by_inverse_layer_idx": true)") ==
        "config.json: scale_attn_by_inverse_layer_idx true is not supported (only false)");
  CHECK(config_error(R"("add_cross_attention": true)") ==
        "config.json: add_cross_attention true is not supported (only false)");
  CHECK(config_error(R"("tie_word_embeddings": "yes")") ==
        "config.json: tie_word_embeddings must be true or false, got \"yes\"");

  const std::string config = "{" + kGpt2 + "}";
  for (const std::string prefix : {"transformer.", ""}) {
    const auto tensors = gpt2_tensors(prefix);
    const aw::CheckpointPlan plan = read(config, file_of(tensors));
    CHECK(plan.reads.size() == tensors.size() - 1);
    CHECK(plan.ignored == std::vector<std::string>{prefix + "h.0.attn.bias"});
    std::size_t lm_head = 0, final_norm = 0;
    REQUIRE(aw::find_head(*plan.architecture, "lm_head", &lm_head));
    REQUIRE(aw::find_head(*plan.architecture, "final_norm", &final_norm));
    CHECK(plan.layout.heads[lm_head]);
    CHECK(plan.layout.heads[final_norm]);
    CHECK(plan.layout.steps[lm_head][0].weight == aw::kNoSlot);  // tied: the word embeddings
    CHECK(plan.layout.steps[lm_head][0].out == 30);
    const aw::ParameterSlot* ln_f = slot_named(plan, "transformer.ln_f.bias");
    REQUIRE(ln_f);
    CHECK(ln_f->shape == aw::Shape{8});
    CHECK(plan.layout.slots[plan.layout.layer(0, aw::Param::QkvWeight)].shape == aw::Shape{24, 8});
    CHECK(plan.layout.slots[plan.layout.layer(0, aw::Param::MlpOutWeight)].shape == aw::Shape{8, 32});
  }
  // untied: lm_head.weight must be there
  const std::string untied = with(kGpt2, R"("tie_word_embeddings": false)");
  CHECK(error_of([&] { read(untied, file_of(gpt2_tensors())); }) ==
        "model.safetensors: tensor 'lm_head.weight' is missing (looked for 'lm_head.weight'); config.json "
        "(model_type gpt2, untied) needs it for the lm_head");
  auto with_head = gpt2_tensors();
  with_head.push_back({"lm_head.weight", {30, 8}});
  CHECK(read(untied, file_of(with_head)).reads.size() == with_head.size() - 1);
  // tied, a file that has lm_head.weight anyway: listed, not read
  CHECK(read(config, file_of(with_head)).ignored.size() == 2);
  // a missing ln_f, a misshapen c_attn
  auto no_norm = gpt2_tensors();
  no_norm.pop_back();
  CHECK(error_of([&] { read(config, file_of(no_norm)); }) ==
        "model.safetensors: tensor 'transformer.ln_f.bias' is missing (looked for 'transformer.ln_f.bias', "
        "'ln_f.bias'); config.json (model_type gpt2) needs it for the final_norm");
  auto bad = gpt2_tensors();
  bad[5].shape = {24, 8};  // nn.Linear's layout instead of Conv1D's
  CHECK(error_of([&] { read(config, file_of(bad)); }) ==
        "model.safetensors: tensor 'transformer.h.0.attn.c_attn.weight' has shape [24, 8]; config.json (vocab_size "
        "30, n_embd 8, n_head 2, n_positions 16) needs [8, 24]");
}

TEST_CASE("checkpoint: llama's and qwen2's tables -- GQA, head_dim, rope, untied or tied lm_head",
          "[models][checkpoint]") {
  // LlamaConfig's defaults (configuration_llama.py)
  // (one layer: Llama-2-7B's 32 would not fit in the wasm heap, an Error of its own)
  const aw::ModelConfig d = aw::read_config(R"({"model_type": "llama", "num_hidden_layers": 1})").config;
  CHECK(d.hidden_size == 4096);
  CHECK(d.num_kv_heads == 32);
  CHECK(d.head_dim == 128);
  CHECK(d.intermediate_size == 11008);
  CHECK(d.max_positions == 2048);
  CHECK(d.norm_eps == 1e-6);
  CHECK(d.rope_theta == 10000.0);
  CHECK(d.rope_scaling.type == aw::RopeType::Default);
  CHECK_FALSE(d.tie_word_embeddings);
  CHECK(d.activation == aw::Activation::Silu);
  CHECK(d.block.gated_mlp);
  CHECK(d.block.rotary);
  CHECK(d.block.norm == aw::NormKind::RmsNorm);
  // Qwen2Config's defaults where they differ from Llama's (configuration_qwen2.py); head_dim, not a
  // field of Qwen2Config, D / H unless config.json has one, which modeling_qwen2.py reads (getattr)
  const aw::ModelConfig dq =
      aw::read_config(R"({"model_type": "qwen2", "num_hidden_layers": 1, "hidden_size": 64})").config;
  CHECK(std::vector<std::int64_t>{dq.vocab_size, dq.num_heads, dq.num_kv_heads, dq.head_dim, dq.intermediate_size,
                                  dq.max_positions} == std::vector<std::int64_t>{151936, 32, 32, 2, 22016, 32768});
  CHECK(aw::read_config(R"({"model_type": "qwen2", "num_hidden_layers": 1, "hidden_size": 64, "head_dim": 8})")
            .config.head_dim == 8);
  // num_key_value_heads null: the number of heads (Qwen2Config / LlamaConfig __init__), not the default 32
  CHECK(
      aw::read_config(
          R"({"model_type": "qwen2", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": null})")
          .config.num_kv_heads == 4);
  CHECK((dq.norm_eps == 1e-6 && dq.rope_theta == 10000.0 && !dq.tie_word_embeddings &&
         dq.activation == aw::Activation::Silu && dq.block.gated_mlp && dq.block.rotary &&
         dq.block.norm == aw::NormKind::RmsNorm));
  const aw::ModelConfig c = aw::read_config(with(kLlama, R"("rope_theta": 100000, "head_dim": 6)")).config;
  CHECK(c.num_kv_heads == 2);
  CHECK(c.head_dim == 6);
  CHECK(c.block.query_width() == 24);
  CHECK(c.rope_theta == 100000.0);
  // Llama 3.1's rope_scaling
  const aw::ModelConfig l3 =
      aw::read_config(
          with(
              kLlama,
              R"("rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192})"))
          .config;
  CHECK(l3.rope_scaling.type == aw::RopeType::Llama3);
  CHECK(l3.rope_scaling.factor == 8.0);
  CHECK(l3.rope_scaling.original_max_positions == 8192.0);
  CHECK(aw::read_config(with(kLlama, R"("rope_scaling": {"type": "linear", "factor": 2})")).config.rope_scaling.type ==
        aw::RopeType::Linear);
  const auto config_error = [](const std::string& extra) {
    return error_of([&] { aw::read_config(with(kLlama, extra)); });
  };
  CHECK(config_error(R"("rope_scaling": {"rope_type": "yarn", "factor": 4})") ==
        "config.json: rope_scaling: rope_type 'yarn' is not supported (supported: default, linear, llama3)");
  CHECK(config_error(R"("rope_scaling": {"type": "dynamic", "factor": 4})") ==
        "config.json: rope_scaling: rope_type 'dynamic' is not supported (supported: default, linear, llama3)");
  CHECK(config_error(R"("rope_scaling": {"rope_type": "linear"})") ==
        "config.json: rope_scaling: rope_type 'linear' needs factor (it is missing)");
  CHECK(config_error(R"("rope_scaling": {"rope_type": "linear", "factor": -1})") ==
        "config.json: rope_scaling.factor must be a positive number, got number -1");
  CHECK(config_error(R"("rope_scaling": 2)") == "config.json: rope_scaling must be an object or null, got number 2");
  CHECK(config_error(R"("attention_bias": true)") == "config.json: attention_bias true is not supported (only false)");
  CHECK(config_error(R"("hidden_act": "relu")") ==
        "config.json: hidden_act 'relu' is not supported (supported: silu, swish, gelu, gelu_pytorch_tanh)");
  CHECK(config_error(R"("num_key_value_heads": 3)") ==
        "config.json: the number of key/value heads 3 must divide the number of heads 4");
  CHECK(config_error(R"("num_attention_heads": 3)") ==
        "config.json: the number of heads 3 must divide the hidden size 8");
  CHECK(config_error(R"("head_dim": 5)") ==
        "config.json: rotary positions need an even head size and rope_theta > 0, got 5 and 10000.000000");
  CHECK(config_error(R"("rope_theta": "big")") == "config.json: rope_theta must be a number, got \"big\"");
  // transformers 5 writes them as one object, rope_parameters (modeling_rope_utils.py): read as
  // rope_theta and rope_scaling were, its rope_theta over a top-level one (null in such files)
  const aw::ModelConfig v5 =
      aw::read_config(
          with(
              kLlama,
              R"("rope_theta": null, "rope_parameters": {"rope_type": "linear", "rope_theta": 1000000.0, "factor": 4})"))
          .config;
  CHECK(v5.rope_theta == 1000000.0);
  CHECK(v5.rope_scaling.type == aw::RopeType::Linear);
  CHECK(v5.rope_scaling.factor == 4.0);
  const aw::ModelConfig v5_default =
      aw::read_config(with(kLlama, R"("rope_parameters": {"rope_type": "default", "rope_theta": 500000})")).config;
  CHECK(v5_default.rope_theta == 500000.0);
  CHECK(v5_default.rope_scaling.type == aw::RopeType::Default);
  CHECK(config_error(R"("rope_parameters": {"rope_type": "yarn", "factor": 4, "rope_theta": 10000})") ==
        "config.json: rope_parameters: rope_type 'yarn' is not supported (supported: default, linear, llama3)");
  CHECK(
      config_error(
          R"("rope_parameters": {"rope_type": "linear", "factor": 2}, "rope_scaling": {"rope_type": "linear", "factor": 2})") ==
      "config.json: both rope_parameters (transformers 5) and rope_scaling are given; keep one");
  CHECK(config_error(R"("rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 10000}})") ==
        "config.json: rope_parameters.full_attention: rotary parameters per layer type are not supported");
  CHECK(config_error(R"("rope_parameters": {"rope_theta": "big"})") ==
        "config.json: rope_parameters.rope_theta must be a number, got \"big\"");

  const std::string untied = "{" + kLlama + "}";
  const aw::CheckpointPlan plan = read(untied, file_of(llama_tensors(true)));
  CHECK(plan.ignored.empty());
  std::size_t lm_head = 0;
  REQUIRE(aw::find_head(*plan.architecture, "lm_head", &lm_head));
  REQUIRE(plan.layout.steps[lm_head][0].weight != aw::kNoSlot);
  CHECK(plan.layout.slots[plan.layout.steps[lm_head][0].weight].shape == aw::Shape{30, 8});
  CHECK(plan.layout.slots[plan.layout.layer(0, aw::Param::QkvWeight)].shape == aw::Shape{16, 8});
  CHECK(plan.layout.slots[plan.layout.layer(0, aw::Param::MlpInWeight)].shape == aw::Shape{22, 8});
  CHECK_FALSE(plan.layout.slots[plan.layout.layer(0, aw::Param::QkvBias)].present);
  CHECK(error_of([&] { read(untied, file_of(llama_tensors(false))); }) ==
        "model.safetensors: tensor 'lm_head.weight' is missing (looked for 'lm_head.weight'); config.json "
        "(model_type llama, untied) needs it for the lm_head");
  const std::string tied = with(kLlama, R"("tie_word_embeddings": true)");
  const aw::CheckpointPlan tied_plan = read(tied, file_of(llama_tensors(false)));
  CHECK(tied_plan.layout.steps[lm_head][0].weight == aw::kNoSlot);
  CHECK(aw::Model(tied_plan).resident_bytes() < aw::Model(plan).resident_bytes());
  // qwen2: the same layer with q/k/v biases
  const auto qwen2 = [](const std::string& config) {
    std::string q = config;
    return q.replace(q.find("\"llama\""), 7, "\"qwen2\"");
  };
  const std::string qwen = qwen2("{" + kLlama + "}");
  const aw::CheckpointPlan q = read(qwen, file_of(llama_tensors(true, true)));
  CHECK(q.layout.slots[q.layout.layer(0, aw::Param::QkvBias)].shape == aw::Shape{16});
  CHECK(error_of([&] { read(qwen, file_of(llama_tensors(true))); }) ==
        "model.safetensors: tensor 'layers.0.self_attn.q_proj.bias' is missing (looked for "
        "'model.layers.0.self_attn.q_proj.bias', 'layers.0.self_attn.q_proj.bias'); config.json (model_type qwen2) "
        "needs it");
  CHECK(error_of([&] { aw::read_config(qwen2(with(kLlama, R"("use_sliding_window": true)"))); }) ==
        "config.json: use_sliding_window true is not supported (only false)");
}
