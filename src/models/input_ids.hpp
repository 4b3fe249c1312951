// The checks both forwards (the encoder's and the causal LM's) make of their token inputs:
// input_ids (N, L) and attention_mask (N, L), as transformers' models take them. Messages name
// the caller `fn` and the arguments through api_name (the JS bindings respell them: inputIds).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace aw {

// N, L >= 1: input_ids holds at least one token (a RangeError with its shape otherwise).
void check_input_ids_shape(const std::string& fn, std::int64_t batch, std::int64_t length);

// Every input_ids[n, l] a token id in [0, vocab_size); every attention_mask[n, l] (null: none)
// 0 or 1. The first that is not is a RangeError naming it and where it stands.
void check_input_ids(const std::string& fn, const std::int32_t* input_ids, const std::uint8_t* attention_mask,
                     std::int64_t batch, std::int64_t length, std::int64_t vocab_size);

// " at [n, l]": where element i of an (N, L) input stands, for messages.
std::string token_at(std::size_t i, std::int64_t length);

}  // namespace aw
