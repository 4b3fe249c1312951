// The token inputs' checks shared by the forwards. See input_ids.hpp.
#include "models/input_ids.hpp"

#include "core/error.hpp"

namespace aw {

std::string token_at(std::size_t i, std::int64_t length) {
  const auto L = static_cast<std::size_t>(length);
  return " at [" + std::to_string(i / L) + ", " + std::to_string(i % L) + "]";
}

void check_input_ids_shape(const std::string& fn, std::int64_t batch, std::int64_t length) {
  if (batch < 1 || length < 1)
    fail(ErrorKind::Range, fn + ": " + api_name("input_ids") + " must hold at least one token, got shape [" +
                               std::to_string(batch) + ", " + std::to_string(length) + "]");
}

void check_input_ids(const std::string& fn, const std::int32_t* input_ids, const std::uint8_t* attention_mask,
                     std::int64_t batch, std::int64_t length, std::int64_t vocab_size) {
  const std::size_t n = static_cast<std::size_t>(batch * length);
  for (std::size_t i = 0; i < n; ++i)
    if (input_ids[i] < 0 || input_ids[i] >= vocab_size)
      fail(ErrorKind::Range, fn + ": " + api_name("input_ids") + token_at(i, length) + " = " +
                                 std::to_string(input_ids[i]) + " is not a token id in [0, " +
                                 std::to_string(vocab_size) + ")");
  if (attention_mask)
    for (std::size_t i = 0; i < n; ++i)
      if (attention_mask[i] > 1)
        fail(ErrorKind::Range, fn + ": " + api_name("attention_mask") + token_at(i, length) + " = " +
                                   std::to_string(attention_mask[i]) + " must be 0 or 1");
}

}  // namespace aw
