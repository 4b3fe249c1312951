// The safetensors header, as tensor.rs validates it (see safetensors.hpp). JSON through
// nlohmann/json (a maintained, fuzzed parser that checks UTF-8 and parses without recursion):
// a header is untrusted input, and a hand-written parser would be more code to get right.
#include "models/safetensors.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "models/json_text.hpp"

namespace aw {
namespace {

using json = nlohmann::json;

// Bits per element of every dtype the format defines (tensor.rs, Dtype::bitsize), in its order.
// A plain array: nothing is allocated on first use (a load that fails keeps no memory).
struct DtypeBits {
  const char* name;
  std::uint64_t bits;
};
constexpr DtypeBits kDtypes[] = {
    {"BOOL", 8},    {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6},     {"U8", 8},          {"I8", 8},
    {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16},
    {"U16", 16},    {"F16", 16},    {"BF16", 16},   {"I32", 32},        {"U32", 32},        {"F32", 32},
    {"C64", 64},    {"F64", 64},    {"I64", 64},    {"U64", 64},
};

// The bits of a dtype name; 0 for a name the format does not define.
std::uint64_t dtype_bits(const std::string& name) {
  for (const DtypeBits& d : kDtypes)
    if (name == d.name) return d.bits;
  return 0;
}

std::string dtype_names() {
  std::string out;
  for (const DtypeBits& d : kDtypes) out += (out.empty() ? "" : ", ") + std::string(d.name);
  return out;
}

constexpr std::uint64_t kMaxSafeInteger = (std::uint64_t{1} << 53) - 1;  // offsets as JS numbers

bool is_offset(const json& v) { return v.is_number_unsigned() && v.get<std::uint64_t>() <= kMaxSafeInteger; }

[[noreturn]] void bad(const std::string& message) { fail(ErrorKind::Shape, message); }

std::string range_str(const SafetensorsTensor& t) {
  return "data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "]";
}

// One entry {dtype, shape, data_offsets} -> a tensor (types checked). Not inlined, nor is
// validate_offsets: a header's parse runs once per load, but its loops make V8 compile it again
// with TurboFan while the weights stream in, in memory that grows with the function's size (a
// q8 load's peak: docs/performance.md).
__attribute__((noinline)) SafetensorsTensor read_entry(const std::string& name, const json& entry,
                                                       const std::string& file) {
  const std::string where = file + ": tensor '" + name + "'";
  const std::string rule = " (safetensors: InvalidHeaderDeserialization)";
  if (!entry.is_object()) bad(where + ": expected {dtype, shape, data_offsets}, got " + entry.type_name() + rule);
  SafetensorsTensor t;
  t.name = name;
  const auto dtype = entry.find("dtype");
  if (dtype == entry.end() || !dtype->is_string() || !dtype_bits(dtype->get<std::string>()))
    bad(where + ": unknown dtype " + (dtype == entry.end() ? std::string("undefined") : dtype->dump()) +
        " (the format's dtypes: " + dtype_names() + ")" + rule);
  t.dtype = dtype->get<std::string>();
  const auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array() || !std::all_of(shape->begin(), shape->end(), is_offset))
    bad(where + ": shape must be an array of non-negative integers, got " +
        (shape == entry.end() ? std::string("undefined") : shape->dump()) + rule);
  for (const json& d : *shape) t.shape.push_back(static_cast<std::int64_t>(d.get<std::uint64_t>()));
  const auto offsets = entry.find("data_offsets");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2 ||
      !std::all_of(offsets->begin(), offsets->end(), is_offset))
    bad(where + ": data_offsets must be [begin, end] non-negative integers, got " +
        (offsets == entry.end() ? std::string("undefined") : offsets->dump()) + rule);
  t.begin = (*offsets)[0].get<std::uint64_t>();
  t.end = (*offsets)[1].get<std::uint64_t>();
  return t;
}

// Metadata::validate: in offset order, each tensor starts where the previous one ended and holds
// exactly its elements' bytes.
__attribute__((noinline)) std::uint64_t validate_offsets(std::vector<SafetensorsTensor>& tensors,
                                                         const std::string& file) {
  std::sort(tensors.begin(), tensors.end(), [](const SafetensorsTensor& a, const SafetensorsTensor& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t start = 0;
  const SafetensorsTensor* previous = nullptr;
  for (const SafetensorsTensor& t : tensors) {
    const std::string where = file + ": tensor '" + t.name + "'";
    if (t.begin != start || t.end < t.begin) {
      const std::string why =
          t.end < t.begin   ? "end before begin"
          : t.begin > start ? "a hole of " + std::to_string(t.begin - start) + " bytes before it (the previous tensor" +
                                  (previous ? " '" + previous->name + "'" : std::string("s")) + " end at " +
                                  std::to_string(start) + ")"
                            : "it overlaps tensor '" + previous->name + "' [" + std::to_string(previous->begin) + ", " +
                                  std::to_string(previous->end) + "]";
      bad(where + ": " + range_str(t) + ": " + why + " (safetensors: InvalidOffset)");
    }
    std::uint64_t bits = dtype_bits(t.dtype);
    for (auto d : t.shape) {
      const auto ud = static_cast<std::uint64_t>(d);
      if (ud != 0 && bits > kMaxSafeInteger / ud)
        bad(where + ": shape " + shape_str(t.shape) + " is too large (safetensors: ValidationOverflow)");
      bits *= ud;
    }
    if (bits % 8 != 0)
      bad(where + ": shape " + shape_str(t.shape) + " of " + t.dtype +
          " is not a whole number of bytes (safetensors: MisalignedSlice)");
    if (t.end - t.begin != bits / 8)
      bad(where + ": shape " + shape_str(t.shape) + " of " + t.dtype + " needs " + std::to_string(bits / 8) +
          " bytes but " + range_str(t) + " hold " + std::to_string(t.end - t.begin) +
          " (safetensors: TensorInvalidInfo)");
    start = t.end;
    previous = &t;
  }
  return start;
}

}  // namespace

std::uint64_t safetensors_header_length(const std::uint8_t* first, std::size_t count, std::uint64_t file_size,
                                        const std::string& file) {
  if (file_size < 8 || count < 8)
    bad(file + ": truncated file: " + std::to_string(file_size) +
        " bytes, fewer than the 8 of the header length (safetensors: HeaderTooSmall)");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | first[i];
  if (n > kSafetensorsMaxHeader)
    bad(file + ": the header length says " + std::to_string(n) + " bytes, more than the format's limit of " +
        std::to_string(kSafetensorsMaxHeader) + " (safetensors: HeaderTooLarge)");
  if (8 + n > file_size)
    bad(file + ": truncated file: the header length says " + std::to_string(n) + " bytes but only " +
        std::to_string(file_size - 8) + " follow (safetensors: InvalidHeaderLength)");
  return n;
}

namespace {

// The header's JSON, an object (out of line, as read_entry).
__attribute__((noinline)) json parse_header_json(const std::uint8_t* header, std::size_t n, const std::string& file) {
  json root;
  try {
    // bounds far above any checkpoint's (thousands of tensors of ~10 values each)
    root =
        parse_json_text(reinterpret_cast<const char*>(header), n, {std::size_t{1} << 18, 8, true}, file + ": header");
  } catch (const json::exception& e) {
    bad(file + ": bad header JSON (" + std::to_string(n) + " bytes): " + e.what() +
        " (safetensors: InvalidHeaderDeserialization)");
  }
  if (!root.is_object())
    bad(file + ": bad header: expected a JSON object of tensors, got " + std::string(root.type_name()) +
        " (safetensors: InvalidHeaderDeserialization)");
  return root;
}

// Every entry but __metadata__ (a map of strings to strings, or null), in the header's order.
__attribute__((noinline)) std::vector<SafetensorsTensor> read_entries(const json& root, const std::string& file) {
  std::vector<SafetensorsTensor> tensors;
  for (const auto& [name, entry] : root.items()) {
    if (name == "__metadata__") {
      if (!entry.is_null() &&
          (!entry.is_object() || !std::all_of(entry.begin(), entry.end(), [](const json& v) { return v.is_string(); })))
        bad(file + ": __metadata__ must be a map of strings to strings (safetensors: InvalidHeaderDeserialization)");
      continue;
    }
    tensors.push_back(read_entry(name, entry, file));
  }
  return tensors;
}

}  // namespace

SafetensorsHeader parse_safetensors_header(const std::uint8_t* header, std::size_t n, std::uint64_t file_size,
                                           const std::string& file) {
  SafetensorsHeader out;
  out.tensors = read_entries(parse_header_json(header, n, file), file);
  const std::uint64_t data_bytes = validate_offsets(out.tensors, file);
  out.data_start = 8 + n;
  if (out.data_start + data_bytes != file_size)
    bad(out.data_start + data_bytes > file_size
            ? file + ": truncated file: the tensors need " + std::to_string(data_bytes) + " bytes of data but only " +
                  std::to_string(file_size - out.data_start) +
                  " follow the header (safetensors: MetadataIncompleteBuffer)"
            : file + ": " + std::to_string(file_size - out.data_start - data_bytes) +
                  " bytes after the last tensor's data: the tensors must cover the file (safetensors: "
                  "MetadataIncompleteBuffer)");
  return out;
}

}  // namespace aw
