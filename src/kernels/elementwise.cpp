// Elementwise add / mul: xsimd kernels and their scalar references. See elementwise.hpp.
#include "kernels/elementwise.hpp"

#include <functional>

#include "kernels/simd.hpp"

namespace aw::kernels {
namespace {

using simd::batch;

// A batch of operand values at i: a full load for step 1, the one value repeated for step 0.
batch load(const float* p, std::size_t step, std::size_t i) {
  return step ? batch::load_unaligned(p + i) : batch(p[0]);
}

template <class Op>
void binary(const float* a, std::size_t a_step, const float* b, std::size_t b_step, float* y, std::size_t n, Op op) {
  simd::vector_then_scalar(
      n, [&](std::size_t i) { op(load(a, a_step, i), load(b, b_step, i)).store_unaligned(y + i); },
      [&](std::size_t i) { y[i] = op(a[i * a_step], b[i * b_step]); });
}

template <class Op>
void binary_reference(const float* a, std::size_t a_step, const float* b, std::size_t b_step, float* y, std::size_t n,
                      Op op) {
  for (std::size_t i = 0; i < n; ++i) y[i] = op(a[i * a_step], b[i * b_step]);
}

}  // namespace

void add(const float* a, std::size_t a_step, const float* b, std::size_t b_step, float* y, std::size_t n) {
  binary(a, a_step, b, b_step, y, n, [](auto u, auto v) { return u + v; });
}

void add_reference(const float* a, std::size_t a_step, const float* b, std::size_t b_step, float* y, std::size_t n) {
  binary_reference(a, a_step, b, b_step, y, n, std::plus<float>());
}

void mul(const float* a, std::size_t a_step, const float* b, std::size_t b_step, float* y, std::size_t n) {
  binary(a, a_step, b, b_step, y, n, [](auto u, auto v) { return u * v; });
}

void mul_reference(const float* a, std::size_t a_step, const float* b, std::size_t b_step, float* y, std::size_t n) {
  binary_reference(a, a_step, b, b_step, y, n, std::multiplies<float>());
}

}  // namespace aw::kernels
