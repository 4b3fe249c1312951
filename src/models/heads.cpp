// The heads' steps over rows (see heads.hpp).
#include "models/heads.hpp"

#include <algorithm>

#include "models/transformer_block.hpp"

namespace aw {
namespace {

// A width-keeping step (Activation, Norm) of head h in place over x (rows, width).
void apply_in_place(const Model& model, std::size_t h, std::size_t i, float* x, std::size_t rows, std::size_t width) {
  const HeadStep& step = model.architecture().heads[h].steps[i];
  if (step.op == HeadOp::Activation)
    activate(step.model_activation ? model.config().activation : step.activation, x, rows * width);
  else if (step.op == HeadOp::Norm)
    normalize(step.norm, model.head_norm(h, i), static_cast<float>(model.config().norm_eps), x, x, rows, width);
}

}  // namespace

void apply_base_heads(const Model& model, float* x, std::size_t rows) {
  const Architecture& a = model.architecture();
  const std::size_t D = static_cast<std::size_t>(model.config().hidden_size);
  for (std::size_t h = 0; h < a.heads.size(); ++h)
    if (a.heads[h].base && model.has_head(h))
      for (std::size_t i = 0; i < a.heads[h].steps.size(); ++i) apply_in_place(model, h, i, x, rows, D);
}

Tensor apply_head(const Model& model, std::size_t h, const float* x, std::size_t rows, const std::string& fn) {
  const Head& head = model.architecture().heads[h];
  const auto i64 = [](std::size_t d) { return static_cast<std::int64_t>(d); };
  std::size_t width = static_cast<std::size_t>(model.config().hidden_size);
  Tensor y = make_uninitialised_tensor({i64(rows), i64(width)}, fn + ": " + head.name);
  std::copy_n(x, rows * width, y.data.data());
  for (std::size_t i = 0; i < head.steps.size(); ++i) {
    if (head.steps[i].op != HeadOp::Dense) {
      apply_in_place(model, h, i, y.data.data(), rows, width);
      continue;
    }
    const LinearWeight w = model.head_dense(h, i);
    Tensor next = make_uninitialised_tensor({i64(rows), i64(w.out_features)}, fn + ": " + head.name);
    linear(w, y.data.data(), next.data.data(), rows);
    y = std::move(next);
    width = w.out_features;
  }
  return y;
}

}  // namespace aw
