// Errors raised at the library boundary (C++ API). Kernels never throw; the ops that validate
// their arguments throw aw::Error, and the bindings turn it into a JS Error of the same kind.
//
// Names in messages. A message names the function and its arguments as torch's Python API spells
// them ("scaled_dot_product_attention: attn_mask [3, 4] must broadcast to ..."), each such name
// written through api_name(), which marks it. Error::what() shows torch's spelling; a caller that
// speaks other names respells every marked name at once with Error::message(spell): the JS
// bindings pass the JS API's names (attnMask, keyPaddingMask; src/js/names.js), so every message
// a JS caller reads is in the JS API's language.
#pragma once
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace aw {

enum class ErrorKind {
  Type,   // wrong type of argument             -> JS TypeError
  Range,  // a size, index or count out of range  -> JS RangeError
  Shape,  // shapes that do not fit together      -> JS Error
};

// torch_name, marked as a name for Error::message (e.g. "attn_mask", "layer_norm").
std::string api_name(std::string_view torch_name);

class Error : public std::runtime_error {
 public:
  // `message` may hold names marked by api_name().
  Error(ErrorKind kind, const std::string& message);
  ErrorKind kind() const { return kind_; }
  // The message with every marked name replaced by spell(name); what() is message(identity).
  std::string message(const std::function<std::string(const std::string&)>& spell) const;

 private:
  ErrorKind kind_;
  std::string marked_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) { throw Error(kind, message); }

}  // namespace aw
