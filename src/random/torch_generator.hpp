// torch_generator.hpp - a CPU random generator bit-compatible with PyTorch's
// default CPU generator (at::CPUGeneratorImpl), so that examples written as
//
//   torch.manual_seed(123)
//   w = torch.randn(6, 16)        # or nn.Embedding(6, 16), torch.rand(...)
//
// can be reproduced exactly in C++ / wasm.
//
// What torch does (files are in the pytorch/pytorch repository):
//   engine   aten/src/ATen/core/MT19937RNGEngine.h: plain MT19937 seeded with
//            init_genrand(seed & 0xffffffff); identical to std::mt19937.
//   random64 aten/src/ATen/CPUGeneratorImpl.cpp: two draws, (first << 32) | second.
//   rand     aten/src/ATen/core/TransformationHelper.h uniform_real<float>:
//            (u32 & (2^24 - 1)) * 2^-24.
//   randn    aten/src/ATen/native/cpu/DistributionTemplates.h normal_kernel:
//            numel >= 16: normal_fill (float Box-Muller over blocks of 16),
//            numel <  16: at::normal_distribution<double> per element, with the
//            second Box-Muller sample cached in the generator.
//
// Not thread-safe (torch locks a mutex; we leave that to the caller).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>

namespace aw {

class TorchGenerator {
 public:
  // 67280421310721 is c10::default_rng_seed_val (c10/core/GeneratorImpl.h),
  // the seed of an unseeded torch.Generator().
  explicit TorchGenerator(uint64_t seed = 67280421310721ULL);

  // As torch.manual_seed: reseed the engine and drop the cached normal samples.
  void manual_seed(uint64_t seed);

  // One MT19937 32-bit draw (CPUGeneratorImpl::random).
  uint32_t random();

  // Two 32-bit draws, (first << 32) | second (CPUGeneratorImpl::random64).
  uint64_t random64();

  // torch.rand(n) for float32: n values in [0, 1) with 24-bit granularity.
  void rand(float* out, std::size_t n);

  // torch.randn(n) for a contiguous float32 tensor with numel n, by torch's algorithm. What
  // holds, measured against PyTorch: equal bit for bit to torch's portable CPU build
  // (ATEN_CPU_CAPABILITY=default), except in the recomputed last block of 16 when n >= 16 and
  // n % 16 != 0, which is within 2 ulp of it; torch's AVX2 build differs from its portable
  // build in the last bit for n >= 16.
  void randn(float* out, std::size_t n);

 private:
  float uniform_float();    // uniform_real_distribution<float>(0, 1)
  double uniform_double();  // uniform_real_distribution<double>(0, 1)
  double normal_double();   // normal_distribution<double>(0, 1), with cache

  std::mt19937 engine_;
  bool has_next_double_normal_ = false;  // next_double_normal_sample_
  double next_double_normal_ = 0.0;
};

}  // namespace aw
