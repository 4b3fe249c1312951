// The architectures' heads as code (their tables: models/architecture.hpp, Head and HeadStep):
// each step of a loaded head run in order over rows of the last layer's output.
//   Dense       y = x W^T + b       aw::linear: W packed at load, or the word embeddings (tied)
//   Activation  y = act(x)          in place
//   Norm        y = Norm(x)         LayerNorm / RMSNorm with the config's eps, in place
#pragma once
#include <cstddef>
#include <string>

#include "core/tensor.hpp"
#include "models/model.hpp"

namespace aw {

// x (rows, D), in place: every loaded base head (GPT-2's ln_f, Llama's norm), in table order.
void apply_base_heads(const Model& model, float* x, std::size_t rows);

// Head h over x (rows, D): every token's row, or the rows the caller gathered (each sequence's first,
// the pooler's output) -> (rows, the head's last width). The model must
// have loaded it (has_head). `fn` names the caller in memory errors.
Tensor apply_head(const Model& model, std::size_t h, const float* x, std::size_t rows, const std::string& fn);

}  // namespace aw
