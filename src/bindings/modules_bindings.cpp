// Embind glue for the nn modules (MultiheadAttention, TransformerEncoderLayer). Glue only: the
// classes live in src/js/modules.js, which holds the parameters and checks argument types.
// Tensors come as one TensorArgs array (bindings/js_interop.hpp), in the order each comment gives.
#include <emscripten/bind.h>

#include <cmath>

#include "bindings/js_interop.hpp"
#include "bindings/quantized_bindings.hpp"
#include "ops/multihead_attention.hpp"
#include "ops/transformer_encoder_layer.hpp"

namespace aw::js {
namespace {

// The handle of the int8 weight given for parameter i (NaN for none), from the Float64Array
// `q8` that comes beside the tensors: one number per parameter, in the tensors' order.
const QuantizedLinearWeight* q8_param(const val& q8, std::size_t i, const std::string& where) {
  const val handle = q8[i];
  return quantized_weight(handle.isNumber() ? handle.as<double>() : NAN, where);
}

// The seven MultiheadAttention parameters, tensors first .. first + 6 of t: in_proj_weight,
// q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias
// (each optional here; the op says which it needs), copied into the heap; out_proj.weight may be
// int8 instead (handle q8[q8_first + 5]).
struct HeapMhaParams {
  OptionalHeapTensor in_w, q_w, k_w, v_w, in_b, out_w, out_b;
  const QuantizedLinearWeight* out_w_q8;
  template <std::size_t N>
  HeapMhaParams(const TensorArgs<N>& t, std::size_t first, const val& q8, std::size_t q8_first,
                const std::string& prefix)
      : in_w(t, first, prefix + "in_proj_weight"),
        q_w(t, first + 1, prefix + "q_proj_weight"),
        k_w(t, first + 2, prefix + "k_proj_weight"),
        v_w(t, first + 3, prefix + "v_proj_weight"),
        in_b(t, first + 4, prefix + "in_proj_bias"),
        out_w(t, first + 5, prefix + "out_proj.weight"),
        out_b(t, first + 6, prefix + "out_proj.bias"),
        out_w_q8(q8_param(q8, q8_first + 5, prefix + "out_proj.weight")) {}
  MhaParams refs() const {
    return {in_w.ptr(), q_w.ptr(), k_w.ptr(), v_w.ptr(), in_b.ptr(), out_w.ptr(), out_b.ptr(), out_w_q8};
  }
};

// The two masks (tensors i, i + 1: key_padding_mask, attn_mask) and the options of the attention.
struct HeapMhaMasks {
  OptionalHeapMask kpm, am;
  template <std::size_t N>
  HeapMhaMasks(const TensorArgs<N>& t, std::size_t i, const std::string& kpm_where, const std::string& am_where)
      : kpm(t, i, kpm_where), am(t, i + 1, am_where) {}
  MhaOptions options(double num_heads, bool batch_first, bool is_causal) const {
    MhaOptions o;
    o.num_heads =
        num_heads >= 1 && num_heads <= static_cast<double>(kMaxElements) ? static_cast<std::int64_t>(num_heads) : 0;
    o.batch_first = batch_first;
    o.key_padding_mask_float = kpm.float_ptr();
    o.key_padding_mask_bool = kpm.bool_ptr();
    o.attn_mask_float = am.float_ptr();
    o.attn_mask_bool = am.bool_ptr();
    o.is_causal = is_causal;
    return o;
  }
};

// tensors: query, key, value, the seven parameters (HeapMhaParams), key_padding_mask, attn_mask;
// q8: the parameters' int8 handles (NaN: none)
val mha_forward_js(const TensorArgs<12>& t, val q8, double num_heads, bool batch_first, bool is_causal,
                   bool need_weights, bool average_attn_weights) {
  return guarded([&] {
    const std::string fn = "MultiheadAttention.forward: ";
    const auto q = float_arg(t, 0, fn + "query");
    const auto k = float_arg(t, 1, fn + "key");
    const auto v = float_arg(t, 2, fn + "value");
    const HeapMhaParams p(t, 3, q8, 0, fn);
    const HeapMhaMasks masks(t, 10, fn + api_name("key_padding_mask"), fn + api_name("attn_mask"));
    MhaOptions o = masks.options(num_heads, batch_first, is_causal);
    o.need_weights = need_weights;
    o.average_attn_weights = average_attn_weights;
    const MhaResult r = aw::multihead_attention(q.ref(), k.ref(), v.ref(), p.refs(), o);
    val out = val::object();
    out.set("output", tensor_to_js(r.output));
    out.set("weights", need_weights ? tensor_to_js(r.weights) : val::null());
    return out;
  });
}

// tensors: src, the seven self_attn parameters (HeapMhaParams), linear1.weight, linear1.bias,
// linear2.weight, linear2.bias, norm1.weight, norm1.bias, norm2.weight, norm2.bias,
// src_key_padding_mask, src_mask; q8: the parameters' int8 handles (NaN: none); activation:
// "relu" | "gelu"
val encoder_layer_forward_js(const TensorArgs<18>& t, val q8, double num_heads, bool batch_first, bool is_causal,
                             bool norm_first, std::string activation, double eps) {
  return guarded([&] {
    const std::string fn = "TransformerEncoderLayer.forward: ";
    const auto x = float_arg(t, 0, fn + "src");
    const HeapMhaParams sa(t, 1, q8, 0, fn + "self_attn.");
    const char* names[] = {"linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
                           "norm1.weight",   "norm1.bias",   "norm2.weight",   "norm2.bias"};
    std::vector<OptionalHeapTensor> ff;
    for (std::size_t i = 0; i < 8; ++i) ff.emplace_back(t, 8 + i, fn + names[i]);
    const HeapMhaMasks masks(t, 16, fn + api_name("src_key_padding_mask"), fn + api_name("src_mask"));
    EncoderLayerParams p{sa.refs(),   ff[0].ptr(), ff[1].ptr(), ff[2].ptr(), ff[3].ptr(),
                         ff[4].ptr(), ff[5].ptr(), ff[6].ptr(), ff[7].ptr()};
    p.linear1_weight_q8 = q8_param(q8, 7, fn + "linear1.weight");
    p.linear2_weight_q8 = q8_param(q8, 9, fn + "linear2.weight");
    EncoderLayerOptions o;
    o.attn = masks.options(num_heads, batch_first, is_causal);
    o.norm_first = norm_first;
    if (activation != "relu" && activation != "gelu")  // the layer's constructor has refused any other
      fail(ErrorKind::Range, fn + "activation must be 'relu' or 'gelu', got '" + activation + "'");
    o.activation = activation == "gelu" ? Activation::Gelu : Activation::Relu;
    o.eps = static_cast<float>(eps);
    return tensor_to_js(aw::transformer_encoder_layer(x.ref(), p, o));
  });
}

}  // namespace
}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_modules) {
  emscripten::function("_multiheadAttentionForward", &aw::js::mha_forward_js);
  emscripten::function("_transformerEncoderLayerForward", &aw::js::encoder_layer_forward_js);
}
