// The SIMD vocabulary of the kernels (xsimd): the batch type and its lanes, fma, and the one loop
// shape every kernel uses -- a body over whole vectors, then a scalar tail.
//
// In wasm there is one SIMD target, chosen at compile time (-msimd128: 4 float lanes); natively
// xsimd's default arch for -march=native (8 lanes with AVX2, 16 with AVX-512).
#pragma once

#include <cstddef>

#include <xsimd/xsimd.hpp>

#if defined(__wasm_relaxed_simd__)
#include <wasm_simd128.h>
#endif

namespace aw::kernels::simd {

using batch = xsimd::batch<float>;
constexpr std::size_t lanes = batch::size;
using double_batch = xsimd::batch<double>;  // 2 lanes on wasm simd128, 4 on AVX2, 8 on AVX-512
constexpr std::size_t double_lanes = double_batch::size;

// a * b + c, lane by lane: every multiply-add of the kernels goes through here.
// A relaxed-SIMD build (-mrelaxed-simd, which defines __wasm_relaxed_simd__) gets one
// f32x4.relaxed_madd: fused where the engine's CPU has FMA. Otherwise xsimd::fma: fused natively
// on CPUs with FMA, a multiply and an add in SIMD128 (which has no fused form).
inline batch fma(batch a, batch b, batch c) {
#if defined(__wasm_relaxed_simd__)
  return batch(wasm_f32x4_relaxed_madd(a, b, c));
#else
  return xsimd::fma(a, b, c);
#endif
}

// The loop of every kernel: vector_step(i) at i = 0, Step, 2 Step, ... while a whole vector fits
// in [0, n), then scalar_step(i) for each remaining i (the tail, fewer than Step values).
// Always inlined: an outlined copy would keep the callers' accumulators in memory.
template <std::size_t Step = lanes, class VectorStep, class ScalarStep>
[[gnu::always_inline]] inline void vector_then_scalar(std::size_t n, VectorStep&& vector_step,
                                                      ScalarStep&& scalar_step) {
  std::size_t i = 0;
  for (; i + Step <= n; i += Step) vector_step(i);
  for (; i < n; ++i) scalar_step(i);
}

// The same with a step between the two parts, for a reduction: `between` folds the vector
// accumulators into the scalar that the tail continues, so the tail's values are added after the
// vector sums, in order.
template <std::size_t Step = lanes, class VectorStep, class Between, class ScalarStep>
[[gnu::always_inline]] inline void vector_then_scalar(std::size_t n, VectorStep&& vector_step, Between&& between,
                                                      ScalarStep&& scalar_step) {
  std::size_t i = 0;
  for (; i + Step <= n; i += Step) vector_step(i);
  between();
  for (; i < n; ++i) scalar_step(i);
}

// y[i] = f(x[i]) for i < n: fv on whole vectors, fs on the tail. y may be x.
template <class VectorF, class ScalarF>
[[gnu::always_inline]] inline void map(const float* x, float* y, std::size_t n, VectorF&& fv, ScalarF&& fs) {
  vector_then_scalar(
      n, [&](std::size_t i) { fv(batch::load_unaligned(x + i)).store_unaligned(y + i); },
      [&](std::size_t i) { y[i] = fs(x[i]); });
}

// y[i] = f(x[i]) for i < n, every value through fv: the tail (fewer than `lanes` values) goes in
// as one vector padded with zeros. So a value's bytes do not depend on where it sits in a call (a
// row run in parts gives the bytes of the whole), which a scalar tail computing erf, tanh or exp
// with the C library would break: xsimd's and the C library's differ in the last bit. y may be x.
template <class VectorF>
[[gnu::always_inline]] inline void map_vectors(const float* x, float* y, std::size_t n, VectorF&& fv) {
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) fv(batch::load_unaligned(x + i)).store_unaligned(y + i);
  if (i == n) return;
  alignas(64) float tail[lanes] = {};
  for (std::size_t t = 0; i + t < n; ++t) tail[t] = x[i + t];
  fv(batch::load_aligned(tail)).store_aligned(tail);
  for (std::size_t t = 0; i + t < n; ++t) y[i + t] = tail[t];
}

}  // namespace aw::kernels::simd
