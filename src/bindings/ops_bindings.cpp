// Embind names for the ops. Glue only: the idiomatic API is the JS wrapper in src/js/.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <cmath>

#include "bindings/js_interop.hpp"
#include "ops/attention.hpp"
#include "ops/embedding.hpp"
#include "ops/linalg.hpp"
#include "ops/random.hpp"
#include "ops/softmax.hpp"

namespace aw::js {
namespace {

val manual_seed_js(double seed) {
  return guarded([&] {
    aw::manual_seed(static_cast<std::uint64_t>(seed));
    return val::undefined();
  });
}

val rand_js(val shape) { return guarded([&] { return tensor_to_js(aw::rand(shape_from_js(shape))); }); }
val randn_js(val shape) { return guarded([&] { return tensor_to_js(aw::randn(shape_from_js(shape))); }); }

val matmul_js(val input, val other) {
  return guarded([&] {
    const auto a = float_tensor_from_js(input, "matmul: input");
    const auto b = float_tensor_from_js(other, "matmul: other");
    return tensor_to_js(aw::matmul(a.ref(), b.ref()));
  });
}

val linear_js(val input, val weight, val bias) {
  return guarded([&] {
    const auto x = float_tensor_from_js(input, "linear: input");
    const auto w = float_tensor_from_js(weight, "linear: weight");
    const OptionalHeapTensor b(bias, "linear: bias");
    return tensor_to_js(aw::linear(x.ref(), w.ref(), b.ptr()));
  });
}

val softmax_js(val input, double dim) {
  return guarded([&] {
    if (!(std::abs(dim) <= 9007199254740992.0)) fail(ErrorKind::Range, "softmax: dim " + std::to_string(dim) + " is not an integer in (-2^53, 2^53)");
    const auto x = float_tensor_from_js(input, "softmax: input");
    return tensor_to_js(aw::softmax(x.ref(), static_cast<std::int64_t>(dim)));
  });
}

// ids: {data: Int32Array, shape}
val embedding_js(val ids, val weight) {
  return guarded([&] {
    Shape ids_shape;
    const std::vector<std::int32_t> id_data = int_tensor_from_js(ids, "embedding: input", ids_shape);
    const auto w = float_tensor_from_js(weight, "embedding: weight");
    return tensor_to_js(aw::embedding(id_data.data(), ids_shape, w.ref()));
  });
}

// options: {attnMask?: {data, shape}, maskIsBool: boolean, isCausal, scale?: number, enableGqa,
//           returnWeights, returnIntermediates}
val sdpa_js(val query, val key, val value, val options) {
  return guarded([&] {
    const std::string fn = "scaled_dot_product_attention: ";
    // Self-attention often passes one object as key and value (or as all three): copy it once.
    const HeapTensor q = float_tensor_from_js(query, fn + "query");
    HeapTensor k_copy, v_copy;
    const HeapTensor* k = &q;
    if (!key.strictlyEquals(query)) k = &(k_copy = float_tensor_from_js(key, fn + "key"));
    const HeapTensor* v = value.strictlyEquals(query) ? &q : value.strictlyEquals(key) ? k : nullptr;
    if (!v) v = &(v_copy = float_tensor_from_js(value, fn + "value"));
    const OptionalHeapMask mask(options["attnMask"], options["maskIsBool"].as<bool>(), fn + "attn_mask");
    SdpaOptions opt;
    opt.float_mask = mask.as_float.ptr();
    opt.bool_mask = mask.bool_ptr();
    opt.is_causal = options["isCausal"].as<bool>();
    if (is_set(options["scale"])) opt.scale = options["scale"].as<double>();
    opt.enable_gqa = options["enableGqa"].as<bool>();
    opt.return_weights = options["returnWeights"].as<bool>();
    opt.return_intermediates = options["returnIntermediates"].as<bool>();
    const SdpaResult r = aw::scaled_dot_product_attention(q.ref(), k->ref(), v->ref(), opt);
    val out = val::object();
    out.set("output", tensor_to_js(r.output));
    if (opt.return_weights || opt.return_intermediates) out.set("weights", tensor_to_js(r.weights));
    if (opt.return_intermediates) {
      out.set("scores", tensor_to_js(r.scores));
      out.set("scaled", tensor_to_js(r.scaled));
      out.set("masked", tensor_to_js(r.masked));
    }
    return out;
  });
}

// Diagnostics for leak tests: {heapBytes: size of the wasm memory (it only grows),
// allocatedBytes: bytes malloc currently hands out (mallinfo().uordblks)}.
val memory_stats_js() {
  val out = val::object();
  out.set("heapBytes", static_cast<double>(emscripten_get_heap_size()));
  out.set("allocatedBytes", static_cast<double>(mallinfo().uordblks));
  return out;
}

}  // namespace
}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_ops) {
  using namespace emscripten;
  function("_manualSeed", &aw::js::manual_seed_js);
  function("_rand", &aw::js::rand_js);
  function("_randn", &aw::js::randn_js);
  function("_matmul", &aw::js::matmul_js);
  function("_linear", &aw::js::linear_js);
  function("_softmax", &aw::js::softmax_js);
  function("_embedding", &aw::js::embedding_js);
  function("_scaledDotProductAttention", &aw::js::sdpa_js);
  function("_memoryStats", &aw::js::memory_stats_js);
}
