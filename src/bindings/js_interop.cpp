#include "bindings/js_interop.hpp"

#include <new>

namespace aw::js {

using emscripten::typed_memory_view;

Shape shape_from_js(const val& shape) {
  const auto dims = emscripten::convertJSArrayToNumberVector<double>(shape);
  Shape s(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i) {
    // The JS wrapper has checked these; a double outside int64 would make the cast undefined
    // (a trap in wasm), so check again rather than trust it.
    if (!(dims[i] >= 0 && dims[i] <= static_cast<double>(kMaxElements)))
      fail(ErrorKind::Range, "shape: dimension " + std::to_string(dims[i]) + " is out of range [0, 2^29]");
    s[i] = static_cast<std::int64_t>(dims[i]);
  }
  return s;
}

namespace {

// Copies `data` (a typed array of numel(shape) elements, checked by the JS wrapper) into a fresh
// heap vector (not zeroed first: the copy writes all of it); `what` names it in the out-of-memory
// message.
template <class Vector>
Vector copy_from_js(const val& js_data, const val& js_shape, const std::string& where, const char* what,
                    Shape& shape) {
  shape = shape_from_js(js_shape);
  const std::size_t n = checked_numel(shape, where);
  Vector data;
  try {
    data.resize(n);
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::Range, where + ": out of memory copying " + what + " of shape " + shape_str(shape));
  }
  // The view is made after the allocation: growing memory detaches older views.
  if (n) val(typed_memory_view(n, data.data())).call<void>("set", js_data);
  return data;
}

}  // namespace

HeapTensor float_tensor_from_js(const val& data, const val& shape, const std::string& where) {
  HeapTensor t;
  t.data = copy_from_js<AlignedVector<float>>(data, shape, where, "a tensor", t.shape);
  return t;
}

HeapTensor float_tensor_from_js(const val& tensor, const std::string& where) {
  return float_tensor_from_js(tensor["data"], tensor["shape"], where);
}

HeapBoolTensor bool_tensor_from_js(const val& data, const val& shape, const std::string& where) {
  HeapBoolTensor t;
  t.data = copy_from_js<AlignedVector<std::uint8_t>>(data, shape, where, "a mask", t.shape);
  return t;
}

std::vector<std::int32_t> int_tensor_from_js(const val& tensor, const std::string& where, Shape& shape) {
  return copy_from_js<std::vector<std::int32_t>>(tensor["data"], tensor["shape"], where, "a tensor", shape);
}

val tensor_to_js(const Tensor& t) {
  // The constructor, looked up once (bindings run on the main thread only).
  static const val float32_array = val::global("Float32Array");
  val out = val::object();
  // new Float32Array(view) copies: the result never aliases the wasm heap.
  out.set("data", float32_array.new_(typed_memory_view(t.data.size(), t.data.data())));
  val shape = val::array();
  for (std::size_t i = 0; i < t.shape.size(); ++i) shape.set(i, static_cast<double>(t.shape[i]));
  out.set("shape", shape);
  return out;
}

}  // namespace aw::js
