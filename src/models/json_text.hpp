// json_text.hpp - JSON text from a user's file parsed with bounds: nlohmann/json's SAX parser
// building the document while it counts the values and levels as it reads (in time linear in the
// text), so that a small hostile file cannot
// grow the wasm heap (which never shrinks) by the document it describes (a header of 98 MB with
// one shape of 50 million dims took 3.4 GiB), and a NUL byte, which nlohmann's lexer takes for
// the end of the input (the rest unread), is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace aw {

struct JsonBounds {
  std::size_t max_values;    // values of every kind, containers included
  std::size_t max_depth;     // levels of nested arrays and objects
  bool unique_keys = false;  // a key twice in one object is an Error (else the last one wins)
};

// The JSON text [first, first + n) of `what` (a file, named in the errors: "model.safetensors:
// header"), parsed: a ShapeError for a NUL byte, a RangeError past a bound; text that is not JSON
// throws nlohmann's json::exception, for the caller to name as its format does.
nlohmann::json parse_json_text(const char* first, std::size_t n, const JsonBounds& bounds, const std::string& what);

}  // namespace aw
