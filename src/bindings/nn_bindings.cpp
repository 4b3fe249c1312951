// Embind names for the layers around attention: positional encoding, layer norm, activations,
// elementwise arithmetic, cosine similarity. Glue only: the idiomatic API is the JS wrapper in src/js/nn.js. Tensors
// come as one TensorArgs array (bindings/js_interop.hpp), in the order each comment gives.
#include <emscripten/bind.h>

#include <cmath>

#include "bindings/js_interop.hpp"
#include "ops/activation.hpp"
#include "ops/cosine_similarity.hpp"
#include "ops/elementwise.hpp"
#include "ops/layer_norm.hpp"
#include "ops/positional_encoding.hpp"

namespace aw::js {
namespace {

val positional_encoding_js(double max_length, double d_model) {
  return guarded([&] {
    for (double size : {max_length, d_model})  // checked again: the cast below needs an integer in range
      if (!(size >= 0 && size <= 9007199254740992.0 && std::floor(size) == size))
        fail(ErrorKind::Range, api_name("positional_encoding") + ": " + api_name("max_length") + " and " +
                                   api_name("d_model") + " must be non-negative integers");
    return tensor_to_js(
        aw::positional_encoding(static_cast<std::int64_t>(max_length), static_cast<std::int64_t>(d_model)));
  });
}

// tensors: input, weight (optional), bias (optional); normalized_shape: Float64Array of dims
val layer_norm_js(const TensorArgs<3>& t, val normalized_shape, double eps) {
  return guarded([&] {
    const std::string fn = api_name("layer_norm");
    const auto x = float_arg(t, 0, fn + ": input");
    const Shape shape = shape_from_js(normalized_shape, fn + ": " + api_name("normalized_shape"));
    const OptionalHeapTensor w(t, 1, fn + ": weight"), b(t, 2, fn + ": bias");
    return tensor_to_js(aw::layer_norm(x.ref(), shape, w.ptr(), b.ptr(), eps));
  });
}

// tensors: input
val relu_js(const TensorArgs<1>& t) {
  return guarded([&] { return tensor_to_js(aw::relu(float_arg(t, 0, "relu: input").ref())); });
}

// tensors: input
val gelu_js(const TensorArgs<1>& t, std::string approximate) {
  return guarded([&] { return tensor_to_js(aw::gelu(float_arg(t, 0, "gelu: input").ref(), approximate)); });
}

// tensors: input, other
val add_js(const TensorArgs<2>& t) {
  return guarded([&] {
    const auto a = float_arg(t, 0, "add: input");
    const auto b = float_arg(t, 1, "add: other");
    return tensor_to_js(aw::add(a.ref(), b.ref()));
  });
}

// tensors: input, other
val mul_js(const TensorArgs<2>& t) {
  return guarded([&] {
    const auto a = float_arg(t, 0, "mul: input");
    const auto b = float_arg(t, 1, "mul: other");
    return tensor_to_js(aw::mul(a.ref(), b.ref()));
  });
}

// tensors: x1, x2; dim an integer (the JS wrapper checked it: a safe integer)
val cosine_similarity_js(const TensorArgs<2>& t, double dim, double eps) {
  return guarded([&] {
    const std::string fn = api_name("cosine_similarity");
    if (!(std::abs(dim) <= 9007199254740992.0 && std::floor(dim) == dim))
      fail(ErrorKind::Range, fn + ": dim " + std::to_string(dim) + " is not an integer in (-2^53, 2^53)");
    const auto x1 = float_arg(t, 0, fn + ": x1");
    const auto x2 = float_arg(t, 1, fn + ": x2");
    return tensor_to_js(aw::cosine_similarity(x1.ref(), x2.ref(), static_cast<std::int64_t>(dim), eps));
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
  function("_cosineSimilarity", &aw::js::cosine_similarity_js);
}
