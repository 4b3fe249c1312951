// Glue between Embind values and the C++ API. The JS wrapper (src/js/) has already checked the
// types (Float32Array / Uint8Array data, integer shapes whose product is data.length); this
// layer copies data into the wasm heap, calls the C++ API, copies results out into JS-owned
// arrays, and turns C++ errors into a {error, kind} object that the wrapper throws. Nothing
// here throws into JS: a JS exception crossing C++ frames would skip destructors and leak.
#pragma once
#include <emscripten/val.h>

#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/tensor.hpp"

namespace aw::js {

using emscripten::val;

// An input tensor copied into the heap.
struct HeapTensor {
  AlignedVector<float> data;
  Shape shape;
  TensorRef ref() const { return TensorRef{data.data(), shape}; }
};
struct HeapBoolTensor {
  AlignedVector<std::uint8_t> data;
  Shape shape;
  BoolTensorRef ref() const { return BoolTensorRef{data.data(), shape}; }
};

// An optional argument: neither undefined nor null.
inline bool is_set(const val& v) { return !v.isUndefined() && !v.isNull(); }

Shape shape_from_js(const val& shape);
HeapTensor float_tensor_from_js(const val& tensor, const std::string& where);
// The same from the tensor's two fields, for bindings on the hot path: each property read of a
// tensor object is one more call into JS.
HeapTensor float_tensor_from_js(const val& data, const val& shape, const std::string& where);
HeapBoolTensor bool_tensor_from_js(const val& data, const val& shape, const std::string& where);
// {data: Int32Array, shape} -> ids; `shape` receives the shape.
std::vector<std::int32_t> int_tensor_from_js(const val& tensor, const std::string& where, Shape& shape);
val tensor_to_js(const Tensor& t);  // {data: Float32Array (a copy), shape: number[]}

// An optional float tensor argument copied into the heap: ptr() is nullptr when it is unset.
struct OptionalHeapTensor {
  std::optional<HeapTensor> heap;
  TensorRef ref;
  OptionalHeapTensor() = default;
  // From a tensor object, or from its data and shape (data unset: no tensor).
  OptionalHeapTensor(const val& v, const std::string& where)
      : OptionalHeapTensor(field(v, "data"), field(v, "shape"), where) {}
  OptionalHeapTensor(const val& data, const val& shape, const std::string& where) {
    if (!is_set(data)) return;
    heap = float_tensor_from_js(data, shape, where);
    ref = heap->ref();
  }
  const TensorRef* ptr() const { return heap ? &ref : nullptr; }
  // v[name], or undefined when v itself is unset
  static val field(const val& v, const char* name) { return is_set(v) ? v[name] : val::undefined(); }
};

// An optional mask copied into the heap, float (as_float.ptr()) or boolean (bool_ptr()) as
// `is_bool` says; both nullptr when it is unset. From a tensor object, or from its data and shape.
struct OptionalHeapMask {
  OptionalHeapTensor as_float;
  std::optional<HeapBoolTensor> heap_bool;
  BoolTensorRef bool_ref;
  OptionalHeapMask(const val& v, bool is_bool, const std::string& where)
      : OptionalHeapMask(OptionalHeapTensor::field(v, "data"), OptionalHeapTensor::field(v, "shape"), is_bool,
                         where) {}
  OptionalHeapMask(const val& data, const val& shape, bool is_bool, const std::string& where)
      : as_float(is_bool ? val::undefined() : data, shape, where) {
    if (!is_set(data) || !is_bool) return;
    heap_bool = bool_tensor_from_js(data, shape, where);
    bool_ref = heap_bool->ref();
  }
  const BoolTensorRef* bool_ptr() const { return heap_bool ? &bool_ref : nullptr; }
};

// Runs f() and returns its value, or {error, kind} if it threw.
template <class F>
val guarded(F&& f) {
  std::string message;
  const char* kind = "Error";
  try {
    return f();
  } catch (const Error& e) {
    message = e.what();
    kind = e.kind() == ErrorKind::Type ? "TypeError" : e.kind() == ErrorKind::Range ? "RangeError" : "Error";
  } catch (const std::bad_alloc&) {
    message = "out of memory";
    kind = "RangeError";
  } catch (const std::exception& e) {
    message = e.what();
  }
  val err = val::object();
  err.set("error", message);
  err.set("kind", std::string(kind));
  return err;
}

}  // namespace aw::js
