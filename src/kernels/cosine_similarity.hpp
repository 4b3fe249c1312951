// Cosine similarity of two float32 vectors (torch.nn.functional.cosine_similarity). The op
// (src/ops/cosine_similarity) splits a broadcast along any dim into such pairs of vectors.
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment.
#pragma once

#include <cstddef>

namespace aw::kernels {

// torch's current formula (aten/src/ATen/native/Distance.cpp, cosine_similarity): each vector
// divided by its norm clamped to eps, then the dot product of the two,
//   sum_i (a_i / max(||a||, eps)) * (b_i / max(||b||, eps)),
// so that |result| <= 1 up to rounding, no product of two norms can overflow, and a zero vector
// gives 0. A NaN anywhere gives NaN; n = 0 gives 0.
// a is read as a[i * a_step], b as b[i * b_step] (i < n): step 1 is contiguous, 0 one value
// stretched over the n (broadcasting), more a strided dim (read one value at a time).
float cosine_similarity(const float* a, std::size_t a_step, const float* b, std::size_t b_step, std::size_t n,
                        float eps);
float cosine_similarity_reference(const float* a, std::size_t a_step, const float* b, std::size_t b_step, std::size_t n,
                                  float eps);

}  // namespace aw::kernels
