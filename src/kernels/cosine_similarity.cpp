// Cosine similarity: xsimd kernel and its scalar reference. See cosine_similarity.hpp.
#include "kernels/cosine_similarity.hpp"

#include <cmath>

#include "kernels/simd.hpp"

namespace aw::kernels {
namespace {

using simd::batch;

// max(norm, eps) as torch's clamp_min_: a NaN norm stays NaN.
float clamped(float norm, float eps) { return norm < eps ? eps : norm; }

// A batch of a vector's values at i: a full load for step 1, its one value repeated for step 0.
batch load(const float* p, std::size_t step, std::size_t i) {
  return step ? batch::load_unaligned(p + i) : batch(p[0]);
}

}  // namespace

float cosine_similarity(const float* a, std::size_t a_step, const float* b, std::size_t b_step, std::size_t n,
                        float eps) {
  // a strided dim is read one value at a time (wasm SIMD has no gather): the scalar loop
  if (a_step > 1 || b_step > 1) return cosine_similarity_reference(a, a_step, b, b_step, n, eps);

  // squared norms ||a||^2, ||b||^2
  batch aa_v(0.0f), bb_v(0.0f);
  float aa = 0.0f, bb = 0.0f;
  simd::vector_then_scalar(
      n,
      [&](std::size_t i) {
        const batch x = load(a, a_step, i), y = load(b, b_step, i);
        aa_v = simd::fma(x, x, aa_v);
        bb_v = simd::fma(y, y, bb_v);
      },
      [&] {
        aa = xsimd::reduce_add(aa_v);
        bb = xsimd::reduce_add(bb_v);
      },
      [&](std::size_t i) {
        aa += a[i * a_step] * a[i * a_step];
        bb += b[i * b_step] * b[i * b_step];
      });
  const float a_norm = clamped(std::sqrt(aa), eps), b_norm = clamped(std::sqrt(bb), eps);

  // dot product of the normalised vectors: sum (a_i / ||a||) (b_i / ||b||)
  const batch a_norm_v(a_norm), b_norm_v(b_norm);
  batch dot_v(0.0f);
  float dot = 0.0f;
  simd::vector_then_scalar(
      n, [&](std::size_t i) { dot_v = simd::fma(load(a, a_step, i) / a_norm_v, load(b, b_step, i) / b_norm_v, dot_v); },
      [&] { dot = xsimd::reduce_add(dot_v); },
      [&](std::size_t i) { dot += (a[i * a_step] / a_norm) * (b[i * b_step] / b_norm); });
  return dot;
}

float cosine_similarity_reference(const float* a, std::size_t a_step, const float* b, std::size_t b_step, std::size_t n,
                                  float eps) {
  float aa = 0.0f, bb = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    aa += a[i * a_step] * a[i * a_step];
    bb += b[i * b_step] * b[i * b_step];
  }
  const float a_norm = clamped(std::sqrt(aa), eps), b_norm = clamped(std::sqrt(bb), eps);
  float dot = 0.0f;
  for (std::size_t i = 0; i < n; ++i) dot += (a[i * a_step] / a_norm) * (b[i * b_step] / b_norm);
  return dot;
}

}  // namespace aw::kernels
