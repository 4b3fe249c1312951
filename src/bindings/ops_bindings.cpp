// Embind names for the ops. Glue only: the idiomatic API is the JS wrapper in src/js/. Each
// binding takes its tensors as one TensorArgs array (bindings/js_interop.hpp), in the order its
// comment gives, then plain values.
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
    if (!(seed >= 0 && seed < 9007199254740992.0 && std::floor(seed) == seed))
      fail(ErrorKind::Range, "manualSeed: seed must be an integer in [0, 2^53), got " + std::to_string(seed));
    aw::manual_seed(static_cast<std::uint64_t>(seed));
    return val::undefined();
  });
}

// size: Float64Array of dims
val rand_js(val size) {
  return guarded([&] { return tensor_to_js(aw::rand(shape_from_js(size, "rand: size"))); });
}
val randn_js(val size) {
  return guarded([&] { return tensor_to_js(aw::randn(shape_from_js(size, "randn: size"))); });
}

// tensors: input, other
val matmul_js(const TensorArgs<2>& t) {
  return guarded([&] {
    const auto a = float_arg(t, 0, "matmul: input");
    const auto b = float_arg(t, 1, "matmul: other");
    return tensor_to_js(aw::matmul(a.ref(), b.ref()));
  });
}

// tensors: input, weight, bias (optional)
val linear_js(const TensorArgs<3>& t) {
  return guarded([&] {
    const auto x = float_arg(t, 0, "linear: input");
    const auto w = float_arg(t, 1, "linear: weight");
    const OptionalHeapTensor b(t, 2, "linear: bias");
    return tensor_to_js(aw::linear(x.ref(), w.ref(), b.ptr()));
  });
}

// tensors: input
val softmax_js(const TensorArgs<1>& t, double dim) {
  return guarded([&] {
    if (!(std::abs(dim) <= 9007199254740992.0 && std::floor(dim) == dim))
      fail(ErrorKind::Range, "softmax: dim " + std::to_string(dim) + " is not an integer in (-2^53, 2^53)");
    const auto x = float_arg(t, 0, "softmax: input");
    return tensor_to_js(aw::softmax(x.ref(), static_cast<std::int64_t>(dim)));
  });
}

// tensors: input (Int32Array ids), weight
val embedding_js(const TensorArgs<2>& t) {
  return guarded([&] {
    const HeapIds ids = ids_from_js(t[0], t[1], "embedding: input");
    const auto w = float_arg(t, 1, "embedding: weight");
    return tensor_to_js(aw::embedding(ids.data.data(), ids.shape, w.ref()));
  });
}

// Self-attention often passes one tensor as key and value (or as all three): tensor i is copied
// once, and a later one with the same data and shape shares the copy.
struct SdpaInputs {
  HeapTensor copies[3];
  const HeapTensor* qkv[3] = {};
  SdpaInputs(const TensorArgs<4>& t, const std::string& fn) {
    const char* names[] = {": query", ": key", ": value"};
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t j = 0; j < i && !qkv[i]; ++j)
        if (t[2 * i].strictlyEquals(t[2 * j]) &&
            (t[2 * i + 1].strictlyEquals(t[2 * j + 1]) || shape_from_js(t[2 * i + 1], fn) == qkv[j]->shape))
          qkv[i] = qkv[j];
      if (!qkv[i]) qkv[i] = &(copies[i] = float_arg(t, i, fn + names[i]));
    }
  }
};

// tensors: query, key, value, attn_mask (optional; Uint8Array data: boolean, Float32Array: added);
// scale: NaN for the default. Plain arguments: on this hot path each property read of a JS
// object would be one more call into JS.
val sdpa_js(const TensorArgs<4>& t, bool is_causal, double scale, bool enable_gqa, bool return_weights,
            bool return_intermediates) {
  return guarded([&] {
    const std::string fn = api_name("scaled_dot_product_attention");
    const SdpaInputs in(t, fn);
    const OptionalHeapMask mask(t, 3, fn + ": " + api_name("attn_mask"));
    SdpaOptions opt;
    opt.float_mask = mask.float_ptr();
    opt.bool_mask = mask.bool_ptr();
    opt.is_causal = is_causal;
    if (!std::isnan(scale)) opt.scale = scale;
    opt.enable_gqa = enable_gqa;
    opt.return_weights = return_weights;
    opt.return_intermediates = return_intermediates;
    const SdpaResult r = aw::scaled_dot_product_attention(in.qkv[0]->ref(), in.qkv[1]->ref(), in.qkv[2]->ref(), opt);
    val out = val::object();
    out.set("output", tensor_to_js(r.output));
    if (return_weights || return_intermediates) out.set("weights", tensor_to_js(r.weights));
    if (return_intermediates) {
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
