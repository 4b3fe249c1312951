#include "ops/positional_encoding.hpp"

#include "core/error.hpp"
#include "kernels/positional_encoding.hpp"

namespace aw {

Tensor positional_encoding(std::int64_t max_length, std::int64_t d_model) {
  const std::string fn = api_name("positional_encoding");
  if (max_length < 0 || d_model < 0)
    fail(ErrorKind::Range, fn + ": " + api_name("max_length") + " and " + api_name("d_model") +
                               " must be non-negative, got " + api_name("max_length") + " " +
                               std::to_string(max_length) + ", " + api_name("d_model") + " " + std::to_string(d_model));
  Tensor out = make_tensor({max_length, d_model}, fn + ": result");
  if (out.data.empty()) return out;
  kernels::positional_encoding(out.data.data(), static_cast<std::size_t>(max_length),
                               static_cast<std::size_t>(d_model));
  return out;
}

}  // namespace aw
