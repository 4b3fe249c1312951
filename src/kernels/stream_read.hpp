// A streaming read: the sum of n floats, read once from first to last. The decoder benchmark
// (scripts/bench-decoder.mjs, through the _readBandwidth binding) times it over a buffer larger
// than the last-level cache: the heap's read bandwidth, against which a decode step (which reads
// every weight once per token) is reported.
//
// Kernels never allocate, never throw and know nothing about JS. Pointers need no particular
// alignment.
#pragma once

#include <cstddef>

namespace aw::kernels {

// sum_i x[i] (i < n), in float32. The xsimd kernel keeps four vector accumulators, so that the
// loop waits on the loads, not on the adds' latency (its sum is in another order than the
// reference's); n = 0 gives 0.
float stream_read_sum(const float* x, std::size_t n);
float stream_read_sum_reference(const float* x, std::size_t n);

}  // namespace aw::kernels
