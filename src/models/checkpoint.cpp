// Reading a checkpoint through its architecture's table, as named steps: config.json -> the
// ModelConfig (fields, defaults, types, unsupported values, bounds) -> the safetensors header ->
// each tensor of the table found, its shape and dtype checked -> the parameter layout and the
// reads. See checkpoint.hpp. JSON through nlohmann/json (see safetensors.cpp for why).
#include "models/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "models/json_text.hpp"
#include "models/safetensors.hpp"

namespace aw {
namespace {

using json = nlohmann::json;
constexpr const char* kConfig = "config.json";

// ---------------------------------------------------------------------------------------------
// config.json

// How messages show a JSON value that has the wrong type: a string quoted, the rest by type.
std::string describe(const json& v) {
  if (v.is_string()) return v.dump();
  if (v.is_number()) return "number " + v.dump();
  if (v.is_boolean()) return "boolean " + v.dump();
  return v.type_name();
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// An integer field: a JSON integer (or a float that is one, as JS reads 768.0), else TypeError.
std::int64_t integer_field(const json& config, const SizeField& f) {
  const auto it = config.find(f.key);
  if (it == config.end() || it->is_null()) return f.fallback;
  const json& v = *it;
  if (v.is_number_integer() && (v.is_number_unsigned() ? v.get<std::uint64_t>() <= (std::uint64_t{1} << 53)
                                                       : std::llabs(v.get<std::int64_t>()) <= (std::int64_t{1} << 53)))
    return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::floor(d) == d && std::fabs(d) <= 9007199254740991.0) return static_cast<std::int64_t>(d);
  }
  // an integer all the same, past any size a model has (its bound is checked later, by name)
  if (v.is_number_integer() ||
      (v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>()))
    fail(ErrorKind::Range, std::string(kConfig) + ": " + f.key + " " + v.dump() + " is out of range");
  fail(ErrorKind::Type, std::string(kConfig) + ": " + f.key + " must be an integer, got " + describe(v));
}

// config[key] as a finite number, else the fallback when absent or null; `where` names the object
// in messages ("config.json: rope_parameters.").
double number_field(const json& config, const char* key, double fallback,
                    const std::string& where = std::string(kConfig) + ": ") {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_number() || !std::isfinite(it->get<double>()))
    fail(ErrorKind::Type, where + key + " must be a number, got " + describe(*it));
  return it->get<double>();
}

bool bool_field(const json& config, const char* key, bool fallback) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_boolean())
    fail(ErrorKind::Type, std::string(kConfig) + ": " + key + " must be true or false, got " + describe(*it));
  return it->get<bool>();
}

// rope_scaling (transformers' modeling_rope_utils.py: rope_config_validation and
// ROPE_INIT_FUNCTIONS): null, or an object whose rope_type (formerly "type") is default, linear
// (factor) or llama3 (factor, low_freq_factor, high_freq_factor, original_max_position_embeddings,
// each required as _validate_llama3_parameters requires them); any other type is an Error naming it.
// The rotary scaling of an object holding rope_type (or the older `type`) and its numbers:
// config.json's rope_scaling, or transformers 5's rope_parameters. `where` names it in errors.
RopeScaling rope_scaling_of(const json& s, const std::string& where) {
  RopeScaling r;
  // rope_type, or its older spelling type. Where both are given and differ, transformers' versions
  // disagree (4.x's LlamaConfig copies type over rope_type; 5's standardize_rope_params keeps
  // rope_type): refused rather than guessed.
  std::string type = "default";
  const char* type_key = nullptr;
  for (const char* key : {"rope_type", "type"})
    if (const auto t = s.find(key); t != s.end() && !t->is_null()) {
      if (!t->is_string()) fail(ErrorKind::Type, where + "." + key + " must be a string, got " + describe(*t));
      if (type_key && t->get<std::string>() != type)
        fail(ErrorKind::Shape, where + ": rope_type '" + type + "' and type '" + t->get<std::string>() +
                                   "' disagree (transformers' versions read different ones)");
      if (!type_key) type = t->get<std::string>();
      type_key = key;
    }
  const auto number = [&](const char* key) {
    const auto f = s.find(key);
    if (f == s.end() || f->is_null())
      fail(ErrorKind::Shape, where + ": rope_type '" + type + "' needs " + key + " (it is missing)");
    if (!f->is_number() || !std::isfinite(f->get<double>()) || f->get<double>() <= 0)
      fail(ErrorKind::Range, where + "." + key + " must be a positive number, got " + describe(*f));
    return f->get<double>();
  };
  if (type == "default") return r;
  if (type == "linear") {
    r.type = RopeType::Linear;
    r.factor = number("factor");
    return r;
  }
  if (type == "llama3") {
    r.type = RopeType::Llama3;
    r.factor = number("factor");
    r.low_freq_factor = number("low_freq_factor");
    r.high_freq_factor = number("high_freq_factor");
    r.original_max_positions = number("original_max_position_embeddings");
    if (!(r.high_freq_factor > r.low_freq_factor))
      fail(ErrorKind::Range, where + ": high_freq_factor " + std::to_string(r.high_freq_factor) +
                                 " must be greater than low_freq_factor " + std::to_string(r.low_freq_factor));
    return r;
  }
  fail(ErrorKind::Shape, where + ": rope_type '" + type + "' is not supported (supported: default, linear, llama3)");
}

// rope_theta and the rotary scaling, from either form of config.json:
//  - transformers < 5: rope_theta and rope_scaling ({rope_type | type, factor, ...} or null) at the top;
//  - transformers >= 5: one object, rope_parameters: {rope_type, rope_theta, factor, ...}
//    (modeling_rope_utils.py, RotaryEmbeddingConfigMixin; a top-level rope_theta, where a file
//    still has one, is what its rope_parameters leaves out).
// A file with both rope_parameters and rope_scaling is refused rather than one of them ignored.
void read_rope(const json& config, double theta_fallback, ModelConfig& c) {
  c.rope_theta = number_field(config, "rope_theta", theta_fallback);
  const auto params = config.find("rope_parameters");
  const auto scaling = config.find("rope_scaling");
  const bool has_params = params != config.end() && !params->is_null();
  const bool has_scaling = scaling != config.end() && !scaling->is_null();
  if (has_params && has_scaling)
    fail(ErrorKind::Shape,
         std::string(kConfig) + ": both rope_parameters (transformers 5) and rope_scaling are given; keep one");
  const char* key = has_params ? "rope_parameters" : "rope_scaling";
  if (!has_params && !has_scaling) return;
  const json& s = has_params ? *params : *scaling;
  const std::string where = std::string(kConfig) + ": " + key;
  if (!s.is_object()) fail(ErrorKind::Type, where + " must be an object or null, got " + describe(s));
  if (has_params) {
    for (const auto& [name, value] : s.items())  // {full_attention: {...}, sliding_attention: {...}}
      if (value.is_object())
        fail(ErrorKind::Shape, where + "." + name + ": rotary parameters per layer type are not supported");
    c.rope_theta = number_field(s, "rope_theta", c.rope_theta, where + ".");
    // transformers 5 keeps partial_rotary_factor here too (RotaryEmbeddingConfigMixin)
    if (const auto f = s.find("partial_rotary_factor"); f != s.end() && !f->is_null() && *f != json(1.0))
      fail(ErrorKind::Shape, where + ".partial_rotary_factor " + f->dump() + " is not supported (only 1.0)");
  }
  c.rope_scaling = rope_scaling_of(s, where);
}

Activation activation_field(const json& config, const Architecture& a) {
  const auto it = config.find(a.activation_key);
  std::string name = a.activation_fallback;
  if (it != config.end() && !it->is_null()) {
    if (!it->is_string())
      fail(ErrorKind::Type, std::string(kConfig) + ": " + a.activation_key + " must be a string, got " + describe(*it));
    name = it->get<std::string>();
  }
  std::string names;
  for (const auto& [n, act] : a.activations) {
    if (name == n) return act;
    names += (names.empty() ? "" : ", ") + std::string(n);
  }
  fail(ErrorKind::Shape,
       std::string(kConfig) + ": " + a.activation_key + " '" + name + "' is not supported (supported: " + names + ")");
}

// A value for messages: strings in single quotes ('relative_key'), the rest as JSON.
std::string quoted(const json& v) { return v.is_string() ? "'" + v.get<std::string>() + "'" : v.dump(); }

void check_unsupported(const json& config, const Architecture& a) {
  for (const Unsupported& u : a.unsupported) {
    const auto it = config.find(u.key);
    if (it == config.end() || (it->is_null() && u.null_is_allowed)) continue;
    const json allowed = json::parse(u.allowed);
    if (*it != allowed)
      fail(ErrorKind::Shape, std::string(kConfig) + ": " + u.key + " " + quoted(*it) + " is not supported (only " +
                                 quoted(allowed) + ")");
  }
  // transformers' per-layer attention kinds (Qwen2Config's layer_types: "sliding_attention" for
  // the layers a sliding window covers): every layer here attends to the whole past
  if (const auto it = config.find("layer_types"); it != config.end() && !it->is_null()) {
    if (!it->is_array())
      fail(ErrorKind::Type, std::string(kConfig) + ": layer_types must be a list, got " + describe(*it));
    for (std::size_t l = 0; l < it->size(); ++l) {
      const json& t = (*it)[l];
      if (!t.is_string() || t.get<std::string>() != "full_attention")
        fail(ErrorKind::Shape,
             std::string(kConfig) + ": layer_types[" + std::to_string(l) + "] " +
                 (t.is_string() ? quoted(t) : describe(t)) +
                 " is not supported (only 'full_attention', every layer attending to the whole past)");
    }
  }
}

// The architecture's config.json key for a size ("dim" for DistilBERT, "n_embd" for GPT-2): the
// field's name in messages about a bound.
std::string key_of(const Architecture& a, std::int64_t ModelConfig::*member) {
  for (const SizeField& f : a.sizes)
    if (f.member == member) return f.key;
  return "";
}

void check_size(const Architecture& a, std::int64_t value, std::int64_t lo, std::int64_t hi,
                std::int64_t ModelConfig::*member, const char* what) {
  if (value >= lo && value <= hi) return;
  const std::string key = key_of(a, member);
  const std::string name = !what ? key : key.empty() ? std::string(what) : std::string(what) + " (" + key + ")";
  fail(ErrorKind::Range, std::string(kConfig) + ": " + name + " must be in [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "], got " + std::to_string(value));
}

// Floats of every parameter in int64 (each size is bounded, so no product overflows).
std::int64_t parameter_floats(const ParameterLayout& layout) {
  std::int64_t floats = 0;
  for (const ParameterSlot& s : layout.slots) {
    if (!s.present) continue;
    std::int64_t n = 1;
    for (auto d : s.shape) n *= d;
    floats += n;
  }
  return floats;
}

// The block every layer runs: the sizes from config.json, the rest from the table.
BlockConfig block_of(const Architecture& a, const ModelConfig& c) {
  BlockConfig b;
  b.hidden_size = static_cast<std::size_t>(c.hidden_size);
  b.num_heads = static_cast<std::size_t>(c.num_heads);
  b.num_kv_heads = static_cast<std::size_t>(c.num_kv_heads);
  b.head_dim = static_cast<std::size_t>(c.head_dim);
  b.intermediate_size = static_cast<std::size_t>(c.intermediate_size);
  b.norm = a.norm;
  b.norm_placement = a.norm_placement;
  b.norm_eps = static_cast<float>(c.norm_eps);
  b.activation = c.activation;
  b.gated_mlp = a.gated_mlp;
  b.causal = a.causal;
  b.rotary = a.rotary;
  return b;
}

// ---------------------------------------------------------------------------------------------
// The parameters and the tensors

// The rows and columns of a parameter (1-D: cols 0).
Shape param_shape(Param p, const ModelConfig& c) {
  const std::int64_t D = c.hidden_size, Q = c.num_heads * c.head_dim, K = c.num_kv_heads * c.head_dim,
                     Fm = c.block.gated_mlp ? 2 * c.intermediate_size : c.intermediate_size;
  switch (p) {
    case Param::WordEmbeddings:
      return {c.vocab_size, D};
    case Param::PositionEmbeddings:
      return {c.max_positions, D};
    case Param::TokenTypeEmbeddings:
      return {c.type_vocab_size, D};
    case Param::PoolerWeight:
      return {D, D};
    case Param::QkvWeight:
      return {Q + 2 * K, D};
    case Param::QkvBias:
      return {Q + 2 * K};
    case Param::OutWeight:
      return {D, Q};
    case Param::MlpInWeight:
      return {Fm, D};
    case Param::MlpInBias:
      return {Fm};
    case Param::MlpOutWeight:
      return {D, c.intermediate_size};
    default:  // norms, pooler and output biases
      return {D};
  }
}

// A part's first row and row count in its parameter.
std::pair<std::int64_t, std::int64_t> part_rows(Part part, Param p, const ModelConfig& c) {
  const std::int64_t Q = c.num_heads * c.head_dim, K = c.num_kv_heads * c.head_dim, F = c.intermediate_size;
  switch (part) {
    case Part::Query:
      return {0, Q};
    case Part::Key:
      return {Q, K};
    case Part::Value:
      return {Q + K, K};
    case Part::Gate:
      return {0, F};
    case Part::Up:
      return {F, F};
    case Part::Whole:
      break;
  }
  return {0, param_shape(p, c)[0]};
}

// The shape a tensor must have in the file.
Shape tensor_shape(const TensorRule& r, const ModelConfig& c) {
  Shape s = param_shape(r.param, c);
  s[0] = part_rows(r.part, r.param, c).second;
  if (r.transposed) std::reverse(s.begin(), s.end());
  return s;
}

// ---------------------------------------------------------------------------------------------
// The heads' tensors

std::int64_t head_size(HeadSize size, const ModelConfig& c) {
  switch (size) {
    case HeadSize::Vocab:
      return c.vocab_size;
    case HeadSize::Labels:
      return c.num_labels;
    case HeadSize::Hidden:
      break;
  }
  return c.hidden_size;
}

// One tensor of a head step: the parameter's shape, stored transposed or not.
struct HeadTensor {
  std::size_t head, step;
  bool bias;
  const char* name;
  Shape shape;
  bool transposed;
};

// Head h's steps' widths and tensors (a tied weight has none). The table's own consistency (a
// base head keeps the width; a tied step maps D to V) is checked here too.
std::vector<HeadTensor> head_tensors(const Architecture& a, const ModelConfig& c, std::size_t h,
                                     std::vector<HeadStepSlots>& steps) {
  const Head& head = a.heads[h];
  std::vector<HeadTensor> out;
  std::int64_t width = c.hidden_size;
  steps.assign(head.steps.size(), {});
  for (std::size_t i = 0; i < head.steps.size(); ++i) {
    const HeadStep& step = head.steps[i];
    steps[i].in = width;
    if (step.op == HeadOp::Dense) {
      const std::int64_t n = head_size(step.out, c);
      if (step.tied && !(width == c.hidden_size && n == c.vocab_size))
        fail(ErrorKind::Shape, std::string(a.model_type) + ": head " + head.name + " ties a (" + std::to_string(n) +
                                   ", " + std::to_string(width) + ") weight to the word embeddings");
      if (!(step.tied && c.tie_word_embeddings)) out.push_back({h, i, false, step.weight, {n, width}, step.transposed});
      if (step.bias) out.push_back({h, i, true, step.bias, {n}, false});
      width = n;
    } else if (step.op == HeadOp::Norm) {
      out.push_back({h, i, false, step.weight, {width}, false});
      if (step.bias) out.push_back({h, i, true, step.bias, {width}, false});
    }
    steps[i].out = width;
  }
  if (head.base && width != c.hidden_size)
    fail(ErrorKind::Shape, std::string(a.model_type) + ": base head " + head.name + " must keep the hidden size");
  return out;
}

// The names a head's tensor may have in a file: as the task model names it and, under the base
// model's prefix, also without it (a base model saved alone: openai-community/gpt2's ln_f.weight).
// A table's name may list alternatives, "a|b" (BERT's decoder bias, saved as cls.predictions.bias
// or cls.predictions.decoder.bias, one tensor in the model); a LayerNorm's weight/bias are also
// found under the old gamma/beta (as from_pretrained renames them).
std::vector<std::string> head_names(const Architecture& a, const char* name) {
  const std::string prefix = std::string(a.prefix) + ".";
  std::vector<std::string> names;
  std::string all = name;
  for (std::size_t from = 0; from <= all.size();) {
    const std::size_t bar = std::min(all.find('|', from), all.size());
    const std::string n = all.substr(from, bar - from);
    from = bar + 1;
    names.push_back(n);
    if (n.compare(0, prefix.size(), prefix) == 0) names.push_back(n.substr(prefix.size()));
  }
  const std::size_t given = names.size();
  for (std::size_t i = 0; i < given; ++i) {
    const std::string& n = names[i];
    if (ends_with(n, "LayerNorm.weight")) names.push_back(n.substr(0, n.size() - 6) + "gamma");
    if (ends_with(n, "LayerNorm.bias")) names.push_back(n.substr(0, n.size() - 4) + "beta");
  }
  return names;
}

// The task head of `request` ("auto": the one whose classes hold config.json's architectures[0];
// "none"; else a task head's name), its index or kNoHead; an unknown name is an Error.
constexpr std::size_t kNoHead = static_cast<std::size_t>(-1);
std::size_t chosen_task_head(const Architecture& a, const ModelConfig& c, const std::string& request) {
  if (request == "none") return kNoHead;
  std::string names;
  for (std::size_t h = 0; h < a.heads.size(); ++h) {
    const Head& head = a.heads[h];
    if (head.classes.empty()) continue;
    if (request == "auto") {
      for (const char* cls : head.classes)
        if (c.architecture_class == cls) return h;
    } else if (request == head.name) {
      return h;
    }
    names += (names.empty() ? "'" : ", '") + std::string(head.name) + "'";
  }
  if (request == "auto") return kNoHead;  // ...Model, or a class without a head here: the base model
  fail(ErrorKind::Type, std::string("head '") + request + "' is not a head of model_type " + a.model_type +
                            (names.empty() ? " (it has none)" : " (it has " + names + ")"));
}

// Whether head h is loaded: marked in `heads`, else required, or optional and `with_optional`.
bool head_loaded(const Architecture& a, std::size_t h, bool with_optional, const std::vector<bool>& heads) {
  if (!heads.empty()) return heads[h];
  if (!a.heads[h].classes.empty()) return false;  // a task head: only when chosen
  return !a.heads[h].optional || with_optional;
}

std::string layer_name(const char* pattern, std::int64_t layer) {
  std::string name = pattern;
  const auto at = name.find("{}");
  if (at != std::string::npos) name.replace(at, 2, std::to_string(layer));
  return name;
}

// The names a tensor may have in a file: with the base model's prefix or without, and LayerNorm's
// old gamma/beta for weight/bias (transformers' from_pretrained renames them).
std::vector<std::string> accepted_names(const Architecture& a, const std::string& name) {
  const std::string prefix = std::string(a.prefix) + ".";
  std::vector<std::string> names = {prefix + name, name};
  if (ends_with(name, "LayerNorm.weight") || ends_with(name, "LayerNorm.bias")) {
    const std::string old = ends_with(name, ".weight") ? name.substr(0, name.size() - 6) + "gamma"
                                                       : name.substr(0, name.size() - 4) + "beta";
    names.push_back(prefix + old);
    names.push_back(old);
  }
  return names;
}

// Every (rule, layer) the architecture has, layers expanded, in table order.
template <class F>
void for_each_tensor(const Architecture& a, const ModelConfig& c, F&& f) {
  for (const TensorRule& r : a.tensors)
    if (!is_layer_param(r.param)) f(r, std::int64_t{-1});
  for (std::int64_t l = 0; l < c.num_layers; ++l)
    for (const TensorRule& r : a.tensors)
      if (is_layer_param(r.param)) f(r, l);
}

std::string sizes_of(const std::vector<std::pair<std::string, std::int64_t>>& sizes) {
  std::string out;
  for (const auto& [k, v] : sizes) out += (out.empty() ? "" : ", ") + k + " " + std::to_string(v);
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

ParameterLayout parameter_layout(const Architecture& a, const ModelConfig& c, bool with_optional,
                                 std::vector<bool> heads) {
  ParameterLayout layout;
  layout.slots.resize(kGlobalParams + static_cast<std::size_t>(c.num_layers) * kLayerParams);
  for (std::size_t g = 0; g < kGlobalParams; ++g) layout.slots[g].param = static_cast<Param>(g);
  for (std::int64_t l = 0; l < c.num_layers; ++l)
    for (std::size_t p = kGlobalParams; p < static_cast<std::size_t>(Param::Count); ++p) {
      ParameterSlot& s = layout.slots[layout.layer(l, static_cast<Param>(p))];
      s.param = static_cast<Param>(p);
      s.layer = l;
    }
  // Each parameter a tensor fills, in table order, at the next cache line. Sizes in int64 (size_t
  // is 32 bits in wasm), saturating past kMaxElements: such a layout is refused by
  // check_parameter_floats before anything is allocated, and its offsets are never used.
  std::int64_t next = 0;
  const auto place = [&](const Shape& shape) {
    std::int64_t n = 1;
    for (auto d : shape) n = d > 0 && n > kMaxElements / d ? kMaxElements + 1 : n * d;
    const std::size_t offset = static_cast<std::size_t>(next);
    next = std::min<std::int64_t>((next + n + 15) / 16 * 16, kMaxElements + 1);
    return offset;
  };
  for_each_tensor(a, c, [&](const TensorRule& r, std::int64_t layer) {
    if (r.optional && !with_optional) return;
    ParameterSlot& s = layout.slots[layer < 0 ? layout.global(r.param) : layout.layer(layer, r.param)];
    if (s.present) return;  // another part of it placed it
    s.present = true;
    s.name = layer_name(r.name, layer);
    s.shape = param_shape(r.param, c);
    s.offset = place(s.shape);
  });
  // the loaded heads' tensors, head by head, step by step
  layout.heads.resize(a.heads.size());
  layout.steps.resize(a.heads.size());
  for (std::size_t h = 0; h < a.heads.size(); ++h) {
    layout.heads[h] = head_loaded(a, h, with_optional, heads);
    const std::vector<HeadTensor> tensors = head_tensors(a, c, h, layout.steps[h]);
    if (!layout.heads[h]) continue;
    for (const HeadTensor& t : tensors) {
      ParameterSlot s;
      s.head = static_cast<std::int64_t>(t.head), s.step = static_cast<std::int64_t>(t.step), s.bias = t.bias;
      s.name = t.name;
      s.shape = t.shape;
      s.present = true;
      s.offset = place(s.shape);
      (t.bias ? layout.steps[h][t.step].bias : layout.steps[h][t.step].weight) = layout.slots.size();
      layout.slots.push_back(std::move(s));
    }
  }
  layout.arena_floats = static_cast<std::size_t>(next);
  return layout;
}

void check_parameter_floats(const ParameterLayout& layout) {
  // the arena's floats, each parameter at a cache line (saturated at kMaxElements + 1), bound the
  // offsets the weights are written at: the parameters' own count can be under the bound and the
  // arena over it
  const std::int64_t floats = std::max(parameter_floats(layout), static_cast<std::int64_t>(layout.arena_floats));
  if (floats <= kMaxElements) return;
  const ParameterSlot* largest = nullptr;  // named, as what to look at in config.json
  std::int64_t most = 0;
  for (const ParameterSlot& s : layout.slots) {
    std::int64_t n = 1;
    for (auto d : s.shape) n *= d;
    if (s.present && n > most) most = n, largest = &s;
  }
  fail(ErrorKind::Range, std::string(kConfig) + ": the parameters would take " + std::to_string(floats) +
                             " floats, more than the " + std::to_string(kMaxElements) +
                             " (2 GiB) the wasm heap can hold (the largest, " + largest->name + ", is " +
                             shape_str(largest->shape) + ")");
}

void validate_model_config(const Architecture& a, const ModelConfig& c) {
  using L = ModelLimits;
  using M = ModelConfig;
  check_size(a, c.hidden_size, 1, L::hidden_size, &M::hidden_size, "hidden size");
  check_size(a, c.num_heads, 1, c.hidden_size, &M::num_heads, "number of heads");
  const bool head_dim_field =
      std::any_of(a.sizes.begin(), a.sizes.end(), [](const SizeField& f) { return f.member == &M::head_dim; });
  if (!head_dim_field && c.hidden_size % c.num_heads != 0)
    fail(ErrorKind::Range, std::string(kConfig) + ": the number of heads " + std::to_string(c.num_heads) +
                               " must divide the hidden size " + std::to_string(c.hidden_size));
  if (head_dim_field) check_size(a, c.head_dim, 1, L::head_dim, &M::head_dim, "head size");

  check_size(a, c.num_kv_heads, 1, c.num_heads, &M::num_kv_heads, "number of key/value heads");
  if (c.num_heads % c.num_kv_heads != 0)
    fail(ErrorKind::Range, std::string(kConfig) + ": the number of key/value heads " + std::to_string(c.num_kv_heads) +
                               " must divide the number of heads " + std::to_string(c.num_heads));
  check_size(a, c.num_layers, 1, L::num_layers, &M::num_layers, "number of layers");
  check_size(a, c.intermediate_size, 1, L::intermediate_size, &M::intermediate_size, "feed-forward size");
  check_size(a, c.vocab_size, 1, L::vocab_size, &M::vocab_size, nullptr);
  // learned positions are a (P, D) table; rotary ones only bound the sequence
  const bool learned = std::any_of(a.tensors.begin(), a.tensors.end(),
                                   [](const TensorRule& r) { return r.param == Param::PositionEmbeddings; });
  check_size(a, c.max_positions, 1, learned ? L::max_positions : L::rotary_max_positions, &M::max_positions, nullptr);
  const bool token_types = std::any_of(a.tensors.begin(), a.tensors.end(),
                                       [](const TensorRule& r) { return r.param == Param::TokenTypeEmbeddings; });
  if (token_types) check_size(a, c.type_vocab_size, 1, L::type_vocab_size, &M::type_vocab_size, nullptr);
  if (!(std::isfinite(c.norm_eps) && c.norm_eps >= 0 && c.norm_eps < 1))
    fail(ErrorKind::Range, std::string(kConfig) + ": " + (a.eps_key ? a.eps_key : "eps") +
                               " must be a number in [0, 1), got " + std::to_string(c.norm_eps));
  if (a.rotary && (c.head_dim % 2 != 0 || !(c.rope_theta > 0)))
    fail(ErrorKind::Range, std::string(kConfig) + ": rotary positions need an even head size and rope_theta > 0, got " +
                               std::to_string(c.head_dim) + " and " + std::to_string(c.rope_theta));
  check_parameter_floats(parameter_layout(a, c, true));
}

namespace {

// The task heads' fields (PretrainedConfig): architectures (a list of class names; the first is
// the model's), and num_labels: id2label's length when it is there, else num_labels, else 2.
void read_task_fields(const json& config, ModelConfig& c) {
  const std::string where = std::string(kConfig) + ": ";
  if (const auto it = config.find("architectures"); it != config.end() && !it->is_null()) {
    if (!it->is_array() || !std::all_of(it->begin(), it->end(), [](const json& x) { return x.is_string(); }))
      fail(ErrorKind::Type, where + "architectures must be a list of class names, got " + describe(*it));
    if (!it->empty()) c.architecture_class = it->front().get<std::string>();
  }
  c.num_labels = 2;
  if (const auto it = config.find("id2label"); it != config.end() && !it->is_null()) {
    if (!it->is_object()) fail(ErrorKind::Type, where + "id2label must be an object, got " + describe(*it));
    c.num_labels = static_cast<std::int64_t>(it->size());
  } else if (const auto n = config.find("num_labels"); n != config.end() && !n->is_null()) {
    if (!n->is_number_integer()) fail(ErrorKind::Type, where + "num_labels must be an integer, got " + describe(*n));
    if (n->is_number_unsigned() && n->get<std::uint64_t>() > static_cast<std::uint64_t>(ModelLimits::vocab_size))
      fail(ErrorKind::Range,
           where + "num_labels " + n->dump() + " is not in [1, " + std::to_string(ModelLimits::vocab_size) + "]");
    c.num_labels = n->get<std::int64_t>();
  }
  if (c.num_labels < 1 || c.num_labels > ModelLimits::vocab_size)
    fail(ErrorKind::Range, where + "the number of labels (id2label, num_labels) " + std::to_string(c.num_labels) +
                               " is not in [1, " + std::to_string(ModelLimits::vocab_size) + "]");
}

}  // namespace

ReadConfig read_config(const std::string& text) {
  json config;
  try {
    // a config's values: its fields, and id2label / label2id's two per label
    config = parse_json_text(text.data(), text.size(), {std::size_t{1} << 20, 64}, kConfig);
  } catch (const json::exception& e) {
    fail(ErrorKind::Shape, std::string(kConfig) + ": invalid JSON: " + e.what());
  }
  if (!config.is_object())
    fail(ErrorKind::Shape, std::string(kConfig) + ": expected a JSON object, got " +
                               (config.is_array() ? "an array" : config.type_name()));
  std::string supported;
  for (const Architecture* a : architectures())
    supported += (supported.empty() ? "" : ", ") + std::string(a->model_type);
  const auto type = config.find("model_type");
  if (type == config.end() || type->is_null())
    fail(ErrorKind::Shape, std::string(kConfig) + ": model_type is missing (supported: " + supported + ")");
  const std::string model_type = type->is_string() ? type->get<std::string>() : type->dump();
  const Architecture* a = find_architecture(model_type);
  if (!a)
    fail(ErrorKind::Shape,
         std::string(kConfig) + ": model_type '" + model_type + "' is not supported (supported: " + supported + ")");

  ReadConfig r;
  r.architecture = a;
  ModelConfig& c = r.config;
  c.model_type = model_type;
  for (const SizeField& f : a->sizes) {
    c.*f.member = integer_field(config, f);
    // num_key_value_heads null: as many as the heads (LlamaConfig, Qwen2Config: `if
    // num_key_value_heads is None: num_key_value_heads = num_attention_heads`), whatever the default
    if (f.member == &ModelConfig::num_kv_heads && config.contains(f.key) && config[f.key].is_null())
      c.num_kv_heads = kDerived;
    if (config.contains(f.key) && f.member != &ModelConfig::num_layers) r.sizes.push_back({f.key, c.*f.member});
  }
  // the sizes derived from others (kDerived) when config.json leaves them out
  if (c.num_kv_heads == 0 || c.num_kv_heads == kDerived) c.num_kv_heads = c.num_heads;  // multi-head attention
  if (c.head_dim == 0 || c.head_dim == kDerived) {  // D / H, which H must divide (D and H bounded first)
    check_size(*a, c.hidden_size, 1, ModelLimits::hidden_size, &ModelConfig::hidden_size, "hidden size");
    check_size(*a, c.num_heads, 1, c.hidden_size, &ModelConfig::num_heads, "number of heads");
    if (c.hidden_size % c.num_heads != 0)
      fail(ErrorKind::Range, std::string(kConfig) + ": the number of heads " + std::to_string(c.num_heads) +
                                 " must divide the hidden size " + std::to_string(c.hidden_size));
    c.head_dim = c.hidden_size / c.num_heads;
  }
  if (c.intermediate_size == kDerived) c.intermediate_size = 4 * c.hidden_size;  // GPT-2's n_inner null
  c.norm_eps = a->eps_key ? number_field(config, a->eps_key, a->eps_fallback) : a->eps_fallback;
  c.activation = activation_field(config, *a);
  c.tie_word_embeddings = a->tie_key ? bool_field(config, a->tie_key, a->tie_fallback) : a->tie_fallback;
  if (a->rotary) read_rope(config, a->rope_theta_fallback, c);
  read_task_fields(config, c);
  check_unsupported(config, *a);
  c.block = block_of(*a, c);
  validate_model_config(*a, c);
  return r;
}

namespace {

// A causal model's task classes (GPT2ForSequenceClassification, LlamaForTokenClassification, ...:
// modeling_gpt2.py / modeling_llama.py run a `score` or `qa_outputs` head on the base model) are not
// language models: loaded as one, the folder would give the tied head's vocabulary logits where
// transformers gives the task's. Refused unless the caller asks for the base model ('none': what
// AutoModelForCausalLM.from_pretrained makes of such a folder, the task head left unread).
void refuse_causal_task_class(const Architecture& a, const ModelConfig& c, const std::string& head_request) {
  if (!a.causal || head_request != "auto") return;
  const std::string& cls = c.architecture_class;
  for (const char* suffix : {"ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering"}) {
    if (cls != suffix && ends_with(cls, suffix))
      fail(ErrorKind::Shape, std::string(kConfig) + ": architectures[0] '" + cls + "' is a task model of model_type " +
                                 a.model_type + ", whose head this library does not run (it runs " + a.model_type +
                                 " as a language model); head: 'none' loads it as a language model, as "
                                 "AutoModelForCausalLM does, where its language-model head is tied to the embeddings "
                                 "or in the file");
  }
}

// Where a tensor of the file goes: the parameter slot it fills, from element `offset` of the arena
// (from row first_row of a fused parameter), stored transposed or not. Its dtype was checked when
// it was found.
TensorRead tensor_read(const SafetensorsTensor& t, std::size_t slot, std::size_t offset, bool transposed,
                       std::size_t first_row) {
  TensorRead read;
  read.name = t.name;
  read.dtype = parse_weight_dtype(t.dtype, read.name);
  read.begin = t.begin;
  read.end = t.end;
  read.offset = offset;
  read.transposed = transposed;
  read.rows = static_cast<std::size_t>(t.shape[0]);
  read.cols = t.shape.size() == 2 ? static_cast<std::size_t>(t.shape[1]) : 1;
  read.slot = slot;
  read.first_row = first_row;
  return read;
}

}  // namespace

CheckpointPlan read_checkpoint(const Architecture& a, const ModelConfig& c,
                               const std::vector<std::pair<std::string, std::int64_t>>& sizes,
                               const std::uint8_t* header_bytes, std::size_t n, std::uint64_t file_size,
                               const std::string& head_request) {
  const std::string file = kWeightsFile;
  const std::size_t task = chosen_task_head(a, c, head_request);
  refuse_causal_task_class(a, c, head_request);
  if (task != kNoHead && std::string(a.heads[task].name) == "question-answering" && c.num_labels != 2)
    fail(ErrorKind::Range, std::string(kConfig) + ": the question-answering head has two outputs (start, end); " +
                               "id2label / num_labels give " + std::to_string(c.num_labels));
  const SafetensorsHeader header = parse_safetensors_header(header_bytes, n, file_size, file);
  std::map<std::string, const SafetensorsTensor*> by_name;
  for (const SafetensorsTensor& t : header.tensors) by_name[t.name] = &t;

  // each tensor of the table: found under one of its names, of its shape and a float dtype
  struct Found {
    const TensorRule* rule;
    std::int64_t layer;
    const SafetensorsTensor* tensor;
  };
  std::vector<Found> found;
  std::vector<std::string> optional_missing, optional_found;
  // The steps are lambdas kept out of line: this function runs once per load, but its loops make
  // V8 compile it again with TurboFan while the weights stream in, in memory that grows with the
  // function's size (a q8 load's peak: docs/performance.md).
  const auto find_tensor = [&](const TensorRule& r, std::int64_t layer) __attribute__((noinline)) {
    const std::string name = layer_name(r.name, layer);
    const std::vector<std::string> names = accepted_names(a, name);
    const SafetensorsTensor* t = nullptr;
    for (const std::string& candidate : names)
      if (const auto it = by_name.find(candidate); it != by_name.end()) {
        t = it->second;
        break;
      }
    if (!t) {
      if (r.optional) return optional_missing.push_back(name);
      std::string looked;
      for (const std::string& candidate : names) looked += (looked.empty() ? "'" : ", '") + candidate + "'";
      fail(ErrorKind::Shape, file + ": tensor '" + name + "' is missing (looked for " + looked + "); " + kConfig +
                                 " (model_type " + a.model_type + ") needs it");
    }
    const Shape want = tensor_shape(r, c);
    if (t->shape != want)
      fail(ErrorKind::Shape, file + ": tensor '" + t->name + "' has shape " + shape_str(t->shape) + "; " + kConfig +
                                 " (" + sizes_of(sizes) + ") needs " + shape_str(want));
    parse_weight_dtype(t->dtype, file + ": tensor '" + t->name + "'");  // F32, F16 or BF16, else TypeError
    if (r.optional) optional_found.push_back(name);
    found.push_back({&r, layer, t});
  };
  for_each_tensor(a, c, find_tensor);
  if (!optional_found.empty() && !optional_missing.empty())
    fail(ErrorKind::Shape,
         file + ": tensor " + optional_missing.front() + " is missing (" + optional_found.front() + " is there)");

  // each head's tensors: a required head's all found, an optional head's all or none
  std::vector<bool> heads(a.heads.size());
  struct HeadFound {
    HeadTensor tensor;
    const SafetensorsTensor* file_tensor;
  };
  std::vector<HeadFound> head_found;
  const auto find_head = [&](std::size_t h) __attribute__((noinline)) {
    const bool task_head = !a.heads[h].classes.empty();
    if (task_head && h != task) return;  // a task head not chosen: its tensors are ignored
    if (a.heads[h].input == HeadInput::Pooled && optional_found.empty())
      fail(ErrorKind::Shape, file + ": tensor '" +
                                 (optional_missing.empty() ? std::string("pooler") : optional_missing.front()) +
                                 "' is missing; " + kConfig + " (architectures[0] " + c.architecture_class +
                                 ") needs the pooler for the " + a.heads[h].name + " head");
    std::vector<HeadStepSlots> steps;
    std::vector<HeadFound> here;
    std::string missing, looked;
    for (const HeadTensor& t : head_tensors(a, c, h, steps)) {
      const SafetensorsTensor* f = nullptr;
      std::string names;
      for (const std::string& candidate : head_names(a, t.name)) {
        names += (names.empty() ? "'" : ", '") + candidate + "'";
        if (const auto it = by_name.find(candidate); !f && it != by_name.end()) f = it->second;
      }
      if (!f) {
        if (missing.empty()) missing = t.name, looked = names;
        continue;
      }
      const Shape want = t.transposed ? Shape(t.shape.rbegin(), t.shape.rend()) : t.shape;
      if (f->shape != want)
        fail(ErrorKind::Shape,
             file + ": tensor '" + f->name + "' has shape " + shape_str(f->shape) + "; " + kConfig + " (" +
                 sizes_of(sizes) + ") needs " + shape_str(want) + " for the " + a.heads[h].name +
                 (task_head ? " head (" + std::to_string(c.num_labels) + " labels from id2label / num_labels)"
                            : std::string()));
      parse_weight_dtype(f->dtype, file + ": tensor '" + f->name + "'");
      here.push_back({t, f});
    }
    if (!missing.empty()) {
      if (!a.heads[h].optional || task_head)
        fail(ErrorKind::Shape, file + ": tensor '" + missing + "' is missing (looked for " + looked + "); " + kConfig +
                                   " (model_type " + a.model_type +
                                   (task_head ? ", architectures[0] " + c.architecture_class : std::string()) +
                                   (c.tie_word_embeddings ? "" : ", untied") + ") needs it for the " + a.heads[h].name +
                                   (task_head ? " head" : ""));
      if (!here.empty())
        fail(ErrorKind::Shape,
             file + ": tensor " + missing + " is missing (" + here.front().tensor.name + " is there)");
      return;
    }
    heads[h] = true;
    head_found.insert(head_found.end(), here.begin(), here.end());
  };
  for (std::size_t h = 0; h < a.heads.size(); ++h) find_head(h);

  CheckpointPlan plan;
  plan.architecture = &a;
  plan.config = c;
  plan.with_optional = !optional_found.empty();
  plan.layout = parameter_layout(a, c, plan.with_optional, heads);
  check_parameter_floats(plan.layout);  // the task head's too (num_labels x hidden)
  plan.data_start = header.data_start;
  plan.data_bytes = file_size - header.data_start;
  std::set<std::string> used;
  for (const Found& f : found) {
    const std::size_t slot_index =
        f.layer < 0 ? plan.layout.global(f.rule->param) : plan.layout.layer(f.layer, f.rule->param);
    const ParameterSlot& slot = plan.layout.slots[slot_index];
    const std::int64_t cols = slot.shape.size() == 2 ? slot.shape[1] : 1;
    const std::int64_t first_row = part_rows(f.rule->part, f.rule->param, c).first;
    plan.reads.push_back(tensor_read(*f.tensor, slot_index, slot.offset + static_cast<std::size_t>(first_row * cols),
                                     f.rule->transposed, static_cast<std::size_t>(first_row)));
    used.insert(f.tensor->name);
  }
  for (const HeadFound& f : head_found) {
    const HeadStepSlots& step = plan.layout.steps[f.tensor.head][f.tensor.step];
    const std::size_t slot_index = f.tensor.bias ? step.bias : step.weight;
    plan.reads.push_back(
        tensor_read(*f.file_tensor, slot_index, plan.layout.slots[slot_index].offset, f.tensor.transposed, 0));
    used.insert(f.file_tensor->name);
  }
  std::sort(plan.reads.begin(), plan.reads.end(),
            [](const TensorRead& x, const TensorRead& y) { return x.begin < y.begin; });
  for (const SafetensorsTensor& t : header.tensors)
    if (!used.count(t.name)) plan.ignored.push_back(t.name);
  return plan;
}

CheckpointPlan read_checkpoint(const std::string& config_json, const std::uint8_t* header, std::size_t header_bytes,
                               std::uint64_t file_size, const std::string& head_request) {
  const ReadConfig r = read_config(config_json);
  return read_checkpoint(*r.architecture, r.config, r.sizes, header, header_bytes, file_size, head_request);
}

}  // namespace aw
