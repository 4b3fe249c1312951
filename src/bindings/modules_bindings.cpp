// Embind glue for the nn modules (MultiheadAttention). Glue only: the classes live in
// src/js/modules.js, which holds the parameters and checks argument types.
#include <emscripten/bind.h>

#include <optional>

#include "bindings/js_interop.hpp"
#include "ops/multihead_attention.hpp"

namespace aw::js {
namespace {

bool is_set(const val& v) { return !v.isUndefined() && !v.isNull(); }

// A float parameter copied into the heap, or none.
struct OptionalHeapTensor {
  std::optional<HeapTensor> heap;
  TensorRef ref;
  OptionalHeapTensor(const val& v, const std::string& where) {
    if (!is_set(v)) return;
    heap = float_tensor_from_js(v, where);
    ref = heap->ref();
  }
  const TensorRef* ptr() const { return heap ? &ref : nullptr; }
};

// A mask (float: added; bool: true = ignore) copied into the heap, or none.
struct OptionalHeapMask {
  OptionalHeapTensor as_float;
  std::optional<HeapBoolTensor> heap_bool;
  BoolTensorRef bool_ref;
  OptionalHeapMask(const val& v, bool is_bool, const std::string& where)
      : as_float(is_bool ? val::undefined() : v, where) {
    if (!is_set(v) || !is_bool) return;
    heap_bool = bool_tensor_from_js(v, where);
    bool_ref = heap_bool->ref();
  }
  const BoolTensorRef* bool_ptr() const { return heap_bool ? &bool_ref : nullptr; }
};

// params: {inProjWeight?, qProjWeight?, kProjWeight?, vProjWeight?, inProjBias?, outProjWeight,
//          outProjBias?}
// options: {numHeads, batchFirst, keyPaddingMask?, kpmIsBool, attnMask?, amIsBool, isCausal,
//           needWeights, averageAttnWeights}
val mha_forward_js(val query, val key, val value, val params, val options) {
  return guarded([&] {
    const std::string fn = "MultiheadAttention.forward: ";
    const auto q = float_tensor_from_js(query, fn + "query");
    const auto k = float_tensor_from_js(key, fn + "key");
    const auto v = float_tensor_from_js(value, fn + "value");
    const OptionalHeapTensor in_w(params["inProjWeight"], fn + "in_proj_weight"),
        q_w(params["qProjWeight"], fn + "q_proj_weight"), k_w(params["kProjWeight"], fn + "k_proj_weight"),
        v_w(params["vProjWeight"], fn + "v_proj_weight"), in_b(params["inProjBias"], fn + "in_proj_bias"),
        out_w(params["outProjWeight"], fn + "out_proj.weight"), out_b(params["outProjBias"], fn + "out_proj.bias");
    MhaParams p;
    p.in_proj_weight = in_w.ptr();
    p.q_proj_weight = q_w.ptr();
    p.k_proj_weight = k_w.ptr();
    p.v_proj_weight = v_w.ptr();
    p.in_proj_bias = in_b.ptr();
    p.out_proj_weight = out_w.ptr();
    p.out_proj_bias = out_b.ptr();
    const OptionalHeapMask kpm(options["keyPaddingMask"], options["kpmIsBool"].as<bool>(), fn + "key_padding_mask");
    const OptionalHeapMask am(options["attnMask"], options["amIsBool"].as<bool>(), fn + "attn_mask");
    MhaOptions o;
    o.num_heads = static_cast<std::int64_t>(options["numHeads"].as<double>());
    o.batch_first = options["batchFirst"].as<bool>();
    o.key_padding_mask_float = kpm.as_float.ptr();
    o.key_padding_mask_bool = kpm.bool_ptr();
    o.attn_mask_float = am.as_float.ptr();
    o.attn_mask_bool = am.bool_ptr();
    o.is_causal = options["isCausal"].as<bool>();
    o.need_weights = options["needWeights"].as<bool>();
    o.average_attn_weights = options["averageAttnWeights"].as<bool>();
    const MhaResult r = aw::multihead_attention(q.ref(), k.ref(), v.ref(), p, o);
    val out = val::object();
    out.set("output", tensor_to_js(r.output));
    out.set("weights", o.need_weights ? tensor_to_js(r.weights) : val::null());
    return out;
  });
}

}  // namespace
}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_modules) {
  emscripten::function("_multiheadAttentionForward", &aw::js::mha_forward_js);
}
