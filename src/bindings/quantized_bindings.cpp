// Embind names for int8 weights and the int8 linear op (glue only: the idiomatic API is
// src/js/quantized.js).
//
// A quantized weight lives in this module's heap, packed for the kernel, in a registry under an
// integer handle (no Embind class lifetimes for JS to leak): _quantize makes one from a float32
// weight, _quantizedLinear runs the op with it, _quantizedDequantize gives its float32 values
// back, _quantizedDispose frees it.
#include <emscripten/bind.h>

#include <cmath>
#include <map>
#include <sstream>

#include "bindings/quantized_bindings.hpp"

#include "bindings/js_interop.hpp"
#include "ops/quantized_linear.hpp"

namespace aw::js {
namespace {

std::map<int, QuantizedLinearWeight>& registry() {
  static std::map<int, QuantizedLinearWeight> weights;
  return weights;
}

const QuantizedLinearWeight& find_weight(double handle, const std::string& where) {
  const auto& weights = registry();
  const auto it = std::isfinite(handle) ? weights.find(static_cast<int>(handle)) : weights.end();
  if (it == weights.end() || it->first != handle) {
    std::ostringstream h;
    h << handle;
    fail(ErrorKind::Shape, where + ": no quantized weight with handle " + h.str() + " in this module (disposed?)");
  }
  return it->second;
}

val shape_to_js(const Shape& shape) {
  val dims = val::array();
  for (std::int64_t d : shape) dims.call<void>("push", static_cast<double>(d));
  return dims;
}

// tensors: weight -> {handle, shape, residentBytes}
val quantize_js(const TensorArgs<1>& t) {
  return guarded([&] {
    const auto w = float_arg(t, 0, "quantize: weight");
    static int next_handle = 1;
    const int handle = next_handle++;
    registry().emplace(handle, quantize_linear_weight(w.ref()));
    const QuantizedLinearWeight& q = registry().at(handle);
    val out = val::object();
    out.set("handle", handle);
    out.set("shape", shape_to_js(q.shape()));
    out.set("residentBytes", static_cast<double>(q.resident_bytes()));
    return out;
  });
}

val quantized_dispose_js(double handle) {
  return guarded([&] {
    if (std::isfinite(handle)) registry().erase(static_cast<int>(handle));
    return val::undefined();
  });
}

val quantized_dequantize_js(double handle) {
  return guarded([&] { return tensor_to_js(dequantize(find_weight(handle, "dequantize"))); });
}

// tensors: input, bias (optional); weight: a handle
val quantized_linear_js(const TensorArgs<2>& t, double handle) {
  return guarded([&] {
    const QuantizedLinearWeight& w = find_weight(handle, "linear: weight");
    const auto x = float_arg(t, 0, "linear: input");
    const OptionalHeapTensor b(t, 1, "linear: bias");
    return tensor_to_js(quantized_linear(x.ref(), w, b.ptr()));
  });
}

}  // namespace

const QuantizedLinearWeight* quantized_weight(double handle, const std::string& where) {
  return std::isnan(handle) ? nullptr : &find_weight(handle, where);
}

}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_quantized) {
  using namespace emscripten;
  function("_quantize", &aw::js::quantize_js);
  function("_quantizedDispose", &aw::js::quantized_dispose_js);
  function("_quantizedDequantize", &aw::js::quantized_dequantize_js);
  function("_quantizedLinear", &aw::js::quantized_linear_js);
}
