// Tests for src/models/json_text: the bounded parse of a user's JSON text -- a NUL byte refused
// (nlohmann's lexer would end the input there), the values and levels counted as it reads, and
// text that is not JSON left to the caller as nlohmann's exception.
#include <catch2/catch.hpp>

#include <string>

#include "core/error.hpp"
#include "models/json_text.hpp"

namespace {

std::string error_of(const std::string& text, aw::JsonBounds bounds = {100, 8}) {
  try {
    aw::parse_json_text(text.data(), text.size(), bounds, "f.json");
  } catch (const aw::Error& e) {
    return e.what();
  } catch (const nlohmann::json::exception&) {
    return "json::exception";
  }
  return "no error";
}

}  // namespace

TEST_CASE("json_text: JSON within the bounds parses as nlohmann's parse", "[json_text]") {
  const std::string text = R"({"a": [1, 2, {"b": null}], "c": "x"})";
  // 7 values (the root, the array, 1, 2, the inner object, null, "x"); null inside 3 containers
  CHECK(aw::parse_json_text(text.data(), text.size(), {7, 3}, "f.json") == nlohmann::json::parse(text));
  CHECK(error_of(text, {6, 3}) == "f.json: more than 6 JSON values");
  CHECK(error_of(text, {7, 2}) == "f.json: JSON nested more than 2 levels deep");
}

TEST_CASE("json_text: a NUL byte is refused, not taken for the end of the text", "[json_text]") {
  const std::string text = std::string(R"({"a": 1})") + '\0' + "junk";
  CHECK(error_of(text) == "f.json: a NUL byte at offset 8 (not JSON text)");
  CHECK(error_of(std::string("\0", 1)) == "f.json: a NUL byte at offset 0 (not JSON text)");
}

TEST_CASE("json_text: a long array or deep nesting stops the parse at the bound", "[json_text]") {
  std::string shape = R"({"t": {"shape": [)";
  for (int i = 0; i < 1000; ++i) shape += i ? ",0" : "0";
  shape += "]}}";
  CHECK(error_of(shape, {100, 8}) == "f.json: more than 100 JSON values");
  CHECK(error_of(std::string(50, '[') + std::string(50, ']'), {100, 8}) ==
        "f.json: JSON nested more than 8 levels deep");
  CHECK(error_of("{\"a\": tru}") == "json::exception");
}
