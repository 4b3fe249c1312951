#include "ops/transformer_encoder_layer.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace aw {
namespace {

constexpr const char* kFn = "TransformerEncoderLayer.forward";

void expect_shape(const Shape* shape, const Shape& want, const std::string& name, bool required) {
  if (!shape) {
    if (required) fail(ErrorKind::Shape, std::string(kFn) + ": parameter " + name + " is missing");
    return;
  }
  if (*shape != want)
    fail(ErrorKind::Shape, std::string(kFn) + ": parameter " + name + " must have shape " + shape_str(want) + ", got " +
                               shape_str(*shape));
}

void expect(const TensorRef* t, const Shape& want, const std::string& name, bool required) {
  expect_shape(t ? &t->shape : nullptr, want, name, required);
}

// a float32 or int8 weight
void expect_weight(const TensorRef* t, const QuantizedLinearWeight* q8, const Shape& want, const std::string& name) {
  const Shape shape = weight_shape(t, q8);
  expect_shape(t || q8 ? &shape : nullptr, want, name, true);
}

const float* data_or_null(const TensorRef* t) { return t ? t->data : nullptr; }

// The feed-forward width F, with src and every parameter but self_attn's checked against E =
// d_model and F (self_attn's are checked by multihead_attention).
std::int64_t check_shapes(const TensorRef& src, const EncoderLayerParams& p) {
  const std::string fn = kFn;
  if (src.shape.size() != 2 && src.shape.size() != 3)
    fail(ErrorKind::Shape,
         fn + ": src must be (L, E) unbatched or (L, N, E) / (N, L, E) batched, got " + shape_str(src.shape));
  const std::int64_t E = src.shape.back();
  const Shape out_w = weight_shape(p.self_attn.out_proj_weight, p.self_attn.out_proj_weight_q8);
  if (!out_w.empty() && out_w[0] != E)
    fail(ErrorKind::Shape, fn + ": src's last dimension must be " + api_name("d_model") + " " +
                               std::to_string(out_w[0]) + ", got src " + shape_str(src.shape));
  const Shape w1 = weight_shape(p.linear1_weight, p.linear1_weight_q8);
  if (w1.size() != 2)
    fail(ErrorKind::Shape, fn + ": parameter linear1.weight must be (" + api_name("dim_feedforward") + ", " +
                               api_name("d_model") + "), got " + (w1.empty() ? std::string("none") : shape_str(w1)));
  const std::int64_t F = w1[0];
  expect_weight(p.linear1_weight, p.linear1_weight_q8, {F, E}, "linear1.weight");
  expect(p.linear1_bias, {F}, "linear1.bias", false);
  expect_weight(p.linear2_weight, p.linear2_weight_q8, {E, F}, "linear2.weight");
  expect(p.linear2_bias, {E}, "linear2.bias", false);
  expect(p.norm1_weight, {E}, "norm1.weight", false);
  expect(p.norm1_bias, {E}, "norm1.bias", false);
  expect(p.norm2_weight, {E}, "norm2.weight", false);
  expect(p.norm2_bias, {E}, "norm2.bias", false);
  return F;
}

// The block's weights: torch's tensors as they are (LinearFormat::Rows), in_proj_weight fused or
// the three separate projections, absent biases and norm parameters null (0 and 1).
BlockWeights block_weights(const EncoderLayerParams& p, std::int64_t E) {
  const auto uE = static_cast<std::size_t>(E);
  const MhaParams& a = p.self_attn;
  auto rows = [](const TensorRef* w, const float* bias, std::size_t out, std::size_t in) {
    return LinearWeight{LinearFormat::Rows, w ? w->data : nullptr, bias, out, in};
  };
  const float* in_bias = data_or_null(a.in_proj_bias);
  BlockWeights w;
  if (a.in_proj_weight) {
    w.qkv = rows(a.in_proj_weight, in_bias, 3 * uE, uE);
  } else {  // kdim = vdim = E here: the layer attends to its own input
    w.q = rows(a.q_proj_weight, in_bias, uE, uE);
    w.k = rows(a.k_proj_weight, in_bias ? in_bias + uE : nullptr, uE, uE);
    w.v = rows(a.v_proj_weight, in_bias ? in_bias + 2 * uE : nullptr, uE, uE);
  }
  // out_proj, linear1 and linear2 may be int8 (A.quantize'd A.Linear weights)
  w.out = module_linear(a.out_proj_weight, a.out_proj_weight_q8, a.out_proj_bias);
  w.mlp_in = module_linear(p.linear1_weight, p.linear1_weight_q8, p.linear1_bias);
  w.mlp_out = module_linear(p.linear2_weight, p.linear2_weight_q8, p.linear2_bias);
  w.attention_norm = {data_or_null(p.norm1_weight), data_or_null(p.norm1_bias)};
  w.mlp_norm = {data_or_null(p.norm2_weight), data_or_null(p.norm2_bias)};
  return w;
}

}  // namespace

Tensor transformer_encoder_layer(const TensorRef& src, const EncoderLayerParams& p, const EncoderLayerOptions& opt) {
  const std::string fn = kFn;
  const std::int64_t E = src.shape.empty() ? 0 : src.shape.back(), F = check_shapes(src, p);

  MhaOptions attn = opt.attn;  // self_attn(x, x, x, src_mask, src_key_padding_mask, is_causal)
  attn.need_weights = false;
  attn.names = {fn, api_name("src_key_padding_mask"), api_name("src_mask")};
  if (opt.activation != Activation::Relu && opt.activation != Activation::Gelu)
    fail(ErrorKind::Range, fn + ": activation must be relu or gelu");
  // MultiheadAttention's checks, and its additive mask (is_causal folded in when there is one)
  const MergedMask mask = check_multihead_attention(src, src, src, p.self_attn, attn);

  Tensor x = make_tensor(src.shape, fn + ": output");
  std::copy(src.data, src.data + x.data.size(), x.data.begin());
  const bool batched = src.shape.size() == 3;
  const std::int64_t N = batched ? src.shape[attn.batch_first ? 0 : 1] : 1;
  const std::int64_t L = src.shape[batched && attn.batch_first ? 1 : 0];
  if (N * L == 0) return x;

  BlockConfig c;
  c.hidden_size = static_cast<std::size_t>(E);
  c.num_heads = c.num_kv_heads = static_cast<std::size_t>(attn.num_heads);
  c.head_dim = c.hidden_size / c.num_heads;
  c.intermediate_size = static_cast<std::size_t>(F);
  c.norm = NormKind::LayerNorm;
  c.norm_placement = opt.norm_first ? NormPlacement::Pre : NormPlacement::Post;
  c.norm_eps = opt.eps;
  c.activation = opt.activation;
  c.causal = attn.is_causal && !mask.ref.data;  // else folded into the mask

  BlockInput in;
  in.batch = static_cast<std::size_t>(N);
  in.length = static_cast<std::size_t>(L);
  in.order = batched && !attn.batch_first ? TokenOrder::SequenceFirst : TokenOrder::BatchFirst;
  in.mask = mask.ref.data ? &mask.ref : nullptr;
  BlockScratch scratch = allocate_block_scratch(c, in.batch, in.length, fn);
  transformer_block(c, block_weights(p, E), in, scratch, x.data.data());
  return x;
}

}  // namespace aw
