// Rotary position embedding: xsimd kernel and its scalar reference. See rotary.hpp.
#include "kernels/rotary.hpp"

#include "kernels/simd.hpp"

namespace aw::kernels {

using simd::batch;

void rotary_embedding(float* x, const float* cos, const float* sin, std::size_t rows, std::size_t half) {
  for (std::size_t r = 0; r < rows; ++r) {
    float* x1 = x + r * 2 * half;  // (half) the first half of the row
    float* x2 = x1 + half;         // (half) the second half
    const float* c = cos + r * half;
    const float* s = sin + r * half;
    simd::vector_then_scalar(
        half,
        [&](std::size_t i) {
          const batch a = batch::load_unaligned(x1 + i), b = batch::load_unaligned(x2 + i);
          const batch cv = batch::load_unaligned(c + i), sv = batch::load_unaligned(s + i);
          (a * cv - b * sv).store_unaligned(x1 + i);
          (b * cv + a * sv).store_unaligned(x2 + i);
        },
        [&](std::size_t i) {
          const float a = x1[i], b = x2[i];
          x1[i] = a * c[i] - b * s[i];
          x2[i] = b * c[i] + a * s[i];
        });
  }
}

void rotary_embedding_reference(float* x, const float* cos, const float* sin, std::size_t rows, std::size_t half) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < half; ++i) {
      float& a = x[r * 2 * half + i];
      float& b = x[r * 2 * half + half + i];
      const float c = cos[r * half + i], s = sin[r * half + i];
      const float a0 = a, b0 = b;
      a = a0 * c - b0 * s;
      b = b0 * c + a0 * s;
    }
}

}  // namespace aw::kernels
