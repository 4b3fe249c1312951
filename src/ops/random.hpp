// torch.manual_seed / torch.rand / torch.randn on the module's default generator.
#pragma once
#include "core/tensor.hpp"
#include "random/torch_generator.hpp"

namespace aw {

TorchGenerator& default_generator();
void manual_seed(std::uint64_t seed);
Tensor rand(const Shape& shape);   // uniform [0, 1), bit-exact with torch.rand
Tensor randn(const Shape& shape);  // standard normal, torch.randn's algorithm (what holds: TorchGenerator::randn)

}  // namespace aw
