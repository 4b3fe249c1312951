// See json_text.hpp.
#include "models/json_text.hpp"

#include <cstring>
#include <unordered_set>
#include <vector>

#include "core/error.hpp"

namespace aw {
namespace {

using json = nlohmann::json;
using DomParser = nlohmann::detail::json_sax_dom_parser<json>;

// nlohmann's DOM builder with the bounds checked at every value as it is read. Not parse()'s
// callback form: its DOM builder scans the enclosing container for discarded values after every
// object ends, so that n empty objects in a row took time in n^2 (80,000 of them, a 1 MB header:
// 40 s). sax_parse calls these by name (a template), so hiding the base's members is enough.
class BoundedDomParser : public DomParser {
 public:
  BoundedDomParser(json& result, const JsonBounds& bounds, const std::string& what)
      : DomParser(result, true), bounds_(bounds), what_(what) {}

  bool null() { return count() && DomParser::null(); }
  bool boolean(bool v) { return count() && DomParser::boolean(v); }
  bool number_integer(json::number_integer_t v) { return count() && DomParser::number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return count() && DomParser::number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return count() && DomParser::number_float(v, s);
  }
  bool string(json::string_t& v) { return count() && DomParser::string(v); }
  bool binary(json::binary_t& v) { return count() && DomParser::binary(v); }
  bool start_object(std::size_t n) {
    count();
    ++open_;
    if (bounds_.unique_keys) keys_.emplace_back();
    return DomParser::start_object(n);
  }
  bool key(json::string_t& k) {
    if (bounds_.unique_keys && !keys_.back().insert(k).second)
      fail(ErrorKind::Shape, what_ + ": the key '" + k + "' appears twice in one object");
    return DomParser::key(k);
  }
  bool end_object() {
    --open_;
    if (bounds_.unique_keys) keys_.pop_back();
    return DomParser::end_object();
  }
  bool start_array(std::size_t n) {
    count();
    ++open_;
    return DomParser::start_array(n);
  }
  bool end_array() {
    --open_;
    return DomParser::end_array();
  }

 private:
  // one more value, at the depth of the containers open around it
  bool count() {
    if (++values_ > bounds_.max_values)
      fail(ErrorKind::Range, what_ + ": more than " + std::to_string(bounds_.max_values) + " JSON values");
    if (open_ > bounds_.max_depth)
      fail(ErrorKind::Range, what_ + ": JSON nested more than " + std::to_string(bounds_.max_depth) + " levels deep");
    return true;
  }

  const JsonBounds& bounds_;
  const std::string& what_;
  std::size_t values_ = 0, open_ = 0;
  std::vector<std::unordered_set<std::string>> keys_;  // each open object's keys (unique_keys)
};

}  // namespace

json parse_json_text(const char* first, std::size_t n, const JsonBounds& bounds, const std::string& what) {
  if (const void* nul = std::memchr(first, 0, n))
    fail(ErrorKind::Shape,
         what + ": a NUL byte at offset " + std::to_string(static_cast<const char*>(nul) - first) + " (not JSON text)");
  json result;
  BoundedDomParser parser(result, bounds, what);
  json::sax_parse(first, first + n, &parser);  // strict: trailing text is an error; errors throw
  return result;
}

}  // namespace aw
