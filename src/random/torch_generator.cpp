// torch_generator.cpp - see torch_generator.hpp for what this mirrors.
#include "random/torch_generator.hpp"

#include <cmath>

namespace aw {

namespace {
// c10::pi<double> (c10/util/MathConstants.h).
constexpr double kPi = 3.14159265358979323846;
}  // namespace

TorchGenerator::TorchGenerator(uint64_t seed) { manual_seed(seed); }

// CPUGeneratorImpl::set_current_seed: reset both cached normal samples, then
// engine_ = mt19937(seed). at::mt19937 keeps only seed & 0xffffffff as the
// initial state word (init_genrand), exactly like std::mt19937's seed().
// (The float cache torch also clears is never filled by rand/randn(float).)
void TorchGenerator::manual_seed(uint64_t seed) {
  has_next_double_normal_ = false;
  next_double_normal_ = 0.0;
  engine_.seed(static_cast<std::mt19937::result_type>(seed & 0xffffffffULL));
}

uint32_t TorchGenerator::random() { return static_cast<uint32_t>(engine_()); }

// CPUGeneratorImpl::random64 -> make64BitsFrom32Bits(hi = first, lo = second).
uint64_t TorchGenerator::random64() {
  const uint64_t hi = random();
  const uint64_t lo = random();
  return (hi << 32) | lo;
}

// transformation::uniform_real<float>(random(), 0, 1) (TransformationHelper.h):
//   x = (val & (2^24 - 1)) * 2^-24, computed in float (dist_acctype<float>).
float TorchGenerator::uniform_float() {
  const uint32_t v = random() & ((1u << 24) - 1);
  return static_cast<float>(v) * (1.0f / 16777216.0f);
}

// transformation::uniform_real<double>(random64(), 0, 1):
//   x = (val & (2^53 - 1)) * 2^-53, computed in double.
double TorchGenerator::uniform_double() {
  const uint64_t v = random64() & ((uint64_t(1) << 53) - 1);
  return static_cast<double>(v) * (1.0 / 9007199254740992.0);
}

// at::normal_distribution<double>::operator() (core/DistributionsHelper.h):
//   if a sample is cached: return it and clear the cache
//   u1 = uniform, u2 = uniform               (u1 drawn first)
//   r = sqrt(-2 * log1p(-u2)), theta = 2 * pi * u1
//   cache r * sin(theta), return r * cos(theta)
// (Older torch wrote log(1 - u2); 1 - u2 is exact here, so at most an ulp.)
double TorchGenerator::normal_double() {
  if (has_next_double_normal_) {
    has_next_double_normal_ = false;
    return next_double_normal_;
  }
  const double u1 = uniform_double();
  const double u2 = uniform_double();
  const double r = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = 2.0 * kPi * u1;
  next_double_normal_ = r * std::sin(theta);
  has_next_double_normal_ = true;
  return r * std::cos(theta);
}

void TorchGenerator::rand(float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = uniform_float();
}

// normal_fill_16 (native/cpu/DistributionTemplates.h), scalar_t = float,
// mean 0, std 1. Pairs (j, j + 8):
//   u1 = 1 - data[j]                      float, [0,1) -> (0,1] for log
//   u2 = data[j + 8]
//   radius = sqrt(-2 * log(u1))           float (logf, sqrtf)
//   theta = 2.0f * pi<double> * u2        product in double, stored as float
//   data[j] = radius * cos(theta), data[j + 8] = radius * sin(theta)  (float)
// Newer torch (NormalFill16) writes fma(radius * cos(theta), std, mean): the
// same value for std 1, mean 0. torch's AVX2 build uses normal_fill_16_AVX2
// (float 2*pi, avx_mathfun log and sincos), which can differ in the last ulp;
// so can different libms' logf/cosf/sinf (glibc vs musl: <= 2 ulp).
static void normal_fill_16(float* data) {
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * std::log(u1));
    const float theta = static_cast<float>(2.0 * kPi * static_cast<double>(u2));
    data[j] = radius * std::cos(theta);
    data[j + 8] = radius * std::sin(theta);
  }
}

// normal_kernel (native/cpu/DistributionTemplates.h) for a contiguous float
// tensor:
//   numel >= 16 -> normal_fill: data[0..n) = uniform floats; normal_fill_16 on
//     every full block of 16; if n % 16 != 0, the LAST 16 values
//     (data + n - 16) get 16 fresh uniforms and normal_fill_16 again.
//   numel < 16 -> (float) normal_distribution<double> per element, in order.
void TorchGenerator::randn(float* out, std::size_t n) {
  if (n < 16) {
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(normal_double());
    return;
  }
  rand(out, n);
  for (std::size_t i = 0; i + 16 <= n; i += 16) normal_fill_16(out + i);
  if (n % 16 != 0) {
    float* tail = out + n - 16;
    rand(tail, 16);
    normal_fill_16(tail);
  }
}

}  // namespace aw
