// Matrix products over row-major contiguous float32 arrays.
//
// Each kernel has a scalar twin `name_reference` with the same signature: the plain
// loops that the tests compare the xsimd path against.
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no
// particular alignment. Output buffers must not overlap any input.
#pragma once

#include <cstddef>

namespace aw::kernels {

// C = A B
// c[i, j] = sum_p a[i, p] * b[p, j]
// a (m, k), b (k, n), c (m, n). c must not alias a or b. k == 0 gives c = 0.
void matmul(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n);
void matmul_reference(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n);

// C = A B, the same result byte for byte, with b copied into scratch block by block (panels that
// the tiles read sequentially, a block that stays in the L2 cache): faster once b is larger than
// the cache. scratch: matmul_packed_scratch_size() floats, contents ignored, not overlapping a, b or c.
void matmul_packed(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n,
                   float* scratch);
std::size_t matmul_packed_scratch_size();

// C = A B^T
// c[i, j] = sum_p a[i, p] * b[j, p]   (row i of a dot row j of b)
// a (m, k), b (n, k), c (m, n). c must not alias a or b. k == 0 gives c = 0.
void matmul_transposed_b(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n);
void matmul_transposed_b_reference(const float* a, const float* b, float* c, std::size_t m, std::size_t k,
                                   std::size_t n);

// y = x W^T + bias   (torch.nn.functional.linear)
// y[i, j] = sum_p x[i, p] * w[j, p] + bias[j]
// x (m, k), w (n, k), bias (n) or nullptr for none, y (m, n). y must not alias x, w or bias.
void linear(const float* x, const float* w, const float* bias, float* y, std::size_t m, std::size_t k, std::size_t n);
void linear_reference(const float* x, const float* w, const float* bias, float* y, std::size_t m, std::size_t k,
                      std::size_t n);

// y = x W^T + bias with W packed once (the pretrained encoders' layers, at load) into panels that
// matmul_packed's register tiles read sequentially, in the same blocks: linear's result up to
// rounding (the order of the sum over p).
//
// A packed W (n, k) holds the same n*k floats, permuted: panels t = 0 .. n/P - 1 of its rows
// t*P .. t*P + P - 1 (which occupy the same floats as the panel), then its last n % P rows
// unchanged. P = linear_panel_width(): one tile's columns, 2 vectors (8 floats in wasm).
// linear_pack_weight packs w (n, k) into `packed` (n*k floats, not overlapping w): panel t holds
// packed[t*P*k + p*P + x] = w[t*P + x, p]. With n = P it packs one panel and copies nothing.
std::size_t linear_panel_width();
void linear_pack_weight(const float* w, float* packed, std::size_t n, std::size_t k);
// x (m, k), w_packed (n, k) packed, bias (n) or nullptr, y (m, n). y must not alias x, w or bias.
void linear_packed(const float* x, const float* w_packed, const float* bias, float* y, std::size_t m, std::size_t k,
                   std::size_t n);
// linear_packed's result byte for byte from an unpacked w (n, k): each block of W copied into
// scratch as panels just before its use (for one call, where the copy costs less than the dot
// tiles lose). scratch: linear_blockwise_scratch_size() floats (contents ignored), not
// overlapping x, w, bias or y.
void linear_blockwise(const float* x, const float* w, const float* bias, float* y, std::size_t m, std::size_t k,
                      std::size_t n, float* scratch);
std::size_t linear_blockwise_scratch_size();
void linear_blockwise_reference(const float* x, const float* w, const float* bias, float* y, std::size_t m,
                                std::size_t k, std::size_t n, float* scratch);
void linear_packed_reference(const float* x, const float* w_packed, const float* bias, float* y, std::size_t m,
                             std::size_t k, std::size_t n);

}  // namespace aw::kernels
