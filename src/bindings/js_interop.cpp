#include "bindings/js_interop.hpp"

#include <emscripten.h>
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <new>
#include <type_traits>
#include <utility>

// Typed arrays are asked through %TypedArray%.prototype's @@toStringTag getter, length getter and
// set method, looked up once per module instance (on the first call, in the module's JS glue):
// what they report comes from a typed array's internal slots, never from a property a caller
// could define or a Proxy trap; the tag getter returns undefined for anything that is not a
// typed array (a Proxy of one included). One call from C++ each, neither able to throw.
// Looks the intrinsics up (once per module instance: see typed_array_length).
// The EM_JS bodies are JavaScript, which clang-format would break (=== into == =).
// clang-format off
EM_JS(void, aw_typed_array_intrinsics, (), {
  var prototype = Object.getPrototypeOf(Uint8Array.prototype);
  var method = function(f) { return Function.prototype.call.bind(f); };
  var getter = function(key) { return method(Object.getOwnPropertyDescriptor(prototype, key).get); };
  aw_typed_array_intrinsics.t = {
    tag: getter(Symbol.toStringTag), length: getter('length'), set: method(prototype.set),
    kinds: ['Float32Array', 'Float64Array', 'Int32Array', 'Uint8Array', 'Int8Array', 'Uint8ClampedArray', 'Int16Array',
            'Uint16Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array'],
    types: [Float32Array, Float64Array, Int32Array, Uint8Array]
  };
});

// The index of value's kind in `kinds`, or -1 if it is not a typed array.
EM_JS(int, aw_typed_array_kind, (emscripten::EM_VAL value), {
  var t = aw_typed_array_intrinsics.t;
  return t.kinds.indexOf(t.tag(Emval.toValue(value)));
});

// value's element count if it is a typed array of this kind, else -1.
EM_JS(double, aw_typed_array_length, (emscripten::EM_VAL value, int kind), {
  var t = aw_typed_array_intrinsics.t;
  var v = Emval.toValue(value);
  return t.tag(v) === t.kinds[kind] ? t.length(v) : -1;
});

// to[0 : count] = value, a typed array of this kind and count elements. (`to >>> 0`: a pointer
// arrives as a signed 32-bit number, negative past 2 GiB.)
EM_JS(void, aw_copy_typed_array, (emscripten::EM_VAL value, int kind, void* to, double count), {
  var t = aw_typed_array_intrinsics.t;
  t.set(new t.types[kind](wasmMemory.buffer, to >>> 0, count), Emval.toValue(value));
});
// clang-format on

namespace aw::js {

using emscripten::typed_memory_view;

namespace {

enum class Kind : int { Float32, Float64, Int32, Uint8 };  // indices into the intrinsics' kinds

// "Float32Array" .., or a description of what else value is.
std::string kind_name(const val& value) {
  static const char* names[] = {"Float32Array", "Float64Array",      "Int32Array",    "Uint8Array",
                                "Int8Array",    "Uint8ClampedArray", "Int16Array",    "Uint16Array",
                                "Uint32Array",  "BigInt64Array",     "BigUint64Array"};
  const int kind = aw_typed_array_kind(value.as_handle());
  return kind < 0 ? "a value that is not a typed array" : names[kind];
}

// value's length if it is a typed array of this kind, else -1. The first call of a module
// instance looks the intrinsics up.
double typed_array_length(const val& value, Kind kind) {
  static const bool looked_up = (aw_typed_array_intrinsics(), true);
  (void)looked_up;
  return aw_typed_array_length(value.as_handle(), static_cast<int>(kind));
}

template <class T>
constexpr const char* kind_name_of() {
  if constexpr (std::is_same_v<T, float>) return "Float32Array";
  if constexpr (std::is_same_v<T, std::int32_t>) return "Int32Array";
  return "Uint8Array";
}

template <class T>
constexpr Kind kind_of() {
  if constexpr (std::is_same_v<T, float>) return Kind::Float32;
  if constexpr (std::is_same_v<T, double>) return Kind::Float64;
  if constexpr (std::is_same_v<T, std::int32_t>) return Kind::Int32;
  return Kind::Uint8;
}

// The typed array `data` (of kind `kind`, as `what`) copied into a heap array of shape `shape`:
// its length must be the shape's element count.
template <class T>
HeapArray<T> copy_typed_array(const val& data, Shape shape, const char* what, const std::string& where) {
  const double length = typed_array_length(data, kind_of<T>());
  if (length < 0) fail(ErrorKind::Type, where + " must have " + kind_name_of<T>() + " data, got " + kind_name(data));
  const std::size_t n = checked_numel(shape, where);
  if (length != static_cast<double>(n))
    fail(ErrorKind::Range, where + " has shape " + shape_str(shape) + " (" + std::to_string(n) +
                               " elements) but its data has " + std::to_string(static_cast<std::uint64_t>(length)));
  HeapArray<T> out;
  try {
    out.data.resize(n);  // not zeroed: the copy writes all of it
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::Range, where + ": out of memory copying " + what + " of shape " + shape_str(shape));
  }
  out.shape = std::move(shape);
  if (n) aw_copy_typed_array(data.as_handle(), static_cast<int>(kind_of<T>()), out.data.data(), static_cast<double>(n));
  return out;
}

std::map<std::string, std::string>& api_names() {
  static std::map<std::string, std::string> names;  // torch's -> the JS API's
  return names;
}

// Dims as doubles, each checked to be an integer in [0, 2^29] (whatever the JS wrapper checked:
// a double outside int64 would make the cast undefined, a trap in wasm).
Shape checked_dims(const std::vector<double>& d, const std::string& where) {
  Shape s(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (!(d[i] >= 0 && d[i] <= static_cast<double>(kMaxElements) && std::floor(d[i]) == d[i]))
      fail(ErrorKind::Range, where + ": dimension " + std::to_string(d[i]) + " is not an integer in [0, 2^29]");
    s[i] = static_cast<std::int64_t>(d[i]);
  }
  return s;
}

}  // namespace

Shape shape_from_js(const val& dims, const std::string& where) {
  const double rank = typed_array_length(dims, Kind::Float64);
  if (rank < 0)
    fail(ErrorKind::Type, where + ": shape must be given as a Float64Array of dims, got " + kind_name(dims));
  if (rank > 64) fail(ErrorKind::Range, where + ": shape has " + std::to_string(rank) + " dims, more than 64");
  std::vector<double> d(static_cast<std::size_t>(rank));
  if (!d.empty()) aw_copy_typed_array(dims.as_handle(), static_cast<int>(Kind::Float64), d.data(), rank);
  return checked_dims(d, where);
}

template <class T>
HeapArray<T> typed_array_from_js(const val& data, std::size_t count, const std::string& where) {
  return copy_typed_array<T>(data, Shape{static_cast<std::int64_t>(count)}, "values", where);
}
template <class T>
HeapArray<T> typed_array_from_js(const val& data, const std::string& where) {
  const double length = std::max(0.0, typed_array_length(data, kind_of<T>()));
  if (length > static_cast<double>(kMaxElements)) fail(ErrorKind::Range, where + ": more than 2^29 values");
  return typed_array_from_js<T>(data, static_cast<std::size_t>(length), where);
}
template HeapArray<std::int32_t> typed_array_from_js(const val&, const std::string&);
template HeapArray<std::uint8_t> typed_array_from_js(const val&, const std::string&);
template HeapArray<float> typed_array_from_js(const val&, std::size_t, const std::string&);
template HeapArray<std::int32_t> typed_array_from_js(const val&, std::size_t, const std::string&);
template HeapArray<std::uint8_t> typed_array_from_js(const val&, std::size_t, const std::string&);

HeapTensor float_tensor_from_js(const val& data, const val& shape, const std::string& where) {
  HeapTensor t;
  static_cast<HeapArray<float>&>(t) = copy_typed_array<float>(data, shape_from_js(shape, where), "a tensor", where);
  return t;
}

HeapBoolTensor bool_tensor_from_js(const val& data, const val& shape, const std::string& where) {
  HeapBoolTensor t;
  static_cast<HeapArray<std::uint8_t>&>(t) =
      copy_typed_array<std::uint8_t>(data, shape_from_js(shape, where), "a mask", where);
  return t;
}

HeapIds ids_from_js(const val& data, const val& shape, const std::string& where) {
  return copy_typed_array<std::int32_t>(data, shape_from_js(shape, where), "ids", where);
}

OptionalHeapTensor::OptionalHeapTensor(const val& data, const val& shape, const std::string& where) {
  if (!is_set(data)) return;
  heap = float_tensor_from_js(data, shape, where);
  ref = heap->ref();
}

OptionalHeapMask::OptionalHeapMask(const val& data, const val& shape, const std::string& where)
    : as_float(typed_array_length(data, Kind::Uint8) >= 0 ? val::null() : data, shape, where) {
  if (!is_set(data) || as_float.ptr()) return;
  heap_bool = bool_tensor_from_js(data, shape, where);
  bool_ref = heap_bool->ref();
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

void set_api_names(std::vector<std::pair<std::string, std::string>> names) {
  api_names() = std::map<std::string, std::string>(names.begin(), names.end());
}

std::string js_message(const Error& e) {
  const auto& names = api_names();
  return e.message([&](const std::string& name) {
    const auto it = names.find(name);
    return it == names.end() ? name : it->second;
  });
}

namespace {

// names: [torch name, JS name, torch name, JS name, ...] (strings)
void set_api_names_js(val names) {
  std::vector<std::pair<std::string, std::string>> pairs;
  const auto list = emscripten::vecFromJSArray<std::string>(names);
  for (std::size_t i = 0; i + 1 < list.size(); i += 2) pairs.emplace_back(list[i], list[i + 1]);
  set_api_names(std::move(pairs));
}

// TensorArgs<N> as Embind value arrays: N (data, shape) pairs.
template <std::size_t N, std::size_t I>
val get_value(const TensorArgs<N>& args) {
  return args.values[I];
}
template <std::size_t N, std::size_t I>
void set_value(TensorArgs<N>& args, val v) {
  args.values[I] = std::move(v);
}

template <std::size_t N, std::size_t... I>
void register_tensor_args(const char* name, std::index_sequence<I...>) {
  emscripten::value_array<TensorArgs<N>> args(name);
  (args.element(&get_value<N, I>, &set_value<N, I>), ...);
}

}  // namespace
}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_interop) {
  using aw::js::register_tensor_args;
  register_tensor_args<1>("TensorArgs1", std::make_index_sequence<2>());
  register_tensor_args<2>("TensorArgs2", std::make_index_sequence<4>());
  register_tensor_args<3>("TensorArgs3", std::make_index_sequence<6>());
  register_tensor_args<4>("TensorArgs4", std::make_index_sequence<8>());
  register_tensor_args<12>("TensorArgs12", std::make_index_sequence<24>());
  register_tensor_args<18>("TensorArgs18", std::make_index_sequence<36>());
  emscripten::function("_setApiNames", &aw::js::set_api_names_js);
}
