// Embind names for the ops. Glue only: the idiomatic API is the JS wrapper in src/js/.
#include <emscripten/bind.h>

#include "bindings/js_interop.hpp"
#include "ops/attention.hpp"
#include "ops/embedding.hpp"
#include "ops/linalg.hpp"
#include "ops/random.hpp"
#include "ops/softmax.hpp"

namespace aw::js {
namespace {

bool present(const val& v) { return !v.isUndefined() && !v.isNull(); }

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
    if (!present(bias)) return tensor_to_js(aw::linear(x.ref(), w.ref(), nullptr));
    const auto b = float_tensor_from_js(bias, "linear: bias");
    const TensorRef bref = b.ref();
    return tensor_to_js(aw::linear(x.ref(), w.ref(), &bref));
  });
}

val softmax_js(val input, double dim) {
  return guarded([&] {
    const auto x = float_tensor_from_js(input, "softmax: input");
    return tensor_to_js(aw::softmax(x.ref(), static_cast<std::int64_t>(dim)));
  });
}

// ids: {data: Int32Array, shape}
val embedding_js(val ids, val weight) {
  return guarded([&] {
    const Shape ids_shape = shape_from_js(ids["shape"]);
    const std::size_t n = checked_numel(ids_shape, "embedding: input");
    std::vector<std::int32_t> id_data(n);
    if (n) val(emscripten::typed_memory_view(n, id_data.data())).call<void>("set", ids["data"]);
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
    SdpaOptions opt;
    HeapTensor float_mask;
    HeapBoolTensor bool_mask;
    TensorRef float_ref;
    BoolTensorRef bool_ref;
    const val mask = options["attnMask"];
    if (present(mask)) {
      if (options["maskIsBool"].as<bool>()) {
        bool_mask = bool_tensor_from_js(mask, fn + "attn_mask");
        bool_ref = bool_mask.ref();
        opt.bool_mask = &bool_ref;
      } else {
        float_mask = float_tensor_from_js(mask, fn + "attn_mask");
        float_ref = float_mask.ref();
        opt.float_mask = &float_ref;
      }
    }
    opt.is_causal = options["isCausal"].as<bool>();
    if (present(options["scale"])) opt.scale = options["scale"].as<double>();
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
}
