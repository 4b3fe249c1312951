#include "ops/random.hpp"

namespace aw {

TorchGenerator& default_generator() {
  static TorchGenerator generator;  // one per module instance, like torch's default CPU generator
  return generator;
}

void manual_seed(std::uint64_t seed) { default_generator().manual_seed(seed); }

Tensor rand(const Shape& shape) {
  Tensor t = make_tensor(shape, "rand: size");
  default_generator().rand(t.data.data(), t.data.size());
  return t;
}

Tensor randn(const Shape& shape) {
  Tensor t = make_tensor(shape, "randn: size");
  default_generator().randn(t.data.data(), t.data.size());
  return t;
}

}  // namespace aw
