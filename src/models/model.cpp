// The model's forward as named steps: validate the input -> embed -> the block per layer ->
// pool. See model.hpp.
#include "models/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <utility>

#include "core/error.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/layer_norm.hpp"
#include "kernels/matmul.hpp"
#include "models/heads.hpp"
#include "models/input_ids.hpp"

namespace aw {
namespace {

// Messages name the function and its arguments as transformers does (input_ids, attention_mask,
// token_type_ids), each through api_name: the JS bindings respell them (model.forward: inputIds,
// src/js/names.js).
std::string forward_fn() { return api_name("encoder.forward"); }

void validate_input(const Model& model, const EncoderInput& in) {
  const ModelConfig& c = model.config();
  const std::string fn = forward_fn(), ids = api_name("input_ids");
  check_input_ids_shape(fn, in.batch, in.length);
  if (in.length > c.max_positions)
    fail(ErrorKind::Range, fn + ": " + ids + " has sequence length " + std::to_string(in.length) +
                               ", longer than the model's " + api_name("max_position_embeddings") + " " +
                               std::to_string(c.max_positions));
  if (in.batch > kMaxElements / in.length)
    fail(ErrorKind::Range,
         fn + ": batch " + std::to_string(in.batch) + " x length " + std::to_string(in.length) + " is too large");
  check_input_ids(fn, in.input_ids, in.attention_mask, in.batch, in.length, c.vocab_size);
  const std::size_t n = static_cast<std::size_t>(in.batch * in.length);
  if (in.token_type_ids) {
    if (!model.has(Param::TokenTypeEmbeddings))
      fail(ErrorKind::Type, fn + ": " + api_name("token_type_ids") + " are not an input of " + c.model_type +
                                " (it has no token type embeddings)");
    for (std::size_t i = 0; i < n; ++i)
      if (in.token_type_ids[i] < 0 || in.token_type_ids[i] >= c.type_vocab_size)
        fail(ErrorKind::Range, fn + ": " + api_name("token_type_ids") + token_at(i, in.length) + " = " +
                                   std::to_string(in.token_type_ids[i]) + " is not in [0, " +
                                   std::to_string(c.type_vocab_size) + ")");
  }
}

// M (N, 1, 1, L): 0 where a key is a token, torch.finfo(float32).min where it is padding (as
// transformers: a fully masked row then weighs its keys equally instead of giving NaN). Empty
// when nothing is padding: the attention then reads no mask.
Tensor key_padding_mask(const EncoderInput& in) {
  const std::size_t n = static_cast<std::size_t>(in.batch * in.length);
  if (!in.attention_mask ||
      std::all_of(in.attention_mask, in.attention_mask + n, [](std::uint8_t m) { return m == 1; }))
    return {};
  Tensor m = make_uninitialised_tensor({in.batch, 1, 1, in.length}, forward_fn() + ": attention mask");
  for (std::size_t i = 0; i < n; ++i) m.data[i] = in.attention_mask[i] ? 0.0f : std::numeric_limits<float>::lowest();
  return m;
}

// x[n, l] = LayerNorm(word[ids[n, l]] + position[l] + token_type[types[n, l]])      (N*L, D)
void embed(const Model& model, const EncoderInput& in, float* x) {
  const ParameterLayout& p = model.layout();
  const std::size_t N = static_cast<std::size_t>(in.batch), L = static_cast<std::size_t>(in.length),
                    D = static_cast<std::size_t>(model.config().hidden_size);
  const float* position = model.parameter(p.global(Param::PositionEmbeddings));
  const bool types = model.has(Param::TokenTypeEmbeddings);
  const float* token_type = types ? model.parameter(p.global(Param::TokenTypeEmbeddings)) : nullptr;
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t l = 0; l < L; ++l) {
      const std::size_t t = n * L + l;
      float* row = x + t * D;
      model.word_embedding(in.input_ids[t], row);
      kernels::add(row, 1, position + l * D, 1, row, D);
      if (types) {  // token type 0 when none are given (transformers' buffered zeros)
        const std::size_t type = in.token_type_ids ? static_cast<std::size_t>(in.token_type_ids[t]) : 0;
        kernels::add(row, 1, token_type + type * D, 1, row, D);
      }
    }
  kernels::layer_norm(x, model.parameter(p.global(Param::EmbeddingNormWeight)),
                      model.parameter(p.global(Param::EmbeddingNormBias)), x, N * L, D,
                      static_cast<float>(model.config().norm_eps));
}

// BertPooler: tanh(x[:, 0] W_p^T + b_p)     (N, D)
Tensor pool(const Model& model, const float* x, std::size_t N, std::size_t L) {
  const ParameterLayout& p = model.layout();
  const std::string fn = forward_fn();
  const std::size_t D = static_cast<std::size_t>(model.config().hidden_size);
  const auto i64 = [](std::size_t d) { return static_cast<std::int64_t>(d); };
  Tensor first = make_uninitialised_tensor({i64(N), i64(D)}, fn + ": pooler input");
  for (std::size_t n = 0; n < N; ++n) std::copy_n(x + n * L * D, D, first.data.data() + n * D);
  Tensor out = make_uninitialised_tensor(first.shape, fn + ": pooler output");
  linear(model.linear_weight(p.global(Param::PoolerWeight), p.global(Param::PoolerBias), D, D), first.data.data(),
         out.data.data(), N);
  for (float& y : out.data) y = std::tanh(y);
  return out;
}

// output_logits: the model has a task head; positions only for a head on every token, each
// (n, l) inside the batch.
void validate_logits(const Model& model, const EncoderInput& in, const EncoderOptions& options) {
  const std::string fn = forward_fn();
  if (!options.output_logits) return;
  const std::size_t h = model.task_head();
  if (h == kNoSlot) fail(ErrorKind::Shape, fn + ": the model was loaded without a task head: no logits");
  const Head& head = model.architecture().heads[h];
  if (!options.positions) return;
  if (head.input != HeadInput::Tokens)
    fail(ErrorKind::Shape, fn + ": positions are for a head on every token; the " + head.name + " head reads " +
                               (head.input == HeadInput::Pooled ? "the pooler output" : "the first token"));
  if (options.position_count < 1 || options.position_count > static_cast<std::size_t>(in.batch * in.length))
    fail(ErrorKind::Range, fn + ": " + std::to_string(options.position_count) + " positions for a batch of " +
                               std::to_string(in.batch * in.length) + " tokens");
  for (std::size_t p = 0; p < options.position_count; ++p) {
    const std::int32_t n = options.positions[2 * p], l = options.positions[2 * p + 1];
    if (n < 0 || n >= in.batch || l < 0 || l >= in.length)
      fail(ErrorKind::Range, fn + ": positions[" + std::to_string(p) + "] = [" + std::to_string(n) + ", " +
                                 std::to_string(l) + "] is outside the batch [" + std::to_string(in.batch) + ", " +
                                 std::to_string(in.length) + "]");
  }
}

// The task head's logits (models/heads) on its input rows: every token's (N*L of D, or the P rows
// of `positions`), each sequence's first, or the pooler's output.
Tensor task_logits(const Model& model, const float* x, const EncoderInput& in, const EncoderOptions& options,
                   const Tensor& pooled) {
  const std::string fn = forward_fn();
  const std::size_t h = model.task_head();
  const Head& head = model.architecture().heads[h];
  const std::size_t N = static_cast<std::size_t>(in.batch), L = static_cast<std::size_t>(in.length),
                    D = static_cast<std::size_t>(model.config().hidden_size),
                    K = static_cast<std::size_t>(model.layout().steps[h].back().out);
  const auto i64 = [](std::size_t d) { return static_cast<std::int64_t>(d); };
  if (head.input == HeadInput::Pooled) {
    Tensor out = apply_head(model, h, pooled.data.data(), N, fn);
    out.shape = {i64(N), i64(K)};
    return out;
  }
  if (head.input == HeadInput::FirstToken || options.positions) {
    // the rows at (n, 0), or at the positions
    const std::size_t P = head.input == HeadInput::FirstToken ? N : options.position_count;
    Tensor rows = make_uninitialised_tensor({i64(P), i64(D)}, fn + ": head input");
    for (std::size_t p = 0; p < P; ++p) {
      std::size_t n = p, l = 0;
      if (head.input != HeadInput::FirstToken) {
        n = static_cast<std::size_t>(options.positions[2 * p]),
        l = static_cast<std::size_t>(options.positions[2 * p + 1]);
      }
      std::copy_n(x + (n * L + l) * D, D, rows.data.data() + p * D);
    }
    Tensor out = apply_head(model, h, rows.data.data(), P, fn);
    out.shape = {i64(P), i64(K)};
    return out;
  }
  Tensor out = apply_head(model, h, x, N * L, fn);
  out.shape = {i64(N), i64(L), i64(K)};
  return out;
}

Tensor copy_of(const Tensor& t, const std::string& what) {
  Tensor c = make_uninitialised_tensor(t.shape, what);
  std::copy(t.data.begin(), t.data.end(), c.data.begin());
  return c;
}

// The layout without the slots `dropped` (a q8 model's linear weights, held as int8 apart): the
// other parameters in their order, each at a cache line, the arena that much smaller.
void drop_from_arena(ParameterLayout& layout, const std::vector<bool>& dropped) {
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < layout.slots.size(); ++i)
    if (layout.slots[i].present && !dropped[i]) kept.push_back(i);
  std::sort(kept.begin(), kept.end(),
            [&](std::size_t a, std::size_t b) { return layout.slots[a].offset < layout.slots[b].offset; });
  std::size_t next = 0;
  for (std::size_t i : kept) {
    ParameterSlot& s = layout.slots[i];
    s.offset = next;
    std::size_t n = 1;
    for (auto d : s.shape) n *= static_cast<std::size_t>(d);
    next = (next + n + 15) / 16 * 16;
  }
  for (std::size_t i = 0; i < layout.slots.size(); ++i)
    if (dropped[i]) layout.slots[i].offset = 0;
  layout.arena_floats = next;
}

}  // namespace

Model::Model(const Architecture& architecture, const ModelConfig& config, bool with_optional, std::vector<bool> heads,
             ModelDtype dtype)
    : architecture_(&architecture),
      config_(config),
      layout_(parameter_layout(architecture, config, with_optional, std::move(heads))),
      dtype_(dtype) {
  check_parameter_floats(layout_);  // before anything is allocated (the plan was checked too)
  quantized_.resize(layout_.slots.size());
  if (dtype_ == ModelDtype::Q8) {
    std::vector<bool> q8(layout_.slots.size(), false);
    auto slots = linear_weights();
    const std::size_t words = layout_.global(Param::WordEmbeddings);  // int8 rows, read back per token
    if (std::none_of(slots.begin(), slots.end(), [&](const auto& s) { return s.first == words; }))
      slots.push_back({words, 0});  // (already there when a loaded head is tied to them)
    for (const auto& [slot, rows] : slots) {
      const ParameterSlot& s = layout_.slots[slot];
      quantized_[slot] = std::make_unique<QuantizedLinearWeight>(s.shape[0], s.shape[1], "model: " + s.name);
      q8[slot] = true;
    }
    drop_from_arena(layout_, q8);
  }
  try {
    arena_.resize(layout_.arena_floats);
  } catch (const std::exception&) {  // bad_alloc, or length_error past the vector's max_size
    fail(ErrorKind::Range,
         "model: out of memory allocating " + std::to_string(layout_.arena_floats * 4) + " bytes for the weights");
  }
}

Model::Model(const CheckpointPlan& plan, ModelDtype dtype)
    : Model(*plan.architecture, plan.config, plan.with_optional, plan.layout.heads, dtype) {}

std::size_t Model::resident_bytes() const {
  std::size_t bytes = arena_.size() * sizeof(float);
  for (const auto& q : quantized_)
    if (q) bytes += q->resident_bytes();
  return bytes;
}

std::size_t Model::task_head() const {
  for (std::size_t h = 0; h < layout_.heads.size(); ++h)
    if (layout_.heads[h] && !architecture_->heads[h].classes.empty()) return h;
  return kNoSlot;
}

std::vector<WeightTarget> Model::weight_targets(const std::vector<TensorRead>& reads) {
  std::vector<WeightTarget> targets;
  targets.reserve(reads.size());
  for (const TensorRead& r : reads) {
    WeightTarget t{r.name, r.dtype, r.begin, r.end, arena_.data() + r.offset, r.transposed, r.rows, r.cols};
    if (dtype_ == ModelDtype::Q8) {
      const ParameterSlot& s = layout_.slots[r.slot];
      const std::size_t cols = s.shape.size() == 2 ? static_cast<std::size_t>(s.shape[1]) : 1;
      t.dst = parameter(r.slot) + r.first_row * cols;      // the q8 layout's place
      if (QuantizedLinearWeight* q = quantized(r.slot)) {  // quantized as it streams in
        writers_.push_back(std::make_unique<QuantizedWeightWriter>(r.dtype, *q, r.name, r.transposed, r.first_row,
                                                                   r.transposed ? r.cols : r.rows));
        t.dst = nullptr;
        t.quantized = writers_.back().get();
      }
    }
    targets.push_back(std::move(t));
  }
  return targets;
}

// The linear layers' weights (N_out, N_in), and the rows of each (the query, key and value
// weights are one fused product).
std::vector<std::pair<std::size_t, std::size_t>> Model::linear_weights() const {
  const BlockConfig& b = config_.block;
  std::vector<std::pair<std::size_t, std::size_t>> weights;  // (slot, rows)
  for (std::int64_t l = 0; l < config_.num_layers; ++l) {
    weights.push_back({layout_.layer(l, Param::QkvWeight), b.query_width() + 2 * b.key_value_width()});
    weights.push_back({layout_.layer(l, Param::OutWeight), b.hidden_size});
    weights.push_back({layout_.layer(l, Param::MlpInWeight), b.mlp_width()});
    weights.push_back({layout_.layer(l, Param::MlpOutWeight), b.hidden_size});
  }
  if (has_pooler()) weights.push_back({layout_.global(Param::PoolerWeight), b.hidden_size});
  // the heads' Dense weights; a tied one is the word embeddings, packed once (word_embedding reads them)
  bool tied = false;
  for (std::size_t h = 0; h < layout_.heads.size(); ++h)
    if (layout_.heads[h])
      for (std::size_t i = 0; i < layout_.steps[h].size(); ++i)
        if (architecture_->heads[h].steps[i].op == HeadOp::Dense) {
          if (layout_.steps[h][i].weight != kNoSlot)
            weights.push_back({layout_.steps[h][i].weight, static_cast<std::size_t>(layout_.steps[h][i].out)});
          else
            tied = true;
        }
  if (tied) weights.push_back({layout_.global(Param::WordEmbeddings), static_cast<std::size_t>(config_.vocab_size)});
  return weights;
}

// Each linear weight (n, k), panel by panel in place: its rows t*P .. t*P + P - 1 copied out,
// then packed back into the same floats (kernels/matmul.hpp, linear_pack_weight).
void Model::pack_linear_weights() {
  if (packed_) return;
  const std::size_t P = kernels::linear_panel_width();
  std::vector<float> rows;
  for (const auto& [slot, n] : linear_weights()) {
    if (quantized(slot)) continue;  // int8, packed as it was written
    const std::size_t k = static_cast<std::size_t>(layout_.slots[slot].shape.back());
    rows.resize(P * k);
    float* w = parameter(slot);
    for (std::size_t t = 0; t + P <= n; t += P) {
      std::copy_n(w + t * k, P * k, rows.data());
      kernels::linear_pack_weight(rows.data(), w + t * k, P, k);
    }
  }
  writers_.clear();
  packed_ = true;
  const std::size_t words = layout_.global(Param::WordEmbeddings);
  for (const auto& [slot, n] : linear_weights()) tied_packed_ = tied_packed_ || (slot == words && !quantized(slot));
}

LinearWeight Model::linear_weight(std::size_t weight_slot, std::size_t bias_slot, std::size_t out,
                                  std::size_t in) const {
  LinearWeight w{packed_ ? LinearFormat::Packed : LinearFormat::Rows, nullptr, parameter_or_null(bias_slot), out, in};
  if (const QuantizedLinearWeight* q = quantized(weight_slot)) {
    w.format = LinearFormat::Q8;
    w.q8 = q;
  } else {
    w.weight = parameter(weight_slot);
  }
  return w;
}

BlockWeights Model::layer_weights(std::int64_t l) const {
  const BlockConfig& b = config_.block;
  const auto slot = [&](Param p) { return layout_.layer(l, p); };
  const auto weight = [&](Param w, Param bias, std::size_t out, std::size_t in) {
    return linear_weight(slot(w), slot(bias), out, in);
  };
  BlockWeights w;
  w.qkv = weight(Param::QkvWeight, Param::QkvBias, b.query_width() + 2 * b.key_value_width(), b.hidden_size);
  w.out = weight(Param::OutWeight, Param::OutBias, b.hidden_size, b.query_width());
  w.mlp_in = weight(Param::MlpInWeight, Param::MlpInBias, b.mlp_width(), b.hidden_size);
  w.mlp_out = weight(Param::MlpOutWeight, Param::MlpOutBias, b.hidden_size, b.intermediate_size);
  w.attention_norm = {parameter_or_null(slot(Param::AttentionNormWeight)),
                      parameter_or_null(slot(Param::AttentionNormBias))};
  w.mlp_norm = {parameter_or_null(slot(Param::MlpNormWeight)), parameter_or_null(slot(Param::MlpNormBias))};
  return w;
}

LinearWeight Model::head_dense(std::size_t h, std::size_t i) const {
  const HeadStepSlots& step = layout_.steps[h][i];
  const std::size_t out = static_cast<std::size_t>(step.out), in = static_cast<std::size_t>(step.in);
  const std::size_t word = layout_.global(Param::WordEmbeddings);
  if (step.weight == kNoSlot && !quantized(word))  // tied: the word embeddings (V, D), packed with the linear weights
    return {tied_packed_ ? LinearFormat::Packed : LinearFormat::Rows, parameter(word), parameter_or_null(step.bias),
            out, in};
  // its own weight, packed or int8; or tied to a q8 model's int8 word embeddings
  return linear_weight(step.weight == kNoSlot ? word : step.weight, step.bias, out, in);
}

NormWeights Model::head_norm(std::size_t h, std::size_t i) const {
  const HeadStepSlots& step = layout_.steps[h][i];
  return {parameter_or_null(step.weight), parameter_or_null(step.bias)};
}

EncoderOutput Model::forward(const EncoderInput& in, const EncoderOptions& options) const {
  const std::string fn = forward_fn(), state_copy = fn + ": " + api_name("hidden_states");
  if (!packed_) fail(ErrorKind::Shape, fn + ": the model's weights have not finished loading");
  if (config_.block.causal)
    fail(ErrorKind::Type, fn + ": " + config_.model_type + " is a causal language model (its forward is lm.forward)");
  validate_input(*this, in);
  validate_logits(*this, in, options);
  const std::size_t N = static_cast<std::size_t>(in.batch), L = static_cast<std::size_t>(in.length);
  Tensor x = make_uninitialised_tensor({in.batch, in.length, config_.hidden_size}, fn + ": hidden state");
  BlockScratch scratch = allocate_block_scratch(config_.block, N, L, fn);
  const Tensor mask = key_padding_mask(in);
  const TensorRef mask_ref = mask.ref();
  BlockInput block_in;
  block_in.batch = N;
  block_in.length = L;
  block_in.mask = mask.data.empty() ? nullptr : &mask_ref;  // (N, 1, 1, L) broadcast over heads and queries
  block_in.output_attentions = options.output_attentions;

  EncoderOutput out;
  embed(*this, in, x.data.data());
  if (options.output_hidden_states) out.hidden_states.push_back(copy_of(x, state_copy));
  for (std::int64_t layer = 0; layer < config_.num_layers; ++layer) {
    Tensor weights = transformer_block(config_.block, layer_weights(layer), block_in, scratch, x.data.data());
    if (options.output_attentions) out.attentions.push_back(std::move(weights));
    if (options.output_hidden_states) out.hidden_states.push_back(copy_of(x, state_copy));
  }
  if (has_pooler()) out.pooler_output = pool(*this, x.data.data(), N, L);
  if (options.output_logits) out.logits = task_logits(*this, x.data.data(), in, options, out.pooler_output);
  out.last_hidden_state = std::move(x);
  return out;
}

void Model::word_embedding(std::int32_t id, float* out) const {
  const std::size_t D = static_cast<std::size_t>(config_.hidden_size), V = static_cast<std::size_t>(config_.vocab_size),
                    j = static_cast<std::size_t>(id);
  const std::size_t slot = layout_.global(Param::WordEmbeddings);
  if (const QuantizedLinearWeight* q = quantized(slot)) {  // q8: the int8 row times its scale
    const float scale = q->scales[j];
    for (std::size_t p = 0; p < D; ++p)
      out[p] = scale * static_cast<float>(kernels::packed_weight_at(q->packed.data(), D, j, p));
    return;
  }
  const float* word = parameter(slot);
  const std::size_t P = kernels::linear_panel_width(), panels = V - V % P;
  if (!tied_packed_ || j >= panels)
    return static_cast<void>(std::copy_n(word + j * D, D, out));  // a row (or the tail's)
  const float* panel = word + (j - j % P) * D + j % P;            // packed[t P D + p P + x] = word[t P + x, p]
  for (std::size_t p = 0; p < D; ++p) out[p] = panel[p * P];
}

Tensor Model::word_embeddings(const std::int32_t* ids, std::size_t count) const {
  const std::string fn = api_name("word_embeddings");  // model.embeddings.word_embeddings(ids) in transformers
  for (std::size_t i = 0; i < count; ++i)
    if (ids[i] < 0 || ids[i] >= config_.vocab_size)
      fail(ErrorKind::Range, fn + ": ids[" + std::to_string(i) + "] = " + std::to_string(ids[i]) +
                                 " is not a token id in [0, " + std::to_string(config_.vocab_size) + ")");
  const std::int64_t D = config_.hidden_size;
  Tensor out = make_uninitialised_tensor({static_cast<std::int64_t>(count), D}, fn + ": result");
  for (std::size_t i = 0; i < count; ++i) word_embedding(ids[i], out.data.data() + i * static_cast<std::size_t>(D));
  return out;
}

}  // namespace aw
