// A float64 reference of the transformer block, written from transformers' modeling files:
//   modeling_bert.py       BertLayer: BertSelfAttention (transpose_for_scores, softmax(q k^T /
//                          sqrt(d) + mask) v), BertSelfOutput (LayerNorm(dense(h) + input)),
//                          BertIntermediate (act), BertOutput (LayerNorm(dense(h) + input))
//   modeling_gpt2.py       GPT2Block: h = x + attn(ln_1(x)); h = h + mlp(ln_2(h)); causal
//                          (bias tril), gelu_new
//   modeling_llama.py      LlamaDecoderLayer: pre-norm LlamaRMSNorm (x * rsqrt(mean(x^2) + eps) *
//                          w), LlamaAttention (q/k/v_proj, apply_rotary_pos_emb with rotate_half,
//                          inv_freq = 1 / theta^(2i/d), repeat_kv for num_key_value_heads, causal),
//                          LlamaMLP (down(act(gate(x)) * up(x)))
// It always runs the whole sequence (positions and keys from 0), so a KV-cache path is compared
// with the rows of its new tokens.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "models/transformer_block.hpp"

namespace block_test {

using Vec = std::vector<double>;

// The block's parameters in float64 (the same values as the floats under test): wqkv (Q + 2K, D)
// q's rows then k's then v's; w1 (F or 2F, D), gate's rows then up's when gated.
struct Weights64 {
  Vec wqkv, bqkv, wo, bo, w1, b1, w2, b2, n1w, n1b, n2w, n2b;  // empty bias / norm bias: none
};

// x (N, T, D) -> the block's output (N, T, D) over the whole sequence. positions (N, T): each
// token's position for rotary; keep (N, T): 1 = the key takes part, 0 = padding (excluded as
// by the additive finfo.min mask: a row that sees only padding weighs them all equally, which
// the tests avoid).
inline Vec block64(const aw::BlockConfig& c, const Weights64& w, const Vec& x, std::size_t N, std::size_t T,
                   const std::vector<double>& positions, const std::vector<int>& keep, double theta) {
  const std::size_t D = c.hidden_size, H = c.num_heads, Hkv = c.num_kv_heads, Dh = c.head_dim, F = c.intermediate_size,
                    Q = H * Dh, K = Hkv * Dh;
  const bool pre = c.norm_placement == aw::NormPlacement::Pre;
  auto norm = [&](const Vec& in, const Vec& wt, const Vec& b) {  // rows of D
    Vec out(in.size());
    for (std::size_t r = 0; r < in.size() / D; ++r) {
      const double* v = &in[r * D];
      double mean = 0, var = 0;
      if (c.norm == aw::NormKind::LayerNorm) {
        for (std::size_t i = 0; i < D; ++i) mean += v[i];
        mean /= double(D);
      }
      for (std::size_t i = 0; i < D; ++i) var += (v[i] - mean) * (v[i] - mean);
      var /= double(D);  // LayerNorm: biased variance; RMSNorm: mean of squares (mean = 0)
      for (std::size_t i = 0; i < D; ++i)
        out[r * D + i] =
            (v[i] - mean) / std::sqrt(var + double(c.norm_eps)) * (wt.empty() ? 1.0 : wt[i]) + (b.empty() ? 0.0 : b[i]);
    }
    return out;
  };
  auto linear = [](const Vec& in, std::size_t k, const Vec& wt, const Vec& b, std::size_t n) {  // in W^T + b
    const std::size_t rows = in.size() / k;
    Vec out(rows * n);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t o = 0; o < n; ++o) {
        double s = b.empty() ? 0.0 : b[o];
        for (std::size_t i = 0; i < k; ++i) s += in[r * k + i] * wt[o * k + i];
        out[r * n + o] = s;
      }
    return out;
  };
  auto act = [&](double v) {
    const double pi = 3.14159265358979323846;
    switch (c.activation) {
      case aw::Activation::Gelu:
        return v * 0.5 * (1.0 + std::erf(v / std::sqrt(2.0)));
      case aw::Activation::GeluTanh:
        return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (v + 0.044715 * v * v * v)));
      case aw::Activation::Relu:
        return v < 0 ? 0.0 : v;
      case aw::Activation::Silu:
        return v / (1.0 + std::exp(-v));
    }
    return v;
  };
  // rope on a head vector at position p: x * cos + rotate_half(x) * sin, rotate_half = cat(-x2, x1)
  auto rope = [&](double* v, double p) {
    const std::size_t half = Dh / 2;
    for (std::size_t i = 0; i < half; ++i) {
      const double angle = p / std::pow(theta, 2.0 * double(i) / double(Dh));
      const double a = v[i], b = v[i + half];
      v[i] = a * std::cos(angle) - b * std::sin(angle);
      v[i + half] = b * std::cos(angle) + a * std::sin(angle);
    }
  };

  Vec h = x;
  // attention
  const Vec a_in = pre ? norm(h, w.n1w, w.n1b) : h;
  Vec qkv = linear(a_in, D, w.wqkv, w.bqkv, Q + 2 * K);  // (N T, Q + 2K)
  if (c.rotary)
    for (std::size_t t = 0; t < N * T; ++t) {
      for (std::size_t hh = 0; hh < H; ++hh) rope(&qkv[t * (Q + 2 * K) + hh * Dh], positions[t]);
      for (std::size_t hh = 0; hh < Hkv; ++hh) rope(&qkv[t * (Q + 2 * K) + Q + hh * Dh], positions[t]);
    }
  Vec context(N * T * Q, 0.0);
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t hh = 0; hh < H; ++hh) {
      const std::size_t g = hh / (H / Hkv);  // repeat_kv: query head hh reads key/value head g
      for (std::size_t i = 0; i < T; ++i) {
        std::vector<double> s(T, -INFINITY);
        double max = -INFINITY;
        for (std::size_t j = 0; j < T; ++j) {
          if (c.causal && j > i) continue;
          double dot = 0;
          for (std::size_t d = 0; d < Dh; ++d)
            dot += qkv[(n * T + i) * (Q + 2 * K) + hh * Dh + d] * qkv[(n * T + j) * (Q + 2 * K) + Q + g * Dh + d];
          s[j] = dot / std::sqrt(double(Dh)) + (keep[n * T + j] ? 0.0 : -3.4028234663852886e38);
          max = std::max(max, s[j]);
        }
        double sum = 0;
        for (std::size_t j = 0; j < T; ++j) sum += s[j] == -INFINITY ? 0.0 : std::exp(s[j] - max);
        for (std::size_t j = 0; j < T; ++j) {
          if (s[j] == -INFINITY) continue;
          const double p = std::exp(s[j] - max) / sum;
          for (std::size_t d = 0; d < Dh; ++d)
            context[(n * T + i) * Q + hh * Dh + d] += p * qkv[(n * T + j) * (Q + 2 * K) + Q + K + g * Dh + d];
        }
      }
    }
  const Vec attn = linear(context, Q, w.wo, w.bo, D);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] += attn[i];
  if (!pre) h = norm(h, w.n1w, w.n1b);
  // MLP
  const Vec m_in = pre ? norm(h, w.n2w, w.n2b) : h;
  const Vec hidden = linear(m_in, D, w.w1, w.b1, c.gated_mlp ? 2 * F : F);
  Vec inner(N * T * F);
  for (std::size_t r = 0; r < N * T; ++r)
    for (std::size_t f = 0; f < F; ++f)
      inner[r * F + f] = c.gated_mlp ? act(hidden[r * 2 * F + f]) * hidden[r * 2 * F + F + f] : act(hidden[r * F + f]);
  const Vec mlp = linear(inner, F, w.w2, w.b2, D);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] += mlp[i];
  if (!pre) h = norm(h, w.n2w, w.n2b);
  return h;
}

}  // namespace block_test
