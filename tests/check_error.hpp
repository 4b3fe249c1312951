// Shared by the C++ tests: an argument check's aw::Error, its kind and its exact message; a
// result's values as a std::vector.
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/tensor.hpp"

namespace aw_test {

// Runs f, which must throw aw::Error of `kind` whose message is `message`.
template <class F>
void check_error(F&& f, aw::ErrorKind kind, const std::string& message) {
  try {
    f();
    FAIL("no error; expected: " << message);
  } catch (const aw::Error& e) {
    CHECK(e.kind() == kind);
    CHECK(std::string(e.what()) == message);
  }
}

// The message of the aw::Error f throws, or "no error".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const aw::Error& e) {
    return e.what();
  }
  return "no error";
}

// The kind of the aw::Error f throws; a failed check when it throws none.
inline aw::ErrorKind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const aw::Error& e) {
    return e.kind();
  }
  FAIL("no aw::Error thrown");
  return aw::ErrorKind::Type;
}

// A result's values as a std::vector, to compare with one.
inline std::vector<float> values(const aw::Tensor& t) { return {t.data.begin(), t.data.end()}; }

}  // namespace aw_test
