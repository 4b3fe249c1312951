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

HeapTensor float_tensor_from_js(const val& tensor, const std::string& where) {
  HeapTensor t;
  t.shape = shape_from_js(tensor["shape"]);
  const std::size_t n = checked_numel(t.shape, where);
  try {
    t.data.resize(n);
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::Range, where + ": out of memory copying a tensor of shape " + shape_str(t.shape));
  }
  // The view is made after the allocation: growing memory detaches older views.
  if (n) val(typed_memory_view(n, t.data.data())).call<void>("set", tensor["data"]);
  return t;
}

HeapBoolTensor bool_tensor_from_js(const val& tensor, const std::string& where) {
  HeapBoolTensor t;
  t.shape = shape_from_js(tensor["shape"]);
  const std::size_t n = checked_numel(t.shape, where);
  try {
    t.data.resize(n);
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::Range, where + ": out of memory copying a mask of shape " + shape_str(t.shape));
  }
  if (n) val(typed_memory_view(n, t.data.data())).call<void>("set", tensor["data"]);
  return t;
}

val tensor_to_js(const Tensor& t) {
  val out = val::object();
  // new Float32Array(view) copies: the result never aliases the wasm heap.
  out.set("data", val::global("Float32Array").new_(typed_memory_view(t.data.size(), t.data.data())));
  val shape = val::array();
  for (std::size_t i = 0; i < t.shape.size(); ++i) shape.set(i, static_cast<double>(t.shape[i]));
  out.set("shape", shape);
  return out;
}

}  // namespace aw::js
