// Embind names for pretrained encoders (glue only: the idiomatic API is src/js/pretrained.js).
//
// Models live in a registry under integer handles (no Embind class lifetimes for JS to leak).
// Loading: _modelCreate validates the config and the checkpoint's tensor table again (the JS
// layer has checked them; this boundary trusts nothing), then allocates the resident weight
// arena and a staging buffer; JS copies each chunk of the file into the staging buffer
// (_modelStagingView) and _modelWrite converts it into the arena; _modelFinish checks that every
// tensor arrived, frees the staging buffer and packs the linear layers' weights for the kernel.
// _modelDispose frees the model.
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>

#include "bindings/js_interop.hpp"
#include "models/encoder.hpp"
#include "models/weight_stream.hpp"

namespace aw::js {
namespace {

using emscripten::typed_memory_view;

constexpr std::size_t kStagingBytes = std::size_t{4} << 20;  // one chunk of the file (4 MiB)

// A JS number as JS prints it ("928", "2.5"), for messages.
std::string num(double d) {
  std::ostringstream out;
  out.precision(17);
  out << d;
  return out.str();
}

struct LoadedModel {
  std::unique_ptr<Encoder> encoder;
  std::unique_ptr<WeightStream> stream;  // while loading
  AlignedVector<std::uint8_t> staging;   // while loading
  std::uint64_t data_bytes = 0;          // size of the file's data section
  bool ready = false;                    // every weight written
};

std::map<int, LoadedModel>& registry() {
  static std::map<int, LoadedModel> models;
  return models;
}

LoadedModel& find_model(double handle, const char* fn, bool must_be_ready) {
  auto& models = registry();
  const auto it = std::isfinite(handle) ? models.find(static_cast<int>(handle)) : models.end();
  if (it == models.end() || it->first != handle)
    fail(ErrorKind::Shape, std::string(fn) + ": no model with handle " + num(handle) + " (disposed?)");
  if (must_be_ready && !it->second.ready)
    fail(ErrorKind::Shape, std::string(fn) + ": the model has not finished loading");
  return it->second;
}

// A number field of a JS object that must be an integer in [lo, hi].
std::int64_t integer_field(const val& object, const char* name, std::int64_t lo, std::int64_t hi) {
  const val v = object[name];
  if (!v.isNumber()) fail(ErrorKind::Type, std::string("encoder config: ") + name + " must be a number");
  const double d = v.as<double>();
  if (!(std::floor(d) == d && d >= static_cast<double>(lo) && d <= static_cast<double>(hi))) {
    fail(ErrorKind::Range, std::string("encoder config: ") + name + " must be an integer in [" + std::to_string(lo) +
                               ", " + std::to_string(hi) + "], got " + num(d));
  }
  return static_cast<std::int64_t>(d);
}

std::string string_field(const val& object, const char* name, const std::string& where) {
  const val v = object[name];
  if (!v.isString()) fail(ErrorKind::Type, where + ": " + name + " must be a string");
  return v.as<std::string>();
}

// {arch, vocabSize, hiddenSize, numLayers, numHeads, intermediateSize, maxPositions,
//  typeVocabSize, activation, layerNormEps} -> EncoderConfig (sizes bounded here, checked
// against each other by validate_encoder_config).
EncoderConfig config_from_js(const val& c) {
  if (c.typeOf().as<std::string>() != "object" || c.isNull()) fail(ErrorKind::Type, "encoder config must be an object");
  // Exact in a double and beyond every limit: validate_encoder_config then names the field.
  constexpr std::int64_t big = std::int64_t{1} << 40;
  EncoderConfig config;
  const std::string arch = string_field(c, "arch", "encoder config");
  if (arch == "distilbert")
    config.arch = EncoderArch::DistilBert;
  else if (arch == "bert")
    config.arch = EncoderArch::Bert;
  else
    fail(ErrorKind::Range, "encoder config: arch '" + arch + "' is not supported (distilbert, bert)");
  config.vocab_size = integer_field(c, "vocabSize", -big, big);
  config.hidden_size = integer_field(c, "hiddenSize", -big, big);
  config.num_layers = integer_field(c, "numLayers", -big, big);
  config.num_heads = integer_field(c, "numHeads", -big, big);
  config.intermediate_size = integer_field(c, "intermediateSize", -big, big);
  config.max_positions = integer_field(c, "maxPositions", -big, big);
  config.type_vocab_size = integer_field(c, "typeVocabSize", -big, big);
  const std::string act = string_field(c, "activation", "encoder config");
  if (act == "gelu")
    config.activation = EncoderActivation::Gelu;
  else if (act == "gelu_tanh")
    config.activation = EncoderActivation::GeluTanh;
  else if (act == "relu")
    config.activation = EncoderActivation::Relu;
  else
    fail(ErrorKind::Range, "encoder config: activation '" + act + "' is not supported (gelu, gelu_tanh, relu)");
  const val eps = c["layerNormEps"];
  if (!eps.isNumber()) fail(ErrorKind::Type, "encoder config: layerNormEps must be a number");
  config.layer_norm_eps = eps.as<double>();
  validate_encoder_config(config);
  return config;
}

// The checkpoint's tensors for the parameter slots: [{slot, name, dtype, shape, begin, end}].
struct Entry {
  std::size_t slot;
  std::string name;
  WeightDtype dtype;
  Shape shape;
  std::uint64_t begin, end;
};

std::vector<Entry> entries_from_js(const val& list) {
  if (!list.isArray()) fail(ErrorKind::Type, "model tensors must be an array");
  const auto count = list["length"].as<std::size_t>();
  std::vector<Entry> entries;
  entries.reserve(count);
  constexpr std::int64_t max_offset = std::int64_t{1} << 53;
  for (std::size_t i = 0; i < count; ++i) {
    const val e = list[i];
    if (e.typeOf().as<std::string>() != "object" || e.isNull())
      fail(ErrorKind::Type, "model tensors: entry " + std::to_string(i) + " must be an object");
    Entry entry;
    entry.name = string_field(e, "name", "model tensors: entry " + std::to_string(i));
    const std::string where = "tensor '" + entry.name + "'";
    entry.slot = static_cast<std::size_t>(integer_field(e, "slot", 0, std::int64_t{1} << 30));
    entry.dtype = parse_weight_dtype(string_field(e, "dtype", where), where);
    const val shape = e["shape"];
    if (!shape.isArray()) fail(ErrorKind::Type, where + ": shape must be an array");
    entry.shape = shape_from_js_array(shape, where);
    entry.begin = static_cast<std::uint64_t>(integer_field(e, "begin", 0, max_offset));
    entry.end = static_cast<std::uint64_t>(integer_field(e, "end", 0, max_offset));
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Every present, required slot has exactly one tensor of its shape, whole elements in range of
// the data section, no two tensors overlapping; the pooler's two tensors come together.
void validate_entries(const ParameterLayout& layout, const std::vector<Entry>& entries, std::uint64_t data_bytes) {
  std::vector<const Entry*> by_slot(layout.specs.size(), nullptr);
  for (const Entry& e : entries) {
    const std::string where = "tensor '" + e.name + "'";
    if (e.slot >= layout.specs.size() || !layout.specs[e.slot].present)
      fail(ErrorKind::Range, where + ": slot " + std::to_string(e.slot) + " is not a parameter of this model");
    const ParameterSpec& spec = layout.specs[e.slot];
    if (by_slot[e.slot]) fail(ErrorKind::Shape, where + ": a second tensor for " + spec.name);
    by_slot[e.slot] = &e;
    if (e.shape != spec.shape)
      fail(ErrorKind::Shape, where + " has shape " + shape_str(e.shape) + ", the model needs " + shape_str(spec.shape) +
                                 " for " + spec.name);
    std::uint64_t numel = 1;
    for (auto d : spec.shape) numel *= static_cast<std::uint64_t>(d);
    if (e.end < e.begin || e.end - e.begin != numel * dtype_bytes(e.dtype))
      fail(ErrorKind::Shape, where + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                                 "] do not hold the " + std::to_string(numel * dtype_bytes(e.dtype)) +
                                 " bytes of shape " + shape_str(spec.shape));
    if (e.end > data_bytes)
      fail(ErrorKind::Range, where + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                                 "] run past the " + std::to_string(data_bytes) + " bytes of data");
  }
  for (std::size_t s = 0; s < layout.specs.size(); ++s)
    if (layout.specs[s].present && !layout.specs[s].optional && !by_slot[s])
      fail(ErrorKind::Shape, "tensor " + layout.specs[s].name + " is missing");
  std::vector<const Entry*> sorted;
  for (const Entry& e : entries) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) { return a->begin < b->begin; });
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i]->begin < sorted[i - 1]->end)
      fail(ErrorKind::Shape, "tensor '" + sorted[i]->name + "' overlaps tensor '" + sorted[i - 1]->name + "'");
}

val encoder_parameters_js(val config) {
  return guarded([&] {
    const ParameterLayout layout = encoder_parameters(config_from_js(config), true);
    val out = val::array();
    std::size_t n = 0;
    for (std::size_t s = 0; s < layout.specs.size(); ++s) {
      const ParameterSpec& spec = layout.specs[s];
      if (!spec.present) continue;
      val p = val::object();
      p.set("slot", static_cast<double>(s));
      p.set("name", spec.name);
      val shape = val::array();
      for (std::size_t i = 0; i < spec.shape.size(); ++i) shape.set(i, static_cast<double>(spec.shape[i]));
      p.set("shape", shape);
      p.set("optional", spec.optional);
      out.set(n++, p);
    }
    return out;
  });
}

val model_create_js(val config_js, val tensors, double data_bytes) {
  return guarded([&] {
    if (!(data_bytes >= 0 && data_bytes <= 9007199254740992.0 && std::floor(data_bytes) == data_bytes))
      fail(ErrorKind::Range, "model: data size must be an integer number of bytes");
    const EncoderConfig config = config_from_js(config_js);
    const std::vector<Entry> entries = entries_from_js(tensors);
    const bool with_pooler = std::any_of(entries.begin(), entries.end(), [](const Entry& e) {
      return e.slot == static_cast<std::size_t>(GlobalParam::PoolerWeight) ||
             e.slot == static_cast<std::size_t>(GlobalParam::PoolerBias);
    });
    if (with_pooler && config.arch != EncoderArch::Bert) fail(ErrorKind::Range, "model: distilbert has no pooler");
    const ParameterLayout layout = encoder_parameters(config, with_pooler);
    if (with_pooler) {  // both or neither
      const auto has = [&](GlobalParam p) {
        return std::any_of(entries.begin(), entries.end(), [&](const Entry& e) { return e.slot == layout.global(p); });
      };
      if (!has(GlobalParam::PoolerWeight))
        fail(ErrorKind::Shape, "tensor pooler.dense.weight is missing (pooler.dense.bias is there)");
      if (!has(GlobalParam::PoolerBias))
        fail(ErrorKind::Shape, "tensor pooler.dense.bias is missing (pooler.dense.weight is there)");
    }
    validate_entries(layout, entries, static_cast<std::uint64_t>(data_bytes));

    // Validated: allocate.
    LoadedModel model;
    model.encoder = std::make_unique<Encoder>(config, with_pooler);
    model.data_bytes = static_cast<std::uint64_t>(data_bytes);
    std::vector<WeightTarget> targets;
    for (const Entry& e : entries)
      targets.push_back({e.name, e.dtype, e.begin, e.end, model.encoder->parameter(e.slot)});
    model.stream = std::make_unique<WeightStream>(std::move(targets));
    try {
      model.staging.resize(kStagingBytes);
    } catch (const std::bad_alloc&) {
      fail(ErrorKind::Range, "model: out of memory for the staging buffer");
    }
    static int next_handle = 1;
    const int handle = next_handle++;
    registry().emplace(handle, std::move(model));
    val out = val::object();
    out.set("handle", handle);
    out.set("stagingBytes", static_cast<double>(kStagingBytes));
    return out;
  });
}

// A Uint8Array over the staging buffer: valid until the wasm memory next grows, so JS fills it
// at once and then calls _modelWrite.
val model_staging_view_js(double handle) {
  return guarded([&] {
    LoadedModel& m = find_model(handle, "model.load", false);
    if (m.ready) fail(ErrorKind::Shape, "model.load: the model has finished loading");
    return val(typed_memory_view(m.staging.size(), m.staging.data()));
  });
}

// The staging buffer's first `length` bytes are the data-section bytes [offset, offset + length).
val model_write_js(double handle, double offset, double length) {
  return guarded([&] {
    LoadedModel& m = find_model(handle, "model.load", false);
    if (m.ready) fail(ErrorKind::Shape, "model.load: the model has finished loading");
    if (!(length >= 0 && length <= static_cast<double>(m.staging.size()) && std::floor(length) == length))
      fail(ErrorKind::Range,
           "model.load: chunk length " + num(length) + " is not in [0, " + std::to_string(m.staging.size()) + "]");
    if (!(offset >= 0 && std::floor(offset) == offset && offset + length <= static_cast<double>(m.data_bytes)))
      fail(ErrorKind::Range, "model.load: chunk [" + num(offset) + ", " + num(offset + length) + ") is outside the " +
                                 std::to_string(m.data_bytes) + " bytes of data");
    m.stream->write(static_cast<std::uint64_t>(offset), m.staging.data(), static_cast<std::size_t>(length));
    return val::undefined();
  });
}

val model_finish_js(double handle) {
  return guarded([&] {
    LoadedModel& m = find_model(handle, "model.load", false);
    if (!m.ready) {
      if (const WeightTarget* t = m.stream->first_incomplete())
        fail(ErrorKind::Shape, "tensor '" + t->name + "': only " + std::to_string(m.stream->bytes_written(*t)) +
                                   " of its " + std::to_string(t->end - t->begin) +
                                   " bytes were read (truncated file?)");
      m.stream.reset();
      m.staging = AlignedVector<std::uint8_t>();
      m.encoder->pack_linear_weights();
      m.ready = true;
    }
    val out = val::object();
    out.set("residentBytes", static_cast<double>(m.encoder->resident_bytes()));
    out.set("hasPooler", m.encoder->has_pooler());
    return out;
  });
}

val model_dispose_js(double handle) {
  return guarded([&] {
    auto& models = registry();
    const auto it = std::isfinite(handle) ? models.find(static_cast<int>(handle)) : models.end();
    const bool found = it != models.end() && it->first == handle;
    if (found) models.erase(it);
    return val(found);
  });
}

// A JS typed array of `count` elements copied into a heap vector (its kind and length checked
// again: the boundary trusts nothing the wrapper checked).
// `what` is a name marked by api_name (input_ids: inputIds in JS, src/js/names.js).
template <class T>
std::vector<T> copy_array(const val& array, std::size_t count, const std::string& what) {
  const HeapArray<T> heap = typed_array_from_js<T>(array, count, "model.forward: " + what);
  return std::vector<T>(heap.data.begin(), heap.data.end());
}

val tensors_to_js(const std::vector<Tensor>& tensors) {
  val out = val::array();
  for (std::size_t i = 0; i < tensors.size(); ++i) out.set(i, tensor_to_js(tensors[i]));
  return out;
}

// ids: Int32Array (N*L); mask: Uint8Array (N*L) or null; types: Int32Array (N*L) or null.
val model_forward_js(double handle, val ids, val mask, val types, double batch, double length, bool hidden_states,
                     bool attentions) {
  return guarded([&] {
    const LoadedModel& m = find_model(handle, "model.forward", true);
    if (!(batch >= 1 && length >= 1 && std::floor(batch) == batch && std::floor(length) == length &&
          batch * length <= static_cast<double>(kMaxElements)))
      fail(ErrorKind::Range, "model.forward: input shape [" + num(batch) + ", " + num(length) + "] is out of range");
    const auto count = static_cast<std::size_t>(batch * length);
    const auto id_data = copy_array<std::int32_t>(ids, count, api_name("input_ids"));
    std::vector<std::uint8_t> mask_data;
    std::vector<std::int32_t> type_data;
    if (is_set(mask)) mask_data = copy_array<std::uint8_t>(mask, count, api_name("attention_mask"));
    if (is_set(types)) type_data = copy_array<std::int32_t>(types, count, api_name("token_type_ids"));
    EncoderInput in;
    in.input_ids = id_data.data();
    in.attention_mask = is_set(mask) ? mask_data.data() : nullptr;
    in.token_type_ids = is_set(types) ? type_data.data() : nullptr;
    in.batch = static_cast<std::int64_t>(batch);
    in.length = static_cast<std::int64_t>(length);
    EncoderOptions options;
    options.output_hidden_states = hidden_states;
    options.output_attentions = attentions;
    const EncoderOutput r = m.encoder->forward(in, options);
    val out = val::object();
    out.set("lastHiddenState", tensor_to_js(r.last_hidden_state));
    if (hidden_states) out.set("hiddenStates", tensors_to_js(r.hidden_states));
    if (attentions) out.set("attentions", tensors_to_js(r.attentions));
    if (!r.pooler_output.data.empty()) out.set("poolerOutput", tensor_to_js(r.pooler_output));
    return out;
  });
}

val model_word_embeddings_js(double handle, val ids) {
  return guarded([&] {
    const LoadedModel& m = find_model(handle, "model.wordEmbeddings", true);
    const auto id_data = typed_array_from_js<std::int32_t>(ids, "model.wordEmbeddings: ids").data;
    return tensor_to_js(m.encoder->word_embeddings(id_data.data(), id_data.size()));
  });
}

}  // namespace
}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_models) {
  using namespace emscripten;
  function("_encoderParameters", &aw::js::encoder_parameters_js);
  function("_modelCreate", &aw::js::model_create_js);
  function("_modelStagingView", &aw::js::model_staging_view_js);
  function("_modelWrite", &aw::js::model_write_js);
  function("_modelFinish", &aw::js::model_finish_js);
  function("_modelDispose", &aw::js::model_dispose_js);
  function("_modelForward", &aw::js::model_forward_js);
  function("_modelWordEmbeddings", &aw::js::model_word_embeddings_js);
}
