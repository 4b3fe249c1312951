// Binary elementwise arithmetic over float32 rows, one operand possibly broadcast (step 0).
// The op (src/ops/elementwise) splits a torch-broadcast into such rows.
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment.
#pragma once

#include <cstddef>

namespace aw::kernels {

// y[i] = a[i * a_step] + b[i * b_step],  i < n, each step 0 (one value stretched) or 1.
// a (n or 1), b (n or 1), y (n). y may be a or b where that operand's step is 1; no other overlap.
void add(const float* a, std::size_t a_step, const float* b, std::size_t b_step, float* y, std::size_t n);
void add_reference(const float* a, std::size_t a_step, const float* b, std::size_t b_step, float* y, std::size_t n);

// y[i] = a[i * a_step] * b[i * b_step], as add.
void mul(const float* a, std::size_t a_step, const float* b, std::size_t b_step, float* y, std::size_t n);
void mul_reference(const float* a, std::size_t a_step, const float* b, std::size_t b_step, float* y, std::size_t n);

}  // namespace aw::kernels
