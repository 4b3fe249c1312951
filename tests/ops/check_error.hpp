// Shared by the op tests: an argument check's aw::Error, its kind and its exact message.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "core/error.hpp"

namespace op_test {

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

}  // namespace op_test
