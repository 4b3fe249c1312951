// MultiheadAttention's forward as named steps:
//   check the parameters, inputs and masks -> project q, k, v over all tokens, laid out by head
//   (N, H, L|S, Dh) -> merge the masks into one additive mask -> one SDPA call (ops/attention)
//   -> merge the heads and project out -> the weights, averaged over heads or per head.
#include "ops/multihead_attention.hpp"

#include <algorithm>
#include <limits>

#include "core/error.hpp"
#include "ops/attention.hpp"
#include "ops/attention_heads.hpp"
#include "ops/attention_mask.hpp"
#include "ops/linalg.hpp"

namespace aw {
namespace {

// The sizes of a call. Unbatched inputs count as one batch of N = 1.
struct MhaShape {
  std::int64_t E = 0, H = 0, Dh = 0, kdim = 0, vdim = 0;  // embed_dim, num_heads, head_dim
  std::int64_t N = 1, L = 0, S = 0;
  bool batched = false, batch_first = false;
};

// The in projection: q (E, E), k (E, kdim), v (E, vdim) weights; (E) biases or nullptr.
struct InProjection {
  const float *wq = nullptr, *wk = nullptr, *wv = nullptr, *bq = nullptr, *bk = nullptr, *bv = nullptr;
};

void expect_shape(const TensorRef* t, const Shape& want, const std::string& name, const std::string& fn) {
  if (t && t->shape != want)
    fail(ErrorKind::Shape,
         fn + ": parameter " + name + " must have shape " + shape_str(want) + ", got " + shape_str(t->shape));
}

// E, H and the in projection from the parameters, each checked against the others.
MhaShape check_parameters(const MhaParams& p, const MhaOptions& opt, InProjection& w) {
  const std::string& fn = opt.names.function;
  MhaShape s;
  s.H = opt.num_heads;
  if (s.H < 1 || s.H > kMaxElements)  // bounded so that N * num_heads cannot overflow
    fail(ErrorKind::Range, fn + ": " + api_name("num_heads") + " must be in [1, " + std::to_string(kMaxElements) +
                               "], got " + std::to_string(s.H));
  const Shape out_w = weight_shape(p.out_proj_weight, p.out_proj_weight_q8);
  if (out_w.size() != 2 || out_w[0] != out_w[1])
    fail(ErrorKind::Shape, fn + ": parameter out_proj.weight must be a square (E, E) matrix, got " +
                               (out_w.empty() ? std::string("none") : shape_str(out_w)));
  s.E = s.kdim = s.vdim = out_w[0];
  if (s.E % s.H != 0)
    fail(ErrorKind::Range, fn + ": " + api_name("embed_dim") + " " + std::to_string(s.E) + " must be divisible by " +
                               api_name("num_heads") + " " + std::to_string(s.H));
  s.Dh = s.E / s.H;
  const std::int64_t E = s.E;
  if (p.in_proj_weight) {  // one packed (3E, E) weight
    expect_shape(p.in_proj_weight, {3 * E, E}, "in_proj_weight", fn);
    w.wq = p.in_proj_weight->data;
    w.wk = w.wq + E * E;
    w.wv = w.wk + E * E;
  } else {  // three separate ones (kdim, vdim may differ)
    if (!p.q_proj_weight || !p.k_proj_weight || !p.v_proj_weight)
      fail(ErrorKind::Shape, fn + ": needs in_proj_weight or all of q_proj_weight, k_proj_weight, v_proj_weight");
    expect_shape(p.q_proj_weight, {E, E}, "q_proj_weight", fn);
    auto expect_rows = [&](const TensorRef* t, const std::string& name, const std::string& dim) {
      if (t->shape.size() != 2 || t->shape[0] != E)
        fail(ErrorKind::Shape, fn + ": parameter " + name + " must have shape (E, " + dim + ") = [" +
                                   std::to_string(E) + ", " + dim + "], got " + shape_str(t->shape));
    };
    expect_rows(p.k_proj_weight, "k_proj_weight", "kdim");
    expect_rows(p.v_proj_weight, "v_proj_weight", "vdim");
    s.kdim = p.k_proj_weight->shape[1];
    s.vdim = p.v_proj_weight->shape[1];
    w.wq = p.q_proj_weight->data;
    w.wk = p.k_proj_weight->data;
    w.wv = p.v_proj_weight->data;
  }
  expect_shape(p.in_proj_bias, {3 * E}, "in_proj_bias", fn);
  expect_shape(p.out_proj_bias, {E}, "out_proj.bias", fn);
  if (p.in_proj_bias) {
    w.bq = p.in_proj_bias->data;
    w.bk = w.bq + E;
    w.bv = w.bq + 2 * E;
  }
  return s;
}

// N, L, S from query (L, N, E) / (N, L, E) / (L, E), key and value, checked against E, kdim, vdim.
void check_inputs(const TensorRef& query, const TensorRef& key, const TensorRef& value, const MhaOptions& opt,
                  MhaShape& s) {
  const std::string& fn = opt.names.function;
  const Shape &qs = query.shape, &ks = key.shape, &vs = value.shape;
  const std::string shapes = describe_qkv(query, key, value);
  if (qs.size() != 2 && qs.size() != 3)
    fail(ErrorKind::Shape, fn + ": query must be (L, E) unbatched or (L, N, E) / (N, L, E) batched, got " + shapes);
  if (ks.size() != qs.size() || vs.size() != qs.size())
    fail(ErrorKind::Shape,
         fn + ": query, key and value must all be batched (3-D) or all unbatched (2-D), got " + shapes);
  s.batched = qs.size() == 3;
  s.batch_first = s.batched && opt.batch_first;
  const std::size_t len_dim = s.batch_first ? 1 : 0, batch_dim = s.batch_first ? 0 : 1;  // of a batched input
  s.L = qs[len_dim];
  s.S = ks[len_dim];
  s.N = s.batched ? qs[batch_dim] : 1;
  auto expect_last = [&](const Shape& shape, const std::string& name, std::int64_t want, const std::string& what) {
    if (shape.back() != want)
      fail(ErrorKind::Shape,
           fn + ": " + name + "'s last dimension must be " + what + " " + std::to_string(want) + ", got " + shapes);
  };
  expect_last(qs, "query", s.E, api_name("embed_dim"));
  expect_last(ks, "key", s.kdim, "kdim");
  expect_last(vs, "value", s.vdim, "vdim");
  if (s.batched && (ks[batch_dim] != s.N || vs[batch_dim] != s.N))
    fail(ErrorKind::Shape, fn + ": query, key and value must have the same batch size N = " + std::to_string(s.N) +
                               (s.batch_first ? " (dim 0, " + api_name("batch_first") + ")" : " (dim 1)") + ", got " +
                               shapes);
  if (vs[len_dim] != s.S)
    fail(ErrorKind::Shape,
         fn + ": key and value must have the same sequence length S = " + std::to_string(s.S) + ", got " + shapes);
}

// The masks' shapes, exactly as torch checks them.
void check_masks(const MhaOptions& opt, const MhaShape& s, const std::string& shapes) {
  const std::string& fn = opt.names.function;
  const std::string &kpm_name = opt.names.key_padding_mask, &am_name = opt.names.attn_mask;
  if (opt.key_padding_mask_float && opt.key_padding_mask_bool)
    fail(ErrorKind::Type, fn + ": give one " + kpm_name + ", not two");
  if (opt.attn_mask_float && opt.attn_mask_bool) fail(ErrorKind::Type, fn + ": give one " + am_name + ", not two");
  const TensorRef* kpm_float = opt.key_padding_mask_float;
  const Shape* kpm = kpm_float                   ? &kpm_float->shape
                     : opt.key_padding_mask_bool ? &opt.key_padding_mask_bool->shape
                                                 : nullptr;
  const Shape* am = opt.attn_mask_float  ? &opt.attn_mask_float->shape
                    : opt.attn_mask_bool ? &opt.attn_mask_bool->shape
                                         : nullptr;
  if (kpm && *kpm != (s.batched ? Shape{s.N, s.S} : Shape{s.S}))
    fail(ErrorKind::Shape, fn + ": " + kpm_name + " must have shape " + (s.batched ? "(N, S) = " : "(S) = ") +
                               shape_str(s.batched ? Shape{s.N, s.S} : Shape{s.S}) + ", got " + shape_str(*kpm) +
                               " for " + shapes);
  const Shape two{s.L, s.S}, three{s.N * s.H, s.L, s.S};
  if (am && *am != two && *am != three)
    fail(ErrorKind::Shape, fn + ": " + am_name + " must have shape (L, S) = " + shape_str(two) + " or (" +
                               (s.batched ? "N*" : "") + api_name("num_heads") + ", L, S) = " + shape_str(three) +
                               ", got " + shape_str(*am) + " for " + shapes);
}

TokenOrder token_order(const MhaShape& s) { return s.batch_first ? TokenOrder::BatchFirst : TokenOrder::SequenceFirst; }

// x (rows in the input's own layout, in_features) W^T + b, laid out by head: (N, H, len, Dh).
Tensor project_to_heads(const TensorRef& x, const float* w, const float* b, std::int64_t in_features, std::int64_t len,
                        const MhaShape& s, const std::string& where) {
  const auto N = static_cast<std::size_t>(s.N), E = static_cast<std::size_t>(s.E),
             n_len = static_cast<std::size_t>(len);
  Tensor projected = make_uninitialised_tensor({s.N * len, s.E}, where);  // (rows, E)
  Tensor heads = make_uninitialised_tensor({s.N, s.H, len, s.Dh}, where);
  if (projected.data.empty()) return heads;
  linear_rows_parallel(x.data, w, b, projected.data.data(), N * n_len, static_cast<std::size_t>(in_features), E);
  split_heads(projected.data.data(), E, 0, token_order(s), n_len,
              {heads.data.data(), N, static_cast<std::size_t>(s.H), n_len, 0, static_cast<std::size_t>(s.Dh)});
  return heads;
}

// The heads of SDPA's output (N, H, L, Dh) side by side again, in the query's row layout
// (rows, E), then the out projection: output = concat_h(o_h) Wo^T + bo, shaped as the query.
Tensor out_projection(Tensor& attended, const MhaParams& p, const MhaShape& s, const Shape& query_shape,
                      const std::string& fn) {
  const auto N = static_cast<std::size_t>(s.N), E = static_cast<std::size_t>(s.E), L = static_cast<std::size_t>(s.L);
  Tensor merged = make_uninitialised_tensor({s.N * s.L, s.E}, fn + ": merged heads");
  merge_heads({attended.data.data(), N, static_cast<std::size_t>(s.H), L, 0, static_cast<std::size_t>(s.Dh)},
              token_order(s), L, merged.data.data(), E);
  Tensor output = make_uninitialised_tensor(query_shape, fn + ": output");
  linear(module_linear(p.out_proj_weight, p.out_proj_weight_q8, p.out_proj_bias), merged.data.data(),
         output.data.data(), N * L);
  return output;
}

// M = attn_mask + key_padding_mask (booleans: true -> -inf), as torch merges them, in the
// smallest form that broadcasts over SDPA's (N, H, L, S). With is_causal and a mask, the causal
// mask is folded in (-inf for j > i, whatever the masks hold there), since SDPA takes one or
// the other. None: ref.data is nullptr.
MergedMask merge_masks(const MhaOptions& opt, const MhaShape& s) {
  const std::string& fn = opt.names.function;
  MergedMask m;
  Tensor kpm_converted, am_converted;
  const TensorRef *kpm = opt.key_padding_mask_float, *am = opt.attn_mask_float;
  TensorRef kpm_ref, am_ref;
  if (opt.key_padding_mask_bool) {
    kpm_converted =
        additive_mask(*opt.key_padding_mask_bool, BoolMaskMeaning::Masked, fn + ": " + opt.names.key_padding_mask);
    kpm = &(kpm_ref = kpm_converted.ref());
  }
  if (opt.attn_mask_bool) {
    am_converted = additive_mask(*opt.attn_mask_bool, BoolMaskMeaning::Masked, fn + ": " + opt.names.attn_mask);
    am = &(am_ref = am_converted.ref());
  }
  if (!kpm && !am) return m;
  const bool per_head = am && am->shape.size() == 3;
  if (!opt.is_causal && !(kpm && am)) {  // one mask: read in place, only its shape for SDPA's broadcast
    m.storage = std::move(kpm ? kpm_converted : am_converted);
    m.ref.data = kpm ? kpm->data : am->data;
    m.ref.shape = kpm ? Shape{s.N, 1, 1, s.S} : per_head ? Shape{s.N, s.H, s.L, s.S} : Shape{s.L, s.S};
    return m;
  }
  const std::int64_t Hm = per_head ? s.H : 1;
  m.storage = make_uninitialised_tensor({s.N, Hm, s.L, s.S}, fn + ": merged mask");
  const auto N = static_cast<std::size_t>(s.N), H = static_cast<std::size_t>(Hm), L = static_cast<std::size_t>(s.L),
             S = static_cast<std::size_t>(s.S);
  float* out = m.storage.data.data();
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < L; ++i)
        for (std::size_t j = 0; j < S; ++j, ++out) {
          float v = am ? am->data[((per_head ? n * H + h : 0) * L + i) * S + j] : 0.0f;
          if (kpm) v = am ? v + kpm->data[n * S + j] : kpm->data[n * S + j];
          *out = opt.is_causal && j > i ? -std::numeric_limits<float>::infinity() : v;
        }
  m.ref = m.storage.ref();
  return m;
}

// SDPA's weights (N, H, L, S) as MultiheadAttention returns them: the mean over the heads
// (N, L, S), or per head; unbatched without N.
Tensor head_weights(Tensor weights, const MhaShape& s, bool average, const std::string& fn) {
  Shape shape;
  if (s.batched) shape.push_back(s.N);
  if (!average) shape.push_back(s.H);
  shape.push_back(s.L);
  shape.push_back(s.S);
  if (!average) {
    weights.shape = shape;
    return weights;
  }
  Tensor mean = make_tensor(shape, fn + ": weights");
  const std::size_t plane = static_cast<std::size_t>(s.L * s.S), H = static_cast<std::size_t>(s.H);
  for (std::size_t n = 0; n < static_cast<std::size_t>(s.N); ++n) {
    float* dst = mean.data.data() + n * plane;
    for (std::size_t h = 0; h < H; ++h) {
      const float* src = weights.data.data() + (n * H + h) * plane;
      for (std::size_t i = 0; i < plane; ++i) dst[i] += src[i];
    }
    for (std::size_t i = 0; i < plane; ++i) dst[i] /= static_cast<float>(H);
  }
  return mean;
}

}  // namespace

Shape weight_shape(const TensorRef* w, const QuantizedLinearWeight* w_q8) {
  return w_q8 ? w_q8->shape() : w ? w->shape : Shape{};
}

LinearWeight module_linear(const TensorRef* w, const QuantizedLinearWeight* w_q8, const TensorRef* b) {
  const Shape shape = weight_shape(w, w_q8);
  LinearWeight out;
  out.format = w_q8 ? LinearFormat::Q8 : LinearFormat::Rows;
  out.weight = w && !w_q8 ? w->data : nullptr;
  out.bias = b ? b->data : nullptr;
  out.out_features = static_cast<std::size_t>(shape[0]);
  out.in_features = static_cast<std::size_t>(shape[1]);
  out.q8 = w_q8;
  return out;
}

MergedMask check_multihead_attention(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                                     const MhaParams& p, const MhaOptions& opt) {
  InProjection w;
  MhaShape s = check_parameters(p, opt, w);
  check_inputs(query, key, value, opt, s);
  check_masks(opt, s, describe_qkv(query, key, value));
  return merge_masks(opt, s);
}

MhaResult multihead_attention(const TensorRef& query, const TensorRef& key, const TensorRef& value, const MhaParams& p,
                              const MhaOptions& opt) {
  const std::string& fn = opt.names.function;
  InProjection w;
  MhaShape s = check_parameters(p, opt, w);
  check_inputs(query, key, value, opt, s);
  check_masks(opt, s, describe_qkv(query, key, value));
  if (opt.need_weights)  // before any work: SDPA would allocate them
    checked_numel({s.N, s.H, s.L, s.S}, fn + ": weights");

  MhaResult r;
  if (s.N * s.L == 0 || s.E == 0) {  // nothing to attend with: zeros
    r.output = make_tensor(query.shape, fn + ": output");
    if (opt.need_weights)
      r.weights = head_weights(make_tensor({s.N, s.H, s.L, s.S}, fn + ": weights"), s, opt.average_attn_weights, fn);
    return r;
  }
  const Tensor q = project_to_heads(query, w.wq, w.bq, s.E, s.L, s, fn + ": projected query");
  const Tensor k = project_to_heads(key, w.wk, w.bk, s.kdim, s.S, s, fn + ": projected key");
  const Tensor v = project_to_heads(value, w.wv, w.bv, s.vdim, s.S, s, fn + ": projected value");
  const MergedMask mask = merge_masks(opt, s);

  SdpaOptions sdpa;  // scale: the default 1 / sqrt(head_dim)
  sdpa.float_mask = mask.ref.data ? &mask.ref : nullptr;
  sdpa.is_causal = opt.is_causal && !mask.ref.data;  // else folded into the mask
  sdpa.return_weights = opt.need_weights;
  sdpa.function = fn;
  SdpaResult attended = scaled_dot_product_attention(q.ref(), k.ref(), v.ref(), sdpa);

  r.output = out_projection(attended.output, p, s, query.shape, fn);
  if (opt.need_weights) r.weights = head_weights(std::move(attended.weights), s, opt.average_attn_weights, fn);
  return r;
}

}  // namespace aw
