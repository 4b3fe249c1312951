#include "ops/multihead_attention.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "kernels/attention.hpp"
#include "kernels/matmul.hpp"
#include "ops/linalg.hpp"

namespace aw {
namespace {

constexpr const char* kFn = "MultiheadAttention.forward";

std::string describe(const TensorRef& q, const TensorRef& k, const TensorRef& v) {
  return "query " + shape_str(q.shape) + ", key " + shape_str(k.shape) + ", value " + shape_str(v.shape);
}

void expect_shape(const TensorRef* t, const Shape& want, const std::string& name) {
  if (t && t->shape != want)
    fail(ErrorKind::Shape, std::string(kFn) + ": parameter " + name + " must have shape " + shape_str(want) +
                               ", got " + shape_str(t->shape));
}

// Row of token (n, l) in a (L, N, F) / (N, L, F) / (L, F) tensor viewed as (rows, F).
struct RowLayout {
  std::size_t N, L;
  bool batch_first;
  std::size_t operator()(std::size_t n, std::size_t l) const { return batch_first ? n * L + l : l * N + n; }
};

}  // namespace

MhaResult multihead_attention(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                              const MhaParams& p, const MhaOptions& opt) {
  const std::string fn = kFn;
  const std::int64_t H = opt.num_heads;
  if (H < 1 || H > kMaxElements)  // bounded so that N * num_heads below cannot overflow
    fail(ErrorKind::Range, fn + ": num_heads must be in [1, " + std::to_string(kMaxElements) + "], got " + std::to_string(H));
  if (!p.out_proj_weight || p.out_proj_weight->shape.size() != 2 ||
      p.out_proj_weight->shape[0] != p.out_proj_weight->shape[1])
    fail(ErrorKind::Shape, fn + ": parameter out_proj.weight must be a square (E, E) matrix, got " +
                               (p.out_proj_weight ? shape_str(p.out_proj_weight->shape) : std::string("none")));
  const std::int64_t E = p.out_proj_weight->shape[0];
  if (E % H != 0)
    fail(ErrorKind::Range, fn + ": embed_dim " + std::to_string(E) + " must be divisible by num_heads " +
                               std::to_string(H));
  const std::int64_t Dh = E / H;

  // In projection: one packed (3E, E) weight, or three separate ones (kdim, vdim may differ).
  std::int64_t kdim = E, vdim = E;
  const float *wq, *wk, *wv;
  if (p.in_proj_weight) {
    expect_shape(p.in_proj_weight, {3 * E, E}, "in_proj_weight");
    wq = p.in_proj_weight->data;
    wk = wq + E * E;
    wv = wk + E * E;
  } else {
    if (!p.q_proj_weight || !p.k_proj_weight || !p.v_proj_weight)
      fail(ErrorKind::Shape, fn + ": needs in_proj_weight or all of q_proj_weight, k_proj_weight, v_proj_weight");
    expect_shape(p.q_proj_weight, {E, E}, "q_proj_weight");
    if (p.k_proj_weight->shape.size() != 2 || p.k_proj_weight->shape[0] != E)
      fail(ErrorKind::Shape, fn + ": parameter k_proj_weight must have shape (E, kdim) = [" + std::to_string(E) +
                                 ", kdim], got " + shape_str(p.k_proj_weight->shape));
    if (p.v_proj_weight->shape.size() != 2 || p.v_proj_weight->shape[0] != E)
      fail(ErrorKind::Shape, fn + ": parameter v_proj_weight must have shape (E, vdim) = [" + std::to_string(E) +
                                 ", vdim], got " + shape_str(p.v_proj_weight->shape));
    kdim = p.k_proj_weight->shape[1];
    vdim = p.v_proj_weight->shape[1];
    wq = p.q_proj_weight->data;
    wk = p.k_proj_weight->data;
    wv = p.v_proj_weight->data;
  }
  expect_shape(p.in_proj_bias, {3 * E}, "in_proj_bias");
  expect_shape(p.out_proj_bias, {E}, "out_proj.bias");
  const float* bq = p.in_proj_bias ? p.in_proj_bias->data : nullptr;
  const float* bk = bq ? bq + E : nullptr;
  const float* bv = bq ? bq + 2 * E : nullptr;

  // Inputs: (L, N, E) / (N, L, E) batched, (L, E) unbatched.
  const Shape &qs = query.shape, &ks = key.shape, &vs = value.shape;
  const std::string shapes = describe(query, key, value);
  if (qs.size() != 2 && qs.size() != 3)
    fail(ErrorKind::Shape, fn + ": query must be (L, E) unbatched or (L, N, E) / (N, L, E) batched, got " + shapes);
  if (ks.size() != qs.size() || vs.size() != qs.size())
    fail(ErrorKind::Shape, fn + ": query, key and value must all be batched (3-D) or all unbatched (2-D), got " + shapes);
  const bool batched = qs.size() == 3;
  const bool bf = batched && opt.batch_first;
  const std::int64_t L = batched ? (bf ? qs[1] : qs[0]) : qs[0];
  const std::int64_t N = batched ? (bf ? qs[0] : qs[1]) : 1;
  const std::int64_t S = batched ? (bf ? ks[1] : ks[0]) : ks[0];
  const std::int64_t kN = batched ? (bf ? ks[0] : ks[1]) : 1, vN = batched ? (bf ? vs[0] : vs[1]) : 1;
  const std::int64_t vS = batched ? (bf ? vs[1] : vs[0]) : vs[0];
  if (qs.back() != E)
    fail(ErrorKind::Shape, fn + ": query's last dimension must be embed_dim " + std::to_string(E) + ", got " + shapes);
  if (ks.back() != kdim)
    fail(ErrorKind::Shape, fn + ": key's last dimension must be kdim " + std::to_string(kdim) + ", got " + shapes);
  if (vs.back() != vdim)
    fail(ErrorKind::Shape, fn + ": value's last dimension must be vdim " + std::to_string(vdim) + ", got " + shapes);
  if (kN != N || vN != N)
    fail(ErrorKind::Shape, fn + ": query, key and value must have the same batch size N = " + std::to_string(N) +
                               (bf ? " (dim 0, batch_first)" : " (dim 1)") + ", got " + shapes);
  if (vS != S)
    fail(ErrorKind::Shape, fn + ": key and value must have the same sequence length S = " + std::to_string(S) +
                               ", got " + shapes);

  // Masks: exact shapes, as torch checks them.
  if (opt.key_padding_mask_float && opt.key_padding_mask_bool)
    fail(ErrorKind::Type, fn + ": give one key_padding_mask, not two");
  if (opt.attn_mask_float && opt.attn_mask_bool) fail(ErrorKind::Type, fn + ": give one attn_mask, not two");
  const Shape* kpm_shape = opt.key_padding_mask_float ? &opt.key_padding_mask_float->shape
                           : opt.key_padding_mask_bool ? &opt.key_padding_mask_bool->shape
                                                       : nullptr;
  const Shape* am_shape = opt.attn_mask_float ? &opt.attn_mask_float->shape
                          : opt.attn_mask_bool ? &opt.attn_mask_bool->shape
                                               : nullptr;
  if (kpm_shape) {
    const Shape want = batched ? Shape{N, S} : Shape{S};
    if (*kpm_shape != want)
      fail(ErrorKind::Shape, fn + ": key_padding_mask must have shape " + std::string(batched ? "(N, S) = " : "(S) = ") +
                                 shape_str(want) + ", got " + shape_str(*kpm_shape) + " for " + shapes);
  }
  bool am_per_head = false;
  if (am_shape) {
    const Shape two{L, S}, three{N * H, L, S};
    am_per_head = *am_shape == three;
    if (*am_shape != two && !am_per_head)
      fail(ErrorKind::Shape, fn + ": attn_mask must have shape (L, S) = " + shape_str(two) + " or (" +
                                 std::string(batched ? "N*num_heads" : "num_heads") + ", L, S) = " + shape_str(three) +
                                 ", got " + shape_str(*am_shape) + " for " + shapes);
  }

  // Results.
  MhaResult r;
  r.output = make_tensor(qs, fn + ": output");
  if (opt.need_weights) {
    Shape ws;
    if (batched) ws.push_back(N);
    if (!opt.average_attn_weights) ws.push_back(H);
    ws.push_back(L);
    ws.push_back(S);
    r.weights = make_tensor(ws, fn + ": weights");
  }
  const auto uN = static_cast<std::size_t>(N), uL = static_cast<std::size_t>(L), uS = static_cast<std::size_t>(S),
             uE = static_cast<std::size_t>(E), uH = static_cast<std::size_t>(H), uDh = static_cast<std::size_t>(Dh);
  const std::size_t q_rows = uN * uL, kv_rows = uN * uS;
  if (q_rows == 0 || uE == 0) return r;

  // In projection over all tokens at once: (rows, F) W^T -> (rows, E).
  Tensor qp = make_tensor({N * L, E}, fn + ": projected query");
  Tensor kp = make_tensor({N * S, E}, fn + ": projected key");
  Tensor vp = make_tensor({N * S, E}, fn + ": projected value");
  linear_rows_parallel(query.data, wq, bq, qp.data.data(), q_rows, uE, uE);
  if (kv_rows) {
    linear_rows_parallel(key.data, wk, bk, kp.data.data(), kv_rows, static_cast<std::size_t>(kdim), uE);
    linear_rows_parallel(value.data, wv, bv, vp.data.data(), kv_rows, static_cast<std::size_t>(vdim), uE);
  }

  // One head at a time: gather (L, Dh) / (S, Dh) slices, attend, scatter into the merged heads.
  Tensor merged = make_tensor({N * L, E}, fn + ": merged heads");
  Tensor qh = make_tensor({L, Dh}, fn + ": head query"), kh = make_tensor({S, Dh}, fn + ": head key"),
         vh = make_tensor({S, Dh}, fn + ": head value"), oh = make_tensor({L, Dh}, fn + ": head output");
  Tensor wh = make_tensor({L, S}, fn + ": head weights");
  const bool masked = kpm_shape || am_shape;
  Tensor mask = make_tensor({masked ? L : 0, masked ? S : 0}, fn + ": merged mask");
  const RowLayout q_row{uN, uL, bf}, kv_row{uN, uS, bf};
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(Dh)));
  const float neg_inf = -std::numeric_limits<float>::infinity();

  for (std::size_t n = 0; n < uN; ++n) {
    for (std::size_t h = 0; h < uH; ++h) {
      const std::size_t col = h * uDh;
      for (std::size_t l = 0; l < uL; ++l)
        for (std::size_t d = 0; d < uDh; ++d) qh.data[l * uDh + d] = qp.data[q_row(n, l) * uE + col + d];
      for (std::size_t s = 0; s < uS; ++s)
        for (std::size_t d = 0; d < uDh; ++d) {
          kh.data[s * uDh + d] = kp.data[kv_row(n, s) * uE + col + d];
          vh.data[s * uDh + d] = vp.data[kv_row(n, s) * uE + col + d];
        }
      // M = attn_mask + key_padding_mask (booleans: true -> -inf), as torch merges them.
      if (masked) {
        const std::size_t am_off = am_per_head ? (n * uH + h) * uL * uS : 0;
        for (std::size_t i = 0; i < uL; ++i)
          for (std::size_t j = 0; j < uS; ++j) {
            float m = 0.0f;
            if (opt.attn_mask_float) m += opt.attn_mask_float->data[am_off + i * uS + j];
            if (opt.attn_mask_bool && opt.attn_mask_bool->data[am_off + i * uS + j]) m = neg_inf;
            if (opt.key_padding_mask_float) m += opt.key_padding_mask_float->data[n * uS + j];
            if (opt.key_padding_mask_bool && opt.key_padding_mask_bool->data[n * uS + j]) m = neg_inf;
            mask.data[i * uS + j] = m;
          }
      }
      if (uS > 0 && uDh > 0) {
        aw::scaled_dot_product_attention_head(qh.data.data(), kh.data.data(), vh.data.data(), oh.data.data(),
                                              wh.data.data(), uL, uS, uDh, uDh, scale,
                                              masked ? mask.data.data() : nullptr, static_cast<std::ptrdiff_t>(uS), 1,
                                              opt.is_causal);
      }
      for (std::size_t l = 0; l < uL; ++l)
        for (std::size_t d = 0; d < uDh; ++d) merged.data[q_row(n, l) * uE + col + d] = oh.data[l * uDh + d];
      if (opt.need_weights && uS > 0) {
        if (opt.average_attn_weights) {
          float* dst = r.weights.data.data() + n * uL * uS;
          for (std::size_t i = 0; i < uL * uS; ++i) dst[i] += wh.data[i];
        } else {
          float* dst = r.weights.data.data() + (n * uH + h) * uL * uS;
          for (std::size_t i = 0; i < uL * uS; ++i) dst[i] = wh.data[i];
        }
      }
    }
  }
  if (opt.need_weights && opt.average_attn_weights)
    for (auto& w : r.weights.data) w /= static_cast<float>(H);  // mean over heads

  // Out projection: (rows, E) Wo^T + bo, rows in the query's own layout.
  linear_rows_parallel(merged.data.data(), p.out_proj_weight->data, p.out_proj_bias ? p.out_proj_bias->data : nullptr,
             r.output.data.data(), q_rows, uE, uE);
  return r;
}

}  // namespace aw
