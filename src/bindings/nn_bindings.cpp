// Embind names for the layers around attention: positional encoding, layer norm, activations,
// elementwise arithmetic. Glue only: the idiomatic API is the JS wrapper in src/js/nn.js.
#include <emscripten/bind.h>

#include "bindings/js_interop.hpp"
#include "ops/activation.hpp"
#include "ops/elementwise.hpp"
#include "ops/layer_norm.hpp"
#include "ops/positional_encoding.hpp"

namespace aw::js {
namespace {

val positional_encoding_js(double max_length, double d_model) {
  return guarded([&] {
    return tensor_to_js(aw::positional_encoding(static_cast<std::int64_t>(max_length), static_cast<std::int64_t>(d_model)));
  });
}

// weight, bias: {data, shape} or null
val layer_norm_js(val input, val normalized_shape, val weight, val bias, double eps) {
  return guarded([&] {
    const auto x = float_tensor_from_js(input, "layer_norm: input");
    const Shape shape = shape_from_js(normalized_shape);
    const OptionalHeapTensor w(weight, "layer_norm: weight"), b(bias, "layer_norm: bias");
    return tensor_to_js(aw::layer_norm(x.ref(), shape, w.ptr(), b.ptr(), eps));
  });
}

val relu_js(val input) {
  return guarded([&] { return tensor_to_js(aw::relu(float_tensor_from_js(input, "relu: input").ref())); });
}

val gelu_js(val input, std::string approximate) {
  return guarded([&] { return tensor_to_js(aw::gelu(float_tensor_from_js(input, "gelu: input").ref(), approximate)); });
}

val add_js(val input, val other) {
  return guarded([&] {
    const auto a = float_tensor_from_js(input, "add: input");
    const auto b = float_tensor_from_js(other, "add: other");
    return tensor_to_js(aw::add(a.ref(), b.ref()));
  });
}

val mul_js(val input, val other) {
  return guarded([&] {
    const auto a = float_tensor_from_js(input, "mul: input");
    const auto b = float_tensor_from_js(other, "mul: other");
    return tensor_to_js(aw::mul(a.ref(), b.ref()));
  });
}

}  // namespace
}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_nn) {
  using namespace emscripten;
  function("_positionalEncoding", &aw::js::positional_encoding_js);
  function("_layerNorm", &aw::js::layer_norm_js);
  function("_relu", &aw::js::relu_js);
  function("_gelu", &aw::js::gelu_js);
  function("_add", &aw::js::add_js);
  function("_mul", &aw::js::mul_js);
}
