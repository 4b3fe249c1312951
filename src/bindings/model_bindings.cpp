// Embind names for pretrained models (glue only: the idiomatic API is src/js/pretrained.js).
//
// Models live in a registry under integer handles (no Embind class lifetimes for JS to leak).
// Loading: _safetensorsHeaderLength reads the header's length from the file's first 8 bytes;
// _modelOpen takes config.json's bytes, the header's bytes and the file's size, reads and
// validates them (models/checkpoint: the one place a checkpoint is checked), then allocates the
// resident weight arena and a staging buffer and returns the byte ranges of the file to stream;
// JS copies each chunk of the file into the staging buffer (_modelStagingView) and _modelWrite
// converts it into the arena (or, for dtype 'q8', quantizes the linear weights as they pass);
// _modelFinish checks that every tensor arrived, frees the staging
// buffer and packs the linear layers' weights for the kernel. _modelDispose frees the model.
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>

#include "bindings/js_interop.hpp"
#include "models/causal_lm.hpp"
#include "models/checkpoint.hpp"
#include "models/model.hpp"
#include "models/safetensors.hpp"
#include "models/weight_stream.hpp"

namespace aw::js {
namespace {

using emscripten::typed_memory_view;

constexpr std::size_t kStagingBytes = std::size_t{1} << 20;  // one chunk of the file (1 MiB)

// A JS number as JS prints it ("928", "2.5"), for messages.
std::string num(double d) {
  std::ostringstream out;
  out.precision(17);
  out << d;
  return out.str();
}

// Runs f; a WeightStream error (which names the tensor) gets the file's name in front.
template <class F>
void in_weights_file(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    throw Error(e.kind(), std::string(kWeightsFile) + ": " + e.what());
  }
}

struct LoadedModel {
  std::unique_ptr<Model> model;
  std::unique_ptr<WeightStream> stream;  // while loading
  AlignedVector<std::uint8_t> staging;   // while loading
  std::uint64_t data_bytes = 0;          // size of the file's data section
  bool ready = false;                    // every weight written
};

std::map<int, LoadedModel>& registry() {
  static std::map<int, LoadedModel> models;
  return models;
}

// A causal model's KV caches (models/causal_lm), each tied to its model's handle.
struct LoadedCache {
  int model = 0;
  std::unique_ptr<KvCache> cache;
};

std::map<int, LoadedCache>& caches() {
  static std::map<int, LoadedCache> registry;
  return registry;
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

// A file size: an integer number of bytes that a JS number holds exactly.
std::uint64_t file_size_from_js(double bytes, const std::string& where) {
  if (!(bytes >= 0 && bytes <= 9007199254740991.0 && std::floor(bytes) == bytes))
    fail(ErrorKind::Range, where + ": the file size must be an integer number of bytes, got " + num(bytes));
  return static_cast<std::uint64_t>(bytes);
}

// first: Uint8Array of the file's first min(8, size) bytes -> the header length N.
val safetensors_header_length_js(val first, double file_size) {
  return guarded([&] {
    const auto bytes = typed_array_from_js<std::uint8_t>(first, std::string(kWeightsFile) + ": first bytes").data;
    const std::uint64_t n =
        safetensors_header_length(bytes.data(), bytes.size(), file_size_from_js(file_size, kWeightsFile), kWeightsFile);
    return val(static_cast<double>(n));
  });
}

val strings_to_js(const std::vector<std::string>& strings) {
  val out = val::array();
  for (std::size_t i = 0; i < strings.size(); ++i) out.set(i, strings[i]);
  return out;
}

// The data-section byte ranges [begin, end) that cover the reads, merged, in file order.
val read_ranges_js(const std::vector<TensorRead>& reads) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const TensorRead& r : reads) {  // in file order
    if (r.end == r.begin) continue;
    if (!ranges.empty() && ranges.back().second == r.begin)
      ranges.back().second = r.end;
    else
      ranges.push_back({r.begin, r.end});
  }
  val out = val::array();
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    val range = val::array();
    range.set(0, static_cast<double>(ranges[i].first));
    range.set(1, static_cast<double>(ranges[i].second));
    out.set(i, range);
  }
  return out;
}

// The linear layers' form: 'fp32' (float32, packed) or 'q8' (int8, quantized as they stream in).
ModelDtype model_dtype_from_js(const val& dtype) {
  const std::string name = dtype.isString() ? dtype.as<std::string>() : "";
  if (name == "fp32") return ModelDtype::Float32;
  if (name == "q8") return ModelDtype::Q8;
  if (!dtype.isString())
    fail(ErrorKind::Type, "dtype must be 'fp32' or 'q8', got a " + dtype.typeOf().as<std::string>());
  fail(ErrorKind::Range, "dtype must be 'fp32' or 'q8', got '" + name + "'");
}

// config: Uint8Array (config.json), header: Uint8Array (the N header bytes), file_size: bytes of
// model.safetensors, dtype: 'fp32' | 'q8', head: the task head to load ('auto', 'none' or a head's
// name: read_checkpoint) -> {handle, stagingBytes, dataStart, ranges, ignoredTensors, modelType,
// numLayers, numHeads, hiddenSize, maxPositions, typeVocabSize, vocabSize, head (its name or null),
// numLabels}.
val model_open_js(val config_bytes, val header_bytes, double file_size, val dtype, val head) {
  return guarded([&] {
    const ModelDtype model_dtype = model_dtype_from_js(dtype);
    const auto config = typed_array_from_js<std::uint8_t>(config_bytes, "config.json").data;
    const auto header = typed_array_from_js<std::uint8_t>(header_bytes, std::string(kWeightsFile) + ": header").data;
    if (!head.isString()) fail(ErrorKind::Type, "model.load: head must be a string");
    const CheckpointPlan plan = read_checkpoint(std::string(config.begin(), config.end()), header.data(), header.size(),
                                                file_size_from_js(file_size, kWeightsFile), head.as<std::string>());

    // Validated: allocate.
    LoadedModel loaded;
    loaded.model = std::make_unique<Model>(plan, model_dtype);
    loaded.data_bytes = plan.data_bytes;
    loaded.stream = std::make_unique<WeightStream>(loaded.model->weight_targets(plan.reads));
    try {
      loaded.staging.resize(kStagingBytes);
    } catch (const std::bad_alloc&) {
      fail(ErrorKind::Range, "model: out of memory for the staging buffer");
    }
    static int next_handle = 1;
    const int handle = next_handle++;
    registry().emplace(handle, std::move(loaded));
    const ModelConfig& c = plan.config;
    val out = val::object();
    out.set("handle", handle);
    out.set("stagingBytes", static_cast<double>(kStagingBytes));
    out.set("dataStart", static_cast<double>(plan.data_start));
    out.set("ranges", read_ranges_js(plan.reads));
    out.set("ignoredTensors", strings_to_js(plan.ignored));
    out.set("modelType", c.model_type);
    out.set("numLayers", static_cast<double>(c.num_layers));
    out.set("numHeads", static_cast<double>(c.num_heads));
    out.set("hiddenSize", static_cast<double>(c.hidden_size));
    out.set("maxPositions", static_cast<double>(c.max_positions));
    out.set("typeVocabSize", static_cast<double>(c.type_vocab_size));
    out.set("kind", c.block.causal ? "causal-lm" : "encoder");
    out.set("numKvHeads", static_cast<double>(c.num_kv_heads));
    out.set("headDim", static_cast<double>(c.head_dim));
    out.set("intermediateSize", static_cast<double>(c.intermediate_size));
    out.set("vocabSize", static_cast<double>(c.vocab_size));
    out.set("tieWordEmbeddings", c.tie_word_embeddings);
    const std::size_t task = registry().at(handle).model->task_head();
    out.set("head", task == kNoSlot ? val::null() : val(std::string(plan.architecture->heads[task].name)));
    out.set("numLabels", static_cast<double>(c.num_labels));
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
// Out of line, so that the binding V8 compiles again with TurboFan during the load (it is called
// per chunk) stays small: that compile's memory shows in a q8 load's peak (docs/performance.md).
__attribute__((noinline)) void write_chunk(double handle, double offset, double length) {
  LoadedModel& m = find_model(handle, "model.load", false);
  if (m.ready) fail(ErrorKind::Shape, "model.load: the model has finished loading");
  if (!(length >= 0 && length <= static_cast<double>(m.staging.size()) && std::floor(length) == length))
    fail(ErrorKind::Range,
         "model.load: chunk length " + num(length) + " is not in [0, " + std::to_string(m.staging.size()) + "]");
  if (!(offset >= 0 && std::floor(offset) == offset && offset + length <= static_cast<double>(m.data_bytes)))
    fail(ErrorKind::Range, "model.load: chunk [" + num(offset) + ", " + num(offset + length) + ") is outside the " +
                               std::to_string(m.data_bytes) + " bytes of data");
  in_weights_file(
      [&] { m.stream->write(static_cast<std::uint64_t>(offset), m.staging.data(), static_cast<std::size_t>(length)); });
}

val model_write_js(double handle, double offset, double length) {
  return guarded([&] {
    write_chunk(handle, offset, length);
    return val::undefined();
  });
}

val model_finish_js(double handle) {
  return guarded([&] {
    LoadedModel& m = find_model(handle, "model.load", false);
    if (!m.ready) {
      if (const WeightTarget* t = m.stream->first_incomplete())
        fail(ErrorKind::Shape, std::string(kWeightsFile) + ": tensor '" + t->name + "': only " +
                                   std::to_string(m.stream->bytes_written(*t)) + " of its " +
                                   std::to_string(t->end - t->begin) + " bytes were read (truncated file?)");
      m.stream.reset();
      m.staging = AlignedVector<std::uint8_t>();
      m.model->pack_linear_weights();
      m.ready = true;
    }
    val out = val::object();
    out.set("residentBytes", static_cast<double>(m.model->resident_bytes()));
    out.set("hasPooler", m.model->has_pooler());
    return out;
  });
}

val model_dispose_js(double handle) {
  return guarded([&] {
    auto& models = registry();
    const auto it = std::isfinite(handle) ? models.find(static_cast<int>(handle)) : models.end();
    const bool found = it != models.end() && it->first == handle;
    if (found) {
      auto& all = caches();  // its caches first: they point at the model
      for (auto c = all.begin(); c != all.end();) c = c->second.model == it->first ? all.erase(c) : std::next(c);
      models.erase(it);
    }
    return val(found);
  });
}

// A JS typed array of `count` elements copied into a heap vector (its kind and length checked
// again: the boundary trusts nothing the wrapper checked).
// `what` is a name marked by api_name (input_ids: inputIds in JS, src/js/names.js).
template <class T>
std::vector<T> copy_array(const val& array, std::size_t count, const std::string& what,
                          const std::string& fn = "model.forward") {
  const HeapArray<T> heap = typed_array_from_js<T>(array, count, fn + ": " + what);
  return std::vector<T>(heap.data.begin(), heap.data.end());
}

val tensors_to_js(const std::vector<Tensor>& tensors) {
  val out = val::array();
  for (std::size_t i = 0; i < tensors.size(); ++i) out.set(i, tensor_to_js(tensors[i]));
  return out;
}

// The question-answering head's (N, L, 2) logits as transformers splits them: start_logits and
// end_logits, (N, L) each.
std::pair<Tensor, Tensor> split_start_end(const Tensor& logits) {
  const std::size_t rows = logits.data.size() / 2;
  Shape shape(logits.shape.begin(), logits.shape.end() - 1);
  std::pair<Tensor, Tensor> out{make_uninitialised_tensor(shape, "model.forward: start_logits"),
                                make_uninitialised_tensor(shape, "model.forward: end_logits")};
  for (std::size_t i = 0; i < rows; ++i) {
    out.first.data[i] = logits.data[2 * i];
    out.second.data[i] = logits.data[2 * i + 1];
  }
  return out;
}

// ids: Int32Array (N*L); mask: Uint8Array (N*L) or null; types: Int32Array (N*L) or null;
// logits: the task head's too; positions: Int32Array of (n, l) pairs or null (logits there only).
val model_forward_js(double handle, val ids, val mask, val types, double batch, double length, bool hidden_states,
                     bool attentions, bool logits, val positions) {
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
    options.output_logits = logits;
    AlignedVector<std::int32_t> position_data;
    if (is_set(positions)) {
      position_data = typed_array_from_js<std::int32_t>(positions, "model.forward: positions").data;
      if (position_data.size() % 2 != 0)
        fail(ErrorKind::Range, "model.forward: positions must hold (n, l) pairs, got " +
                                   std::to_string(position_data.size()) + " values");
      options.positions = position_data.data();
      options.position_count = position_data.size() / 2;
    }
    const EncoderOutput r = m.model->forward(in, options);
    val out = val::object();
    out.set("lastHiddenState", tensor_to_js(r.last_hidden_state));
    if (hidden_states) out.set("hiddenStates", tensors_to_js(r.hidden_states));
    if (attentions) out.set("attentions", tensors_to_js(r.attentions));
    if (!r.pooler_output.data.empty()) out.set("poolerOutput", tensor_to_js(r.pooler_output));
    if (logits) {
      const std::size_t task = m.model->task_head();
      if (std::string(m.model->architecture().heads[task].name) == "question-answering") {
        const auto [start, end] = split_start_end(r.logits);
        out.set("startLogits", tensor_to_js(start));
        out.set("endLogits", tensor_to_js(end));
      } else {
        out.set("logits", tensor_to_js(r.logits));
      }
    }
    return out;
  });
}

val model_word_embeddings_js(double handle, val ids) {
  return guarded([&] {
    const LoadedModel& m = find_model(handle, "model.wordEmbeddings", true);
    const auto id_data = typed_array_from_js<std::int32_t>(ids, "model.wordEmbeddings: ids").data;
    return tensor_to_js(m.model->word_embeddings(id_data.data(), id_data.size()));
  });
}

// ---------------------------------------------------------------------------------------------
// Causal language models: the forward with or without a KV cache (models/causal_lm). Caches live
// in their own registry under integer handles, each tied to its model's handle: a model's
// dispose frees its caches; a cache used with another model is an Error.

LoadedCache& find_cache(double handle, const char* fn) {
  auto& all = caches();
  const auto it = std::isfinite(handle) ? all.find(static_cast<int>(handle)) : all.end();
  if (it == all.end() || it->first != handle)
    fail(ErrorKind::Shape, std::string(fn) + ": no cache with handle " + num(handle) + " (disposed?)");
  return it->second;
}

const LoadedModel& find_causal(double handle, const char* fn) {
  const LoadedModel& m = find_model(handle, fn, true);
  if (!m.model->config().block.causal)
    fail(ErrorKind::Type, std::string(fn) + ": " + m.model->config().model_type + " is not a causal language model");
  return m;
}

val cache_create_js(double model_handle) {
  return guarded([&] {
    const LoadedModel& m = find_causal(model_handle, "lm.createCache");
    static int next_handle = 1;
    const int handle = next_handle++;
    caches().emplace(handle, LoadedCache{static_cast<int>(model_handle), std::make_unique<KvCache>(*m.model)});
    return val(handle);
  });
}

val cache_info_js(double handle) {
  return guarded([&] {
    const LoadedCache& c = find_cache(handle, "cache");
    val out = val::object();
    out.set("length", static_cast<double>(c.cache->length()));
    out.set("batch", static_cast<double>(c.cache->batch()));
    out.set("residentBytes", static_cast<double>(c.cache->resident_bytes()));
    return out;
  });
}

val cache_clear_js(double handle) {
  return guarded([&] {
    find_cache(handle, "cache.clear").cache->clear();
    return val::undefined();
  });
}

val cache_dispose_js(double handle) {
  return guarded([&] {
    auto& all = caches();
    const auto it = std::isfinite(handle) ? all.find(static_cast<int>(handle)) : all.end();
    const bool found = it != all.end() && it->first == handle;
    if (found) all.erase(it);
    return val(found);
  });
}

// ids: Int32Array (N*L); mask: Uint8Array (N*L) or null; positions: Int32Array (N*L) or null;
// cache: a cache handle or null; last_only: logits of each row's last token only.
val causal_forward_js(double handle, val ids, val mask, val positions, double batch, double length, bool hidden_states,
                      bool attentions, val cache_handle, bool last_only) {
  return guarded([&] {
    const char* fn = "lm.forward";
    const LoadedModel& m = find_causal(handle, fn);
    KvCache* cache = nullptr;
    if (is_set(cache_handle)) {
      LoadedCache& c = find_cache(cache_handle.as<double>(), fn);
      if (c.model != static_cast<int>(handle))
        fail(ErrorKind::Type, std::string(fn) +
                                  ": cache belongs to another model (a cache holds one model's keys "
                                  "and values: lm.createCache())");
      cache = c.cache.get();
    }
    if (!(batch >= 1 && length >= 1 && std::floor(batch) == batch && std::floor(length) == length &&
          batch * length <= static_cast<double>(kMaxElements)))
      fail(ErrorKind::Range,
           std::string(fn) + ": input shape [" + num(batch) + ", " + num(length) + "] is out of range");
    const auto count = static_cast<std::size_t>(batch * length);
    const auto id_data = copy_array<std::int32_t>(ids, count, api_name("input_ids"), fn);
    std::vector<std::uint8_t> mask_data;
    std::vector<std::int32_t> position_data;
    if (is_set(mask)) mask_data = copy_array<std::uint8_t>(mask, count, api_name("attention_mask"), fn);
    if (is_set(positions)) position_data = copy_array<std::int32_t>(positions, count, api_name("position_ids"), fn);
    CausalInput in;
    in.input_ids = id_data.data();
    in.attention_mask = is_set(mask) ? mask_data.data() : nullptr;
    in.position_ids = is_set(positions) ? position_data.data() : nullptr;
    in.batch = static_cast<std::int64_t>(batch);
    in.length = static_cast<std::int64_t>(length);
    CausalOptions options;
    options.output_hidden_states = hidden_states;
    options.output_attentions = attentions;
    options.last_logits_only = last_only;
    const CausalOutput r = causal_forward(*m.model, in, options, cache);
    val out = val::object();
    out.set("logits", tensor_to_js(r.logits));
    if (hidden_states) out.set("hiddenStates", tensors_to_js(r.hidden_states));
    if (attentions) out.set("attentions", tensors_to_js(r.attentions));
    return out;
  });
}

}  // namespace
}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_models) {
  using namespace emscripten;
  function("_safetensorsHeaderLength", &aw::js::safetensors_header_length_js);
  function("_modelOpen", &aw::js::model_open_js);
  function("_modelStagingView", &aw::js::model_staging_view_js);
  function("_modelWrite", &aw::js::model_write_js);
  function("_modelFinish", &aw::js::model_finish_js);
  function("_modelDispose", &aw::js::model_dispose_js);
  function("_modelForward", &aw::js::model_forward_js);
  function("_modelWordEmbeddings", &aw::js::model_word_embeddings_js);
  function("_causalForward", &aw::js::causal_forward_js);
  function("_cacheCreate", &aw::js::cache_create_js);
  function("_cacheInfo", &aw::js::cache_info_js);
  function("_cacheClear", &aw::js::cache_clear_js);
  function("_cacheDispose", &aw::js::cache_dispose_js);
}
