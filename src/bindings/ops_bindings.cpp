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

// Each tensor comes as its data and shape, and the options one by one (scale: NaN for the
// default): on this hot path every property read of a JS object is one more call into JS
// (small calls spent ~40 % of their time in such glue). The JS wrapper has checked the types.
val sdpa_js(val q_data, val q_shape, val k_data, val k_shape, val v_data, val v_shape, val mask_data,
            val mask_shape, bool mask_is_bool, bool is_causal, double scale, bool enable_gqa, bool return_weights,
            bool return_intermediates) {
  return guarded([&] {
    const std::string fn = "scaled_dot_product_attention: ";
    // Self-attention often passes one tensor as key and value (or as all three): copy it once.
    auto same = [](const val& data, const val& shape, const val& other_data, const val& other_shape) {
      return data.strictlyEquals(other_data) && shape_from_js(shape) == shape_from_js(other_shape);
    };
    const HeapTensor q = float_tensor_from_js(q_data, q_shape, fn + "query");
    HeapTensor k_copy, v_copy;
    const HeapTensor* k = &q;
    if (!same(k_data, k_shape, q_data, q_shape)) k = &(k_copy = float_tensor_from_js(k_data, k_shape, fn + "key"));
    const HeapTensor* v = same(v_data, v_shape, q_data, q_shape)   ? &q
                          : same(v_data, v_shape, k_data, k_shape) ? k
                                                                   : nullptr;
    if (!v) v = &(v_copy = float_tensor_from_js(v_data, v_shape, fn + "value"));
    const OptionalHeapMask mask(mask_data, mask_shape, mask_is_bool, fn + "attn_mask");
    SdpaOptions opt;
    opt.float_mask = mask.as_float.ptr();
    opt.bool_mask = mask.bool_ptr();
    opt.is_causal = is_causal;
    if (!std::isnan(scale)) opt.scale = scale;
    opt.enable_gqa = enable_gqa;
    opt.return_weights = return_weights;
    opt.return_intermediates = return_intermediates;
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
  // uordblks is an int: read it as the unsigned 32-bit count it is (a heap past 2 GiB would go negative)
  out.set("allocatedBytes", static_cast<double>(static_cast<std::uint32_t>(mallinfo().uordblks)));
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
