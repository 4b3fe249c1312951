// The transformer block as named steps: norm -> attention (project q/k/v, split heads, rotary,
// the cache, SDPA, merge, project out) -> residual -> norm -> MLP -> residual. See
// transformer_block.hpp.
#include "models/transformer_block.hpp"

#include <algorithm>
#include <optional>

#include "kernels/activation.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/layer_norm.hpp"
#include "kernels/rms_norm.hpp"
#include "kernels/rotary.hpp"
#include "ops/attention.hpp"

namespace aw {
namespace {

// out = Norm(in): the block's norm over rows of D. out may be in.
void normalize(const BlockConfig& c, const NormWeights& w, const float* in, float* out, std::size_t rows) {
  normalize(c.norm, w, c.norm_eps, in, out, rows, c.hidden_size);
}

// Where one of q, k, v lies after the projections: row r of the projection at data + r * stride + column.
struct Projected {
  const float* data;
  std::size_t stride, column;
};

// q, k, v = x W_{q,k,v}^T + b: one product with the fused weight (the three side by side in each
// row of scratch.qkv), or three (one after the other in scratch.qkv).
void project_qkv(const BlockConfig& c, const BlockWeights& w, const float* x, std::size_t rows, BlockScratch& s,
                 Projected out[3]) {
  const std::size_t Q = c.query_width(), K = c.key_value_width();
  float* qkv = s.qkv.data.data();
  if (w.qkv.present()) {
    linear(w.qkv, x, qkv, rows);
    const std::size_t width = Q + 2 * K;
    out[0] = {qkv, width, 0}, out[1] = {qkv, width, Q}, out[2] = {qkv, width, Q + K};
  } else {
    float *q = qkv, *k = q + rows * Q, *v = k + rows * K;
    linear(w.q, x, q, rows);
    linear(w.k, x, k, rows);
    linear(w.v, x, v, rows);
    out[0] = {q, Q, 0}, out[1] = {k, K, 0}, out[2] = {v, K, 0};
  }
}

// q (or k) = rope(q): each head's rows [first, first + L) rotated by the angles of token (n, l).
void rotate_heads(const BlockConfig& c, const BlockInput& in, const HeadMatrices& heads) {
  const std::size_t half = c.head_dim / 2;
  for (std::size_t n = 0; n < heads.N; ++n)
    for (std::size_t h = 0; h < heads.H; ++h)
      kernels::rotary_embedding(heads.data + ((n * heads.H + h) * heads.rows + heads.first) * c.head_dim,
                                in.rotary_cos + n * in.length * half, in.rotary_sin + n * in.length * half, in.length,
                                half);
}

// context = softmax(q k^T / sqrt(Dh) + M) v over the heads (N, H, L, Dh), merged into
// scratch.context (N L, H Dh). With a cache, k and v are its first S rows. Returns the weights
// when asked for.
Tensor self_attention(const BlockConfig& c, const BlockInput& in, const float* x, const BlockWeights& w,
                      BlockScratch& s, KvCacheLayer* cache) {
  const std::size_t N = in.batch, L = in.length, rows = N * L;
  Projected p[3];
  project_qkv(c, w, x, rows, s, p);

  // split into heads: q into scratch.q; k and v into the cache after what it holds, or scratch.k/v
  const HeadMatrices q{s.q.data.data(), N, c.num_heads, L, 0, c.head_dim};
  const HeadMatrices k = cache
                             ? HeadMatrices{cache->keys, N, c.num_kv_heads, cache->capacity, cache->length, c.head_dim}
                             : HeadMatrices{s.k.data.data(), N, c.num_kv_heads, L, 0, c.head_dim};
  HeadMatrices v = k;
  v.data = cache ? cache->values : s.v.data.data();
  split_heads(p[0].data, p[0].stride, p[0].column, in.order, L, q);
  split_heads(p[1].data, p[1].stride, p[1].column, in.order, L, k);
  split_heads(p[2].data, p[2].stride, p[2].column, in.order, L, v);
  if (c.rotary) {
    rotate_heads(c, in, q);
    rotate_heads(c, in, k);
  }

  // SDPA over S = cached + new keys; grouped-query heads read key/value head h / (H / Hkv)
  const std::size_t S = k.first + L;
  const auto i64 = [](std::size_t d) { return static_cast<std::int64_t>(d); };
  const TensorRef q_ref{q.data, {i64(N), i64(c.num_heads), i64(L), i64(c.head_dim)}};
  const TensorRef k_ref{k.data, {i64(N), i64(c.num_kv_heads), i64(S), i64(c.head_dim)}};
  const TensorRef v_ref{v.data, {i64(N), i64(c.num_kv_heads), i64(S), i64(c.head_dim)}};
  SdpaOptions options;
  options.float_mask = in.mask;
  options.causal_lower_right = c.causal;  // the new queries are the last L of the S positions
  options.key_value_capacity = k.rows;
  options.enable_gqa = c.num_kv_heads != c.num_heads;
  options.return_weights = in.output_attentions;
  SdpaResult r = scaled_dot_product_attention(q_ref, k_ref, v_ref, options);

  merge_heads({r.output.data.data(), N, c.num_heads, L, 0, c.head_dim}, in.order, L, s.context.data.data(),
              c.query_width());
  return std::move(r.weights);
}

// The int8 layer's epilogue form of an activation, where it has one.
std::optional<kernels::OutputActivation> output_activation(Activation act) {
  switch (act) {
    case Activation::Gelu:
      return kernels::OutputActivation::Gelu;
    case Activation::GeluTanh:
      return kernels::OutputActivation::GeluTanh;
    case Activation::Relu:
      return kernels::OutputActivation::Relu;
    case Activation::Silu:
      return std::nullopt;
  }
  return std::nullopt;
}

// y = act(x W^T + b): in an int8 layer's epilogue (on each tile's outputs while they are in the
// cache: the same kernels, the same bytes), after the product otherwise.
void linear_activated(const LinearWeight& w, Activation act, const float* x, float* y, std::size_t rows) {
  const std::optional<kernels::OutputActivation> fused = output_activation(act);
  if (w.format == LinearFormat::Q8 && fused) return quantized_linear_rows_parallel(x, *w.q8, w.bias, y, rows, *fused);
  linear(w, x, y, rows);
  activate(act, y, rows * w.out_features);
}

// scratch.projected = Mlp(x): act(x W_1^T + b_1) W_2^T + b_2, or (act(x W_gate^T) * x W_up^T) W_down^T
void mlp(const BlockConfig& c, const BlockWeights& w, const float* x, std::size_t rows, BlockScratch& s) {
  float* hidden = s.hidden.data.data();
  if (!c.gated_mlp) {
    linear_activated(w.mlp_in, c.activation, x, hidden, rows);
    linear(w.mlp_out, hidden, s.projected.data.data(), rows);
    return;
  }
  linear(w.mlp_in, x, hidden, rows);
  const std::size_t F = c.intermediate_size;
  float* gated = s.gated.data.data();
  for (std::size_t r = 0; r < rows; ++r) {
    float* gate = hidden + r * 2 * F;  // (F) then up (F)
    activate(c.activation, gate, F);
    kernels::mul(gate, 1, gate + F, 1, gated + r * F, F);
  }
  linear(w.mlp_out, gated, s.projected.data.data(), rows);
}

// x = x + y over rows of D, then the post-norm when the block has one.
void residual(const BlockConfig& c, const NormWeights& norm, float* x, const float* y, std::size_t rows) {
  kernels::add(x, 1, y, 1, x, rows * c.hidden_size);
  if (c.norm_placement == NormPlacement::Post) normalize(c, norm, x, x, rows);
}

// The sublayer's input: x itself (post-norm) or Norm(x) in scratch.normed (pre-norm).
const float* sublayer_input(const BlockConfig& c, const NormWeights& norm, const float* x, std::size_t rows,
                            BlockScratch& s) {
  if (c.norm_placement == NormPlacement::Post) return x;
  normalize(c, norm, x, s.normed.data.data(), rows);
  return s.normed.data.data();
}

}  // namespace

void normalize(NormKind norm, const NormWeights& w, float eps, const float* in, float* out, std::size_t rows,
               std::size_t width) {
  if (norm == NormKind::LayerNorm)
    kernels::layer_norm(in, w.weight, w.bias, out, rows, width, eps);
  else
    kernels::rms_norm(in, w.weight, out, rows, width, eps);
}

void activate(Activation act, float* x, std::size_t n) {
  switch (act) {
    case Activation::Gelu:
      return kernels::gelu(x, x, n);
    case Activation::GeluTanh:
      return kernels::gelu_tanh(x, x, n);
    case Activation::Relu:
      return kernels::relu(x, x, n);
    case Activation::Silu:
      return kernels::silu(x, x, n);
  }
}

BlockScratch allocate_block_scratch(const BlockConfig& c, std::size_t batch, std::size_t length,
                                    const std::string& fn) {
  const auto i64 = [](std::size_t d) { return static_cast<std::int64_t>(d); };
  const std::int64_t N = i64(batch), L = i64(length), rows = N * L, D = i64(c.hidden_size), Dh = i64(c.head_dim);
  BlockScratch s;
  if (c.norm_placement == NormPlacement::Pre) s.normed = make_uninitialised_tensor({rows, D}, fn + ": normed input");
  s.qkv = make_uninitialised_tensor({rows, i64(c.query_width() + 2 * c.key_value_width())},
                                    fn + ": query/key/value projections");
  s.q = make_uninitialised_tensor({N, i64(c.num_heads), L, Dh}, fn + ": query heads");
  s.k = make_uninitialised_tensor({N, i64(c.num_kv_heads), L, Dh}, fn + ": key heads");
  s.v = make_uninitialised_tensor({N, i64(c.num_kv_heads), L, Dh}, fn + ": value heads");
  s.context = make_uninitialised_tensor({rows, i64(c.query_width())}, fn + ": attention output");
  s.projected = make_uninitialised_tensor({rows, D}, fn + ": sublayer output");
  s.hidden = make_uninitialised_tensor({rows, i64(c.mlp_width())}, fn + ": feed-forward hidden layer");
  if (c.gated_mlp) s.gated = make_uninitialised_tensor({rows, i64(c.intermediate_size)}, fn + ": gated hidden layer");
  return s;
}

Tensor transformer_block(const BlockConfig& c, const BlockWeights& w, const BlockInput& in, BlockScratch& s, float* x,
                         KvCacheLayer* cache) {
  const std::size_t rows = in.batch * in.length;
  // x = x + Attention(x) W_o^T + b_o, normed before (pre) or after (post)
  Tensor weights = self_attention(c, in, sublayer_input(c, w.attention_norm, x, rows, s), w, s, cache);
  linear(w.out, s.context.data.data(), s.projected.data.data(), rows);
  residual(c, w.attention_norm, x, s.projected.data.data(), rows);
  // x = x + Mlp(x)
  mlp(c, w, sublayer_input(c, w.mlp_norm, x, rows, s), rows, s);
  residual(c, w.mlp_norm, x, s.projected.data.data(), rows);
  return weights;
}

}  // namespace aw
