// Tests for src/models/transformer_block: the one block in each configuration the architectures
// need -- post-norm LayerNorm with gelu (BERT), pre-norm LayerNorm with gelu_tanh and causal
// attention (GPT-2), pre-norm RMSNorm with SwiGLU, rotary positions and grouped-query attention
// (Llama), relu with separate q/k/v projections and biases (Qwen2-like) -- against the float64
// reference written from transformers' modeling files (block_float64.hpp), with the weights as
// given (LinearFormat::Rows) and packed (LinearFormat::Packed); then the KV cache: a prefill and
// single-token and two-token steps through the cache give the rows of the full forward, with a
// left-padded batch whose positions come from its attention mask as transformers' generate
// computes them.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/matmul.hpp"
#include "models/block_float64.hpp"
#include "models/transformer_block.hpp"

namespace {

using block_test::Vec;

struct Case {
  const char* name;
  aw::BlockConfig config;
  bool biases, norm_biases, fused;
  double theta;
};

aw::BlockConfig config(std::size_t D, std::size_t H, std::size_t Hkv, std::size_t Dh, std::size_t F, aw::NormKind norm,
                       aw::NormPlacement place, aw::Activation act, bool gated, bool causal, bool rotary) {
  aw::BlockConfig c;
  c.hidden_size = D, c.num_heads = H, c.num_kv_heads = Hkv, c.head_dim = Dh, c.intermediate_size = F;
  c.norm = norm, c.norm_placement = place, c.norm_eps = 1e-5f, c.activation = act;
  c.gated_mlp = gated, c.causal = causal, c.rotary = rotary;
  return c;
}

const Case cases[] = {
    {"bert: post-norm LayerNorm, gelu, bidirectional, fused q/k/v",
     config(20, 4, 4, 5, 37, aw::NormKind::LayerNorm, aw::NormPlacement::Post, aw::Activation::Gelu, false, false,
            false),
     true, true, true, 0},
    {"gpt2: pre-norm LayerNorm, gelu_tanh, causal, fused q/k/v",
     config(20, 4, 4, 5, 33, aw::NormKind::LayerNorm, aw::NormPlacement::Pre, aw::Activation::GeluTanh, false, true,
            false),
     true, true, true, 0},
    {"llama: pre-norm RMSNorm, SwiGLU, rotary, GQA 4/2, head_dim 6 (H Dh != D), causal, no biases",
     config(20, 4, 2, 6, 29, aw::NormKind::RmsNorm, aw::NormPlacement::Pre, aw::Activation::Silu, true, true, true),
     false, false, false, 10000.0},
    {"qwen2-like: pre-norm RMSNorm, relu, rotary, GQA 6/3, separate q/k/v with biases, causal",
     config(18, 6, 3, 4, 25, aw::NormKind::RmsNorm, aw::NormPlacement::Pre, aw::Activation::Relu, false, true, true),
     true, false, false, 500.0},
};

// Random parameters of a case: the floats under test, the same values in float64.
struct Params {
  std::vector<float> wqkv, bqkv, wo, bo, w1, b1, w2, b2, n1w, n1b, n2w, n2b;
  block_test::Weights64 w64;
};

Params random_params(const Case& k, std::mt19937& rng) {
  const aw::BlockConfig& c = k.config;
  const std::size_t D = c.hidden_size, Q = c.query_width(), K = c.key_value_width(), F = c.intermediate_size;
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  auto fill = [&](std::size_t n, float scale, float offset = 0.0f) {
    std::vector<float> v(n);
    for (float& x : v) x = offset + scale * u(rng);
    return v;
  };
  Params p;
  p.wqkv = fill((Q + 2 * K) * D, 1.0f / std::sqrt(float(D)));
  p.wo = fill(D * Q, 1.0f / std::sqrt(float(Q)));
  p.w1 = fill(c.mlp_width() * D, 1.0f / std::sqrt(float(D)));
  p.w2 = fill(D * F, 1.0f / std::sqrt(float(F)));
  p.n1w = fill(D, 0.2f, 1.0f);
  p.n2w = fill(D, 0.2f, 1.0f);
  if (k.biases)
    p.bqkv = fill(Q + 2 * K, 0.1f), p.bo = fill(D, 0.1f), p.b1 = fill(c.mlp_width(), 0.1f), p.b2 = fill(D, 0.1f);
  if (k.norm_biases) p.n1b = fill(D, 0.1f), p.n2b = fill(D, 0.1f);
  auto d = [](const std::vector<float>& v) { return Vec(v.begin(), v.end()); };
  p.w64 = {d(p.wqkv), d(p.bqkv), d(p.wo),  d(p.bo),  d(p.w1),  d(p.b1),
           d(p.w2),   d(p.b2),   d(p.n1w), d(p.n1b), d(p.n2w), d(p.n2b)};
  return p;
}

// The weights as the block takes them, as given (Rows) or packed into `storage` (Packed).
aw::BlockWeights block_weights(const Case& k, const Params& p, bool packed, std::vector<std::vector<float>>& storage) {
  const aw::BlockConfig& c = k.config;
  const std::size_t D = c.hidden_size, Q = c.query_width(), K = c.key_value_width(), F = c.intermediate_size;
  const auto or_null = [](const std::vector<float>& v, std::size_t at = 0) {
    return v.empty() ? nullptr : v.data() + at;
  };
  const auto weight = [&](const float* w, const float* b, std::size_t out, std::size_t in) {
    if (!packed) return aw::LinearWeight{aw::LinearFormat::Rows, w, b, out, in};
    storage.emplace_back(out * in);
    aw::kernels::linear_pack_weight(w, storage.back().data(), out, in);
    return aw::LinearWeight{aw::LinearFormat::Packed, storage.back().data(), b, out, in};
  };
  aw::BlockWeights w;
  if (k.fused) {
    w.qkv = weight(p.wqkv.data(), or_null(p.bqkv), Q + 2 * K, D);
  } else {
    w.q = weight(p.wqkv.data(), or_null(p.bqkv), Q, D);
    w.k = weight(p.wqkv.data() + Q * D, or_null(p.bqkv, Q), K, D);
    w.v = weight(p.wqkv.data() + (Q + K) * D, or_null(p.bqkv, Q + K), K, D);
  }
  w.out = weight(p.wo.data(), or_null(p.bo), D, Q);
  w.mlp_in = weight(p.w1.data(), or_null(p.b1), c.mlp_width(), D);
  w.mlp_out = weight(p.w2.data(), or_null(p.b2), D, F);
  w.attention_norm = {p.n1w.data(), or_null(p.n1b)};
  w.mlp_norm = {p.n2w.data(), or_null(p.n2b)};
  return w;
}

// cos and sin (rows, Dh / 2) of the positions, angles in float64 (inv_freq = theta^(-2i / Dh)).
void rotary_tables(const std::vector<double>& positions, std::size_t Dh, double theta, std::vector<float>& cos,
                   std::vector<float>& sin) {
  const std::size_t half = Dh / 2;
  cos.resize(positions.size() * half);
  sin.resize(positions.size() * half);
  for (std::size_t r = 0; r < positions.size(); ++r)
    for (std::size_t i = 0; i < half; ++i) {
      const double angle = positions[r] / std::pow(theta, 2.0 * double(i) / double(Dh));
      cos[r * half + i] = float(std::cos(angle));
      sin[r * half + i] = float(std::sin(angle));
    }
}

// got[i] against want[i] to 1e-5 relative to max(1, |want|), over the rows where check[row].
void check_rows(const float* got, const double* want, std::size_t rows, std::size_t D, const std::vector<int>& check,
                const std::string& what) {
  double worst = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    if (!check[r]) continue;
    for (std::size_t i = 0; i < D; ++i) {
      const double w = want[r * D + i], e = std::fabs(double(got[r * D + i]) - w) / std::max(1.0, std::fabs(w));
      worst = std::max(worst, e);
      INFO(what << ": row " << r << " [" << i << "] " << got[r * D + i] << " vs " << w);
      REQUIRE(e <= 1e-5);
    }
  }
  CHECK(worst < 1e-5);
}

// The additive key-padding mask (N, 1, 1, S) of keep's first S keys of each row (T per row).
std::vector<float> padding_mask(const std::vector<int>& keep, std::size_t N, std::size_t T, std::size_t S) {
  std::vector<float> m(N * S);
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t j = 0; j < S; ++j) m[n * S + j] = keep[n * T + j] ? 0.0f : -3.4028234663852886e38f;
  return m;
}

// Position ids as transformers' generate computes them for a padded batch: cumsum(mask) - 1,
// padding at 1 (modeling code: position_ids.masked_fill_(attention_mask == 0, 1)).
std::vector<double> positions_of(const std::vector<int>& keep, std::size_t N, std::size_t T) {
  std::vector<double> p(N * T);
  for (std::size_t n = 0; n < N; ++n) {
    double seen = 0;
    for (std::size_t t = 0; t < T; ++t) {
      seen += keep[n * T + t];
      p[n * T + t] = keep[n * T + t] ? seen - 1 : 1;
    }
  }
  return p;
}

}  // namespace

TEST_CASE("transformer block: every configuration == float64 (transformers' layers), as given and packed",
          "[models][transformer_block]") {
  std::mt19937 rng(20240801);
  for (const Case& k : cases)
    for (bool packed : {false, true})
      for (bool padded : {false, true}) {
        CAPTURE(k.name, packed, padded);
        const aw::BlockConfig& c = k.config;
        const std::size_t N = 2, T = 7, D = c.hidden_size;
        const Params p = random_params(k, rng);
        std::vector<std::vector<float>> storage;
        const aw::BlockWeights w = block_weights(k, p, packed, storage);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::vector<float> x(N * T * D);
        for (float& v : x) v = normal(rng);
        // row 1: two padding tokens, at the start for causal blocks (left padding), else at the end
        std::vector<int> keep(N * T, 1);
        if (padded) keep[c.causal ? T : 2 * T - 1] = keep[c.causal ? T + 1 : 2 * T - 2] = 0;
        const std::vector<double> positions = positions_of(keep, N, T);
        const Vec want = block_test::block64(c, p.w64, Vec(x.begin(), x.end()), N, T, positions, keep, k.theta);

        std::vector<float> cos, sin;
        if (c.rotary) rotary_tables(positions, c.head_dim, k.theta, cos, sin);
        const std::vector<float> mask = padding_mask(keep, N, T, T);
        const aw::TensorRef mask_ref{mask.data(), {std::int64_t(N), 1, 1, std::int64_t(T)}};
        aw::BlockInput in;
        in.batch = N, in.length = T;
        in.mask = padded ? &mask_ref : nullptr;
        in.rotary_cos = cos.data(), in.rotary_sin = sin.data();
        in.output_attentions = true;
        aw::BlockScratch scratch = aw::allocate_block_scratch(c, N, T, "test");
        const aw::Tensor weights = aw::transformer_block(c, w, in, scratch, x.data());
        check_rows(x.data(), want.data(), N * T, D, keep, "output");
        // the attention weights: rows sum to 1; the future and padding keys get 0
        REQUIRE(weights.shape ==
                aw::Shape{std::int64_t(N), std::int64_t(c.num_heads), std::int64_t(T), std::int64_t(T)});
        for (std::size_t n = 0; n < N; ++n)
          for (std::size_t h = 0; h < c.num_heads; ++h)
            for (std::size_t i = 0; i < T; ++i) {
              if (!keep[n * T + i]) continue;
              double sum = 0;
              for (std::size_t j = 0; j < T; ++j) {
                const float v = weights.data[((n * c.num_heads + h) * T + i) * T + j];
                if ((c.causal && j > i) || !keep[n * T + j]) CHECK(v == 0.0f);
                sum += v;
              }
              CHECK(std::fabs(sum - 1.0) < 1e-5);
            }
      }
}

TEST_CASE("transformer block: the KV cache -- prefill, one token, two tokens -- gives the full forward's rows",
          "[models][transformer_block]") {
  std::mt19937 rng(20240802);
  for (const Case& k : cases) {
    const aw::BlockConfig& c = k.config;
    if (!c.causal) continue;
    for (bool padded : {false, true}) {
      CAPTURE(k.name, padded);
      const std::size_t N = 2, T = 10, D = c.hidden_size, Dh = c.head_dim, Hkv = c.num_kv_heads;
      const Params p = random_params(k, rng);
      std::vector<std::vector<float>> storage;
      const aw::BlockWeights w = block_weights(k, p, true, storage);
      std::normal_distribution<float> normal(0.0f, 1.0f);
      std::vector<float> x(N * T * D);
      for (float& v : x) v = normal(rng);
      std::vector<int> keep(N * T, 1);
      if (padded) keep[T] = keep[T + 1] = keep[T + 2] = 0;  // row 1 left-padded by 3
      const std::vector<double> positions = positions_of(keep, N, T);
      const Vec want = block_test::block64(c, p.w64, Vec(x.begin(), x.end()), N, T, positions, keep, k.theta);

      // the cache: (N, Hkv, capacity, Dh) keys and values, capacity T + 3 (not filled to the end)
      const std::size_t capacity = T + 3;
      std::vector<float> keys(N * Hkv * capacity * Dh, NAN), values(keys.size(), NAN);
      aw::KvCacheLayer cache{keys.data(), values.data(), capacity, 0};
      // the steps: tokens [0, 5), 5, 6, 7, [8, 10)
      const std::pair<std::size_t, std::size_t> steps[] = {{0, 5}, {5, 6}, {6, 7}, {7, 8}, {8, 10}};
      for (const auto& [begin, end] : steps) {
        CAPTURE(begin, end);
        const std::size_t L = end - begin, S = end;
        std::vector<float> xs(N * L * D);
        std::vector<double> pos(N * L);
        for (std::size_t n = 0; n < N; ++n)
          for (std::size_t l = 0; l < L; ++l) {
            std::copy_n(x.data() + (n * T + begin + l) * D, D, xs.data() + (n * L + l) * D);
            pos[n * L + l] = positions[n * T + begin + l];
          }
        std::vector<float> cos, sin;
        if (c.rotary) rotary_tables(pos, Dh, k.theta, cos, sin);
        const std::vector<float> mask = padding_mask(keep, N, T, S);
        const aw::TensorRef mask_ref{mask.data(), {std::int64_t(N), 1, 1, std::int64_t(S)}};
        aw::BlockInput in;
        in.batch = N, in.length = L;
        in.mask = padded ? &mask_ref : nullptr;
        in.rotary_cos = cos.data(), in.rotary_sin = sin.data();
        aw::BlockScratch scratch = aw::allocate_block_scratch(c, N, L, "test");
        aw::transformer_block(c, w, in, scratch, xs.data(), &cache);
        cache.length += L;
        // the reference's rows of these tokens
        Vec want_rows(N * L * D);
        std::vector<int> check(N * L);
        for (std::size_t n = 0; n < N; ++n)
          for (std::size_t l = 0; l < L; ++l) {
            std::copy_n(want.data() + (n * T + begin + l) * D, D, want_rows.data() + (n * L + l) * D);
            check[n * L + l] = keep[n * T + begin + l];
          }
        check_rows(xs.data(), want_rows.data(), N * L, D, check, "cached step");
      }
      // the rows past the length were never written
      for (std::size_t n = 0; n < N; ++n)
        for (std::size_t h = 0; h < Hkv; ++h)
          for (std::size_t r = T; r < capacity; ++r) CHECK(std::isnan(keys[((n * Hkv + h) * capacity + r) * Dh]));
    }
  }
}

TEST_CASE("transformer block: batch-first and sequence-first token rows give the same result",
          "[models][transformer_block]") {
  // nn.TransformerEncoderLayer's (L, N, E) layout reads the same rows in another order
  std::mt19937 rng(20240803);
  const Case& k = cases[1];
  const aw::BlockConfig& c = k.config;
  const std::size_t N = 3, L = 5, D = c.hidden_size;
  const Params p = random_params(k, rng);
  std::vector<std::vector<float>> storage;
  const aw::BlockWeights w = block_weights(k, p, false, storage);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> batch_first(N * L * D), seq_first(N * L * D);
  for (float& v : batch_first) v = normal(rng);
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t l = 0; l < L; ++l)
      std::copy_n(batch_first.data() + (n * L + l) * D, D, seq_first.data() + (l * N + n) * D);
  aw::BlockInput in;
  in.batch = N, in.length = L;
  aw::BlockScratch scratch = aw::allocate_block_scratch(c, N, L, "test");
  aw::transformer_block(c, w, in, scratch, batch_first.data());
  in.order = aw::TokenOrder::SequenceFirst;
  aw::transformer_block(c, w, in, scratch, seq_first.data());
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t d = 0; d < D; ++d) CHECK(seq_first[(l * N + n) * D + d] == batch_first[(n * L + l) * D + d]);
}
