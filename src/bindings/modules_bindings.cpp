// Embind glue for the nn modules (MultiheadAttention, TransformerEncoderLayer). Glue only: the classes live in
// src/js/modules.js, which holds the parameters and checks argument types.
#include <emscripten/bind.h>

#include "bindings/js_interop.hpp"
#include "ops/multihead_attention.hpp"
#include "ops/transformer_encoder_layer.hpp"

namespace aw::js {
namespace {

// MultiheadAttention parameters from {inProjWeight?, qProjWeight?, kProjWeight?, vProjWeight?,
// inProjBias?, outProjWeight, outProjBias?}, copied into the heap.
struct HeapMhaParams {
  OptionalHeapTensor in_w, q_w, k_w, v_w, in_b, out_w, out_b;
  HeapMhaParams(const val& params, const std::string& fn)
      : in_w(params["inProjWeight"], fn + "in_proj_weight"), q_w(params["qProjWeight"], fn + "q_proj_weight"),
        k_w(params["kProjWeight"], fn + "k_proj_weight"), v_w(params["vProjWeight"], fn + "v_proj_weight"),
        in_b(params["inProjBias"], fn + "in_proj_bias"), out_w(params["outProjWeight"], fn + "out_proj.weight"),
        out_b(params["outProjBias"], fn + "out_proj.bias") {}
  MhaParams refs() const {
    MhaParams p;
    p.in_proj_weight = in_w.ptr();
    p.q_proj_weight = q_w.ptr();
    p.k_proj_weight = k_w.ptr();
    p.v_proj_weight = v_w.ptr();
    p.in_proj_bias = in_b.ptr();
    p.out_proj_weight = out_w.ptr();
    p.out_proj_bias = out_b.ptr();
    return p;
  }
};

// Attention options and masks from {numHeads, batchFirst, keyPaddingMask?, kpmIsBool, attnMask?,
// amIsBool, isCausal, needWeights, averageAttnWeights}.
struct HeapMhaOptions {
  OptionalHeapMask kpm, am;
  MhaOptions o;
  HeapMhaOptions(const val& options, const std::string& fn)
      : kpm(options["keyPaddingMask"], options["kpmIsBool"].as<bool>(), fn + "key_padding_mask"),
        am(options["attnMask"], options["amIsBool"].as<bool>(), fn + "attn_mask") {
    o.num_heads = static_cast<std::int64_t>(options["numHeads"].as<double>());
    o.batch_first = options["batchFirst"].as<bool>();
    o.key_padding_mask_float = kpm.as_float.ptr();
    o.key_padding_mask_bool = kpm.bool_ptr();
    o.attn_mask_float = am.as_float.ptr();
    o.attn_mask_bool = am.bool_ptr();
    o.is_causal = options["isCausal"].as<bool>();
    o.need_weights = options["needWeights"].as<bool>();
    o.average_attn_weights = options["averageAttnWeights"].as<bool>();
  }
};

val mha_forward_js(val query, val key, val value, val params, val options) {
  return guarded([&] {
    const std::string fn = "MultiheadAttention.forward: ";
    const auto q = float_tensor_from_js(query, fn + "query");
    const auto k = float_tensor_from_js(key, fn + "key");
    const auto v = float_tensor_from_js(value, fn + "value");
    const HeapMhaParams p(params, fn);
    const HeapMhaOptions o(options, fn);
    const MhaResult r = aw::multihead_attention(q.ref(), k.ref(), v.ref(), p.refs(), o.o);
    val out = val::object();
    out.set("output", tensor_to_js(r.output));
    out.set("weights", o.o.need_weights ? tensor_to_js(r.weights) : val::null());
    return out;
  });
}

// params: {selfAttn: <MHA params>, linear1Weight, linear1Bias?, linear2Weight, linear2Bias?,
//          norm1Weight?, norm1Bias?, norm2Weight?, norm2Bias?}
// options: <MHA options> + {normFirst, activation: 'relu' | 'gelu', eps}
val encoder_layer_forward_js(val src, val params, val options) {
  return guarded([&] {
    const std::string fn = "TransformerEncoderLayer.forward: ";
    const auto x = float_tensor_from_js(src, fn + "src");
    const HeapMhaParams sa(params["selfAttn"], fn + "self_attn.");
    const OptionalHeapTensor l1w(params["linear1Weight"], fn + "linear1.weight"),
        l1b(params["linear1Bias"], fn + "linear1.bias"), l2w(params["linear2Weight"], fn + "linear2.weight"),
        l2b(params["linear2Bias"], fn + "linear2.bias"), n1w(params["norm1Weight"], fn + "norm1.weight"),
        n1b(params["norm1Bias"], fn + "norm1.bias"), n2w(params["norm2Weight"], fn + "norm2.weight"),
        n2b(params["norm2Bias"], fn + "norm2.bias");
    EncoderLayerParams p;
    p.self_attn = sa.refs();
    p.linear1_weight = l1w.ptr();
    p.linear1_bias = l1b.ptr();
    p.linear2_weight = l2w.ptr();
    p.linear2_bias = l2b.ptr();
    p.norm1_weight = n1w.ptr();
    p.norm1_bias = n1b.ptr();
    p.norm2_weight = n2w.ptr();
    p.norm2_bias = n2b.ptr();
    const HeapMhaOptions attn(options, fn);
    EncoderLayerOptions o;
    o.attn = attn.o;
    o.norm_first = options["normFirst"].as<bool>();
    o.activation = options["activation"].as<std::string>() == "gelu" ? Activation::Gelu : Activation::Relu;
    o.eps = static_cast<float>(options["eps"].as<double>());
    return tensor_to_js(aw::transformer_encoder_layer(x.ref(), p, o));
  });
}

}  // namespace
}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_modules) {
  emscripten::function("_multiheadAttentionForward", &aw::js::mha_forward_js);
  emscripten::function("_transformerEncoderLayerForward", &aw::js::encoder_layer_forward_js);
}
