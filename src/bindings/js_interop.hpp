// Glue between Embind values and the C++ API. The JS wrapper (src/js/) has already checked the
// types (Float32Array / Uint8Array data, integer shapes whose product is data.length); this
// layer copies data into the wasm heap, calls the C++ API, copies results out into JS-owned
// arrays, and turns C++ errors into a {error, kind} object that the wrapper throws. Nothing
// here throws into JS: a JS exception crossing C++ frames would skip destructors and leak.
#pragma once
#include <emscripten/val.h>

#include <string>

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
  std::vector<std::uint8_t> data;
  Shape shape;
  BoolTensorRef ref() const { return BoolTensorRef{data.data(), shape}; }
};

Shape shape_from_js(const val& shape);
HeapTensor float_tensor_from_js(const val& tensor, const std::string& where);
HeapBoolTensor bool_tensor_from_js(const val& tensor, const std::string& where);
val tensor_to_js(const Tensor& t);  // {data: Float32Array (a copy), shape: number[]}

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
