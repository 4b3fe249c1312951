#include "ops/transformer_encoder_layer.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "kernels/activation.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/layer_norm.hpp"
#include "kernels/matmul.hpp"
#include "ops/linalg.hpp"

namespace aw {
namespace {

constexpr const char* kFn = "TransformerEncoderLayer.forward";

void expect(const TensorRef* t, const Shape& want, const std::string& name, bool required) {
  if (!t) {
    if (required) fail(ErrorKind::Shape, std::string(kFn) + ": parameter " + name + " is missing");
    return;
  }
  if (t->shape != want)
    fail(ErrorKind::Shape, std::string(kFn) + ": parameter " + name + " must have shape " + shape_str(want) + ", got " +
                               shape_str(t->shape));
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
  const TensorRef* out_w = p.self_attn.out_proj_weight;
  if (out_w && !out_w->shape.empty() && out_w->shape[0] != E)
    fail(ErrorKind::Shape, fn + ": src's last dimension must be " + api_name("d_model") + " " +
                               std::to_string(out_w->shape[0]) + ", got src " + shape_str(src.shape));
  if (!p.linear1_weight || p.linear1_weight->shape.size() != 2)
    fail(ErrorKind::Shape, fn + ": parameter linear1.weight must be (" + api_name("dim_feedforward") + ", " +
                               api_name("d_model") + "), got " +
                               (p.linear1_weight ? shape_str(p.linear1_weight->shape) : std::string("none")));
  const std::int64_t F = p.linear1_weight->shape[0];
  expect(p.linear1_weight, {F, E}, "linear1.weight", true);
  expect(p.linear1_bias, {F}, "linear1.bias", false);
  expect(p.linear2_weight, {E, F}, "linear2.weight", true);
  expect(p.linear2_bias, {E}, "linear2.bias", false);
  expect(p.norm1_weight, {E}, "norm1.weight", false);
  expect(p.norm1_bias, {E}, "norm1.bias", false);
  expect(p.norm2_weight, {E}, "norm2.weight", false);
  expect(p.norm2_bias, {E}, "norm2.bias", false);
  return F;
}

}  // namespace

Tensor transformer_encoder_layer(const TensorRef& src, const EncoderLayerParams& p, const EncoderLayerOptions& opt) {
  const std::string fn = kFn;
  const std::int64_t E = src.shape.empty() ? 0 : src.shape.back(), F = check_shapes(src, p);

  MhaOptions attn = opt.attn;  // self_attn(x, x, x, src_mask, src_key_padding_mask, is_causal)
  attn.need_weights = false;
  attn.names = {fn, api_name("src_key_padding_mask"), api_name("src_mask")};
  const std::size_t rows = checked_numel(src.shape, fn + ": src") / static_cast<std::size_t>(E > 0 ? E : 1);
  const auto uE = static_cast<std::size_t>(E), uF = static_cast<std::size_t>(F);

  Tensor x = make_tensor(src.shape, fn + ": output");
  std::copy(src.data, src.data + x.data.size(), x.data.begin());
  Tensor normed = make_tensor(src.shape, fn + ": normalised input");
  Tensor hidden = make_tensor({static_cast<std::int64_t>(rows), F}, fn + ": feed-forward hidden");
  Tensor ff = make_tensor(src.shape, fn + ": feed-forward output");

  // SA(in) added to x (x = x + SA(in)); the attention validates the mask and input shapes.
  auto self_attention_into_x = [&](const Tensor& in) {
    const MhaResult sa = multihead_attention(in.ref(), in.ref(), in.ref(), p.self_attn, attn);
    kernels::add(x.data.data(), 1, sa.output.data.data(), 1, x.data.data(), x.data.size());
  };
  // FF(in) added to x.
  auto feed_forward_into_x = [&](const Tensor& in) {
    linear_rows_parallel(in.data.data(), p.linear1_weight->data, data_or_null(p.linear1_bias), hidden.data.data(), rows,
                         uE, uF);
    if (opt.activation == Activation::Relu)
      kernels::relu(hidden.data.data(), hidden.data.data(), hidden.data.size());
    else
      kernels::gelu(hidden.data.data(), hidden.data.data(), hidden.data.size());
    linear_rows_parallel(hidden.data.data(), p.linear2_weight->data, data_or_null(p.linear2_bias), ff.data.data(), rows,
                         uF, uE);
    kernels::add(x.data.data(), 1, ff.data.data(), 1, x.data.data(), x.data.size());
  };
  auto norm = [&](const Tensor& in, Tensor& out, const TensorRef* w, const TensorRef* b) {
    kernels::layer_norm(in.data.data(), data_or_null(w), data_or_null(b), out.data.data(), rows, uE, opt.eps);
  };

  if (opt.norm_first) {
    norm(x, normed, p.norm1_weight, p.norm1_bias);  // x = x + SA(norm1(x))
    self_attention_into_x(normed);
    norm(x, normed, p.norm2_weight, p.norm2_bias);  // x = x + FF(norm2(x))
    feed_forward_into_x(normed);
  } else {
    self_attention_into_x(x);                  // x = norm1(x + SA(x))
    norm(x, x, p.norm1_weight, p.norm1_bias);  // (layer_norm may run in place)
    feed_forward_into_x(x);                    // x = norm2(x + FF(x))
    norm(x, x, p.norm2_weight, p.norm2_bias);
  }
  return x;
}

}  // namespace aw
