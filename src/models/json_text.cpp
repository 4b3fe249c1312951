// See json_text.hpp.
#include "models/json_text.hpp"

#include <cstring>

#include "core/error.hpp"

namespace aw {

nlohmann::json parse_json_text(const char* first, std::size_t n, const JsonBounds& bounds, const std::string& what) {
  using json = nlohmann::json;
  if (const void* nul = std::memchr(first, 0, n))
    fail(ErrorKind::Shape,
         what + ": a NUL byte at offset " + std::to_string(static_cast<const char*>(nul) - first) + " (not JSON text)");
  std::size_t values = 0;
  // called for every value and container as the parser reads it; refusing stops the parse there
  const json::parser_callback_t count = [&](int depth, json::parse_event_t event, json&) {
    if (event == json::parse_event_t::key || event == json::parse_event_t::object_end ||
        event == json::parse_event_t::array_end)
      return true;
    if (++values > bounds.max_values)
      fail(ErrorKind::Range, what + ": more than " + std::to_string(bounds.max_values) + " JSON values");
    if (static_cast<std::size_t>(depth) > bounds.max_depth)  // depth: the containers around it
      fail(ErrorKind::Range, what + ": JSON nested more than " + std::to_string(bounds.max_depth) + " levels deep");
    return true;
  };
  return json::parse(first, first + n, count);
}

}  // namespace aw
