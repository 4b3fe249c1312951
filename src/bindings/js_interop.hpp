// Glue between Embind values and the C++ API: what crosses the boundary, and how.
//
// A tensor crosses as two values, its data (a typed array) and its shape (a Float64Array of
// dims), which the JS wrapper reads once from the caller's object (src/js/validate.js). A call's
// tensors come together as one TensorArgs array (data0, shape0, data1, shape1, ...; null for an
// absent optional tensor), an Embind value_array: Embind's JS glue reads its elements before the
// C++ function runs, so no caller's getter or Proxy trap runs while C++ frames are on the stack.
//
// The binding trusts nothing the JS wrapper checked: a data value must be a genuine typed array
// of the kind expected (asked through %TypedArray%.prototype's own getters, which a Proxy or an
// own `length` property cannot fake), a shape's dims are checked again, and the data's length
// must equal the shape's element count before anything is copied (with
// %TypedArray%.prototype.set, which reads a typed array source through its internal slots).
//
// Results are copied out into JS-owned arrays; C++ errors become {error, kind} objects, their
// names spelled as the JS API spells them (set_api_names), which the wrapper throws.
#pragma once
#include <emscripten/val.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/tensor.hpp"

namespace aw::js {

using emscripten::val;

// The (data, shape) values of N tensors, in the order a binding documents.
template <std::size_t N>
struct TensorArgs {
  std::array<val, 2 * N> values = undefined_values(std::make_index_sequence<2 * N>());
  const val& operator[](std::size_t i) const { return values[i]; }

 private:
  template <std::size_t... I>
  static std::array<val, 2 * N> undefined_values(std::index_sequence<I...>) {
    return {((void)I, val::undefined())...};
  }
};

// An input tensor copied into the heap.
template <class T>
struct HeapArray {
  AlignedVector<T> data;
  Shape shape;
};
struct HeapTensor : HeapArray<float> {
  TensorRef ref() const { return TensorRef{data.data(), shape}; }
};
struct HeapBoolTensor : HeapArray<std::uint8_t> {
  BoolTensorRef ref() const { return BoolTensorRef{data.data(), shape}; }
};
using HeapIds = HeapArray<std::int32_t>;

// An optional argument: neither undefined nor null.
inline bool is_set(const val& v) { return !v.isUndefined() && !v.isNull(); }

// The dims of a shape given as a Float64Array, each an integer in [0, 2^29]; `where` names the
// argument in messages.
Shape shape_from_js(const val& dims, const std::string& where);

// Tensor i of `args`, checked and copied into the heap: Float32Array data, Uint8Array data, or
// Int32Array data (ids). `where` names it in messages ("matmul: input").
HeapTensor float_tensor_from_js(const val& data, const val& shape, const std::string& where);
HeapBoolTensor bool_tensor_from_js(const val& data, const val& shape, const std::string& where);
HeapIds ids_from_js(const val& data, const val& shape, const std::string& where);
// `count` elements of a typed array of T's kind (Float32Array, Int32Array, Uint8Array), checked
// and copied into the heap (the model bindings' ids and masks, a file's bytes).
template <class T>
HeapArray<T> typed_array_from_js(const val& data, std::size_t count, const std::string& where);
// The same for the whole array, whatever its length (at most 2^29).
template <class T>
HeapArray<T> typed_array_from_js(const val& data, const std::string& where);
template <std::size_t N>
HeapTensor float_arg(const TensorArgs<N>& args, std::size_t i, const std::string& where) {
  return float_tensor_from_js(args[2 * i], args[2 * i + 1], where);
}

// An optional float tensor: ptr() is nullptr when its data is null.
struct OptionalHeapTensor {
  std::optional<HeapTensor> heap;
  TensorRef ref;
  OptionalHeapTensor(const val& data, const val& shape, const std::string& where);
  template <std::size_t N>
  OptionalHeapTensor(const TensorArgs<N>& args, std::size_t i, const std::string& where)
      : OptionalHeapTensor(args[2 * i], args[2 * i + 1], where) {}
  const TensorRef* ptr() const { return heap ? &ref : nullptr; }
};

// An optional mask: boolean (Uint8Array data) or additive (Float32Array data), as its data is;
// float_ptr() and bool_ptr() are both nullptr when its data is null.
struct OptionalHeapMask {
  OptionalHeapTensor as_float;
  std::optional<HeapBoolTensor> heap_bool;
  BoolTensorRef bool_ref;
  OptionalHeapMask(const val& data, const val& shape, const std::string& where);
  template <std::size_t N>
  OptionalHeapMask(const TensorArgs<N>& args, std::size_t i, const std::string& where)
      : OptionalHeapMask(args[2 * i], args[2 * i + 1], where) {}
  const TensorRef* float_ptr() const { return as_float.ptr(); }
  const BoolTensorRef* bool_ptr() const { return heap_bool ? &bool_ref : nullptr; }
};

val tensor_to_js(const Tensor& t);  // {data: Float32Array (a copy), shape: number[]}

// The JS API's spelling of the names that messages mark (core/error.hpp api_name): pairs of
// (torch name, JS name), set once per module by the JS wrapper (src/js/names.js).
void set_api_names(std::vector<std::pair<std::string, std::string>> names);
// An error's message with every marked name spelled as the JS API spells it.
std::string js_message(const Error& e);

// Runs f() and returns its value, or {error, kind} if it threw.
template <class F>
val guarded(F&& f) {
  std::string message;
  const char* kind = "Error";
  try {
    return f();
  } catch (const Error& e) {
    message = js_message(e);
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
