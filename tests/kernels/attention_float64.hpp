// What the attention kernel tests (tests/kernels/attention_test.cpp, flash_attention_test.cpp)
// check against: attention in float64 from the formula
//   out = softmax(scale * q k^T + mask) v
// with the mask given as the (L, S) matrix it stands for, and random stored masks in every
// layout of mask_layouts.hpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "kernels/kernel_test_util.hpp"
#include "kernels/mask_layouts.hpp"

namespace kernel_test {

// The mask as the (L, S) matrix it stands for: element (i, j), or nullptr for no mask.
using LogicalMask = std::function<double(std::size_t i, std::size_t j)>;

// A mask as the kernels take it (MaskView without causal).
struct MaskArgs {
  const float* data = nullptr;
  std::ptrdiff_t row_stride = 0, col_stride = 0;
};

struct AttentionFloat64 {
  std::vector<double> weights, weights_scale;  // (L, S)
  std::vector<double> out, out_scale;          // (L, Ev); out_scale = sum_j w[j] |v[j, d]|
};

// out = softmax(scale * q k^T + mask) v in float64. causal excludes j > i + causal_offset (0:
// torch's is_causal; S - L: aligned bottom-right, torch's causal_lower_right); a row with every
// position excluded (-inf) gets weights 0 and out 0 (torch _safe_softmax).
inline AttentionFloat64 attention_float64(const float* q, const float* k, const float* v, std::size_t L, std::size_t S,
                                          std::size_t E, std::size_t Ev, double scale, const LogicalMask& mask,
                                          bool causal, std::size_t causal_offset = 0) {
  const double minus_inf = -std::numeric_limits<double>::infinity();
  AttentionFloat64 r;
  r.weights.assign(L * S, 0);
  r.out.assign(L * Ev, 0);
  r.out_scale.assign(L * Ev, 0);
  for (std::size_t i = 0; i < L; ++i) {
    std::vector<double> score(S, minus_inf);
    double max = minus_inf;
    for (std::size_t j = 0; j < S; ++j) {
      if (causal && j > i + causal_offset) continue;
      double dot = 0;
      for (std::size_t e = 0; e < E; ++e) dot += double(q[i * E + e]) * double(k[j * E + e]);
      score[j] = scale * dot + (mask ? mask(i, j) : 0.0);
      max = std::max(max, score[j]);
    }
    if (max == minus_inf) continue;  // fully masked: weights 0, out 0
    double sum = 0;
    for (std::size_t j = 0; j < S; ++j) sum += std::exp(score[j] - max);
    for (std::size_t j = 0; j < S; ++j) r.weights[i * S + j] = std::exp(score[j] - max) / sum;
    for (std::size_t d = 0; d < Ev; ++d)
      for (std::size_t j = 0; j < S; ++j) {
        r.out[i * Ev + d] += r.weights[i * S + j] * double(v[j * Ev + d]);
        r.out_scale[i * Ev + d] += r.weights[i * S + j] * std::fabs(double(v[j * Ev + d]));
      }
  }
  r.weights_scale.resize(L * S);
  for (std::size_t i = 0; i < L * S; ++i) r.weights_scale[i] = std::fabs(r.weights[i]);
  return r;
}

// An (L, S) mask stored in `layout`: values in [-2, 2], a fifth of them -inf (small S gives
// fully masked rows); the kernels' arguments and the matrix it stands for.
struct StoredMask {
  Buffer storage;
  MaskArgs args;
  LogicalMask logical;
};

inline StoredMask random_stored_mask(std::mt19937& rng, const MaskLayout& layout, std::size_t L, std::size_t S) {
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  std::bernoulli_distribution excluded(0.2);
  StoredMask m{Buffer(layout.storage_size(L, S), 1), {}, nullptr};
  for (std::size_t i = 0; i < m.storage.count; ++i) m.storage[i] = excluded(rng) ? -infinity : uniform(rng);
  const float* stored = m.storage.data();  // the buffer's heap storage: stable when m is moved
  m.args = MaskArgs{stored + layout.first(L, S), layout.row_stride(L, S), layout.col_stride(L, S)};
  m.logical = [stored, &layout, L, S](std::size_t i, std::size_t j) {
    return double(stored[layout.element(i, j, L, S)]);
  };
  return m;
}

}  // namespace kernel_test
