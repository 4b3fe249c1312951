// Errors raised at the library boundary (C++ API). Kernels never throw; the ops that validate
// their arguments throw aw::Error, and the bindings turn it into a JS Error of the same kind.
#pragma once
#include <stdexcept>
#include <string>

namespace aw {

enum class ErrorKind {
  Type,   // wrong type of argument             -> JS TypeError
  Range,  // a size, index or count out of range  -> JS RangeError
  Shape,  // shapes that do not fit together      -> JS Error
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) { throw Error(kind, message); }

}  // namespace aw
