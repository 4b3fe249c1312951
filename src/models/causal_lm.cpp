// The causal forward as named steps: validate -> positions -> key padding mask -> embed -> rotary
// angles -> the block per layer (the cache's layer) -> base heads -> lm_head. See causal_lm.hpp.
#include "models/causal_lm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#include "core/error.hpp"
#include "kernels/elementwise.hpp"
#include "models/heads.hpp"
#include "models/input_ids.hpp"

namespace aw {
namespace {

std::string forward_fn() { return api_name("lm.forward"); }

// layers x batch x kv heads x capacity x head_dim, in int64 and saturating past kMaxElements
// (size_t is 32 bits in wasm: a product that wrapped would pass reserve's check)
std::int64_t cache_floats(const ModelConfig& c, std::size_t batch, std::size_t capacity) {
  std::int64_t n = 1;
  for (const std::int64_t d : {c.num_layers, static_cast<std::int64_t>(batch), c.num_kv_heads,
                               static_cast<std::int64_t>(capacity), c.head_dim})
    n = d > 0 && n > kMaxElements / d ? kMaxElements + 1 : n * d;
  return n;
}

void validate_input(const Model& model, const CausalInput& in, const CausalOptions& options, const KvCache* cache) {
  const ModelConfig& c = model.config();
  const std::string fn = forward_fn(), ids = api_name("input_ids");
  check_input_ids_shape(fn, in.batch, in.length);
  if (in.batch > kMaxElements / in.length)
    fail(ErrorKind::Range,
         fn + ": batch " + std::to_string(in.batch) + " x length " + std::to_string(in.length) + " is too large");
  // the logits (N, L or 1, V) are the largest output: refused here, before any layer runs
  const std::int64_t logit_rows = options.last_logits_only ? in.batch : in.batch * in.length;
  if (logit_rows > kMaxElements / c.vocab_size)
    fail(ErrorKind::Range, fn + ": the logits of batch " + std::to_string(in.batch) + " x length " +
                               std::to_string(options.last_logits_only ? 1 : in.length) + " x vocabulary " +
                               std::to_string(c.vocab_size) + " would have more than " + std::to_string(kMaxElements) +
                               " elements");
  const std::int64_t past = cache ? static_cast<std::int64_t>(cache->length()) : 0;
  if (cache && cache->model() != &model)
    fail(ErrorKind::Type, fn + ": " + api_name("cache") + " belongs to another model");
  if (cache && cache->batch() && cache->batch() != static_cast<std::size_t>(in.batch))
    fail(ErrorKind::Range, fn + ": " + api_name("cache") + " holds " + std::to_string(cache->batch()) + " sequences, " +
                               ids + " has " + std::to_string(in.batch));
  if (past + in.length > c.max_positions)
    fail(ErrorKind::Range, fn + ": " + (past ? std::to_string(past) + " cached + " : std::string()) +
                               std::to_string(in.length) + " tokens are more than the model's " +
                               api_name("max_position_embeddings") + " " + std::to_string(c.max_positions));
  check_input_ids(fn, in.input_ids, in.attention_mask, in.batch, in.length, c.vocab_size);
  const std::size_t n = static_cast<std::size_t>(in.batch * in.length);
  if (in.position_ids)
    for (std::size_t i = 0; i < n; ++i)
      if (in.position_ids[i] < 0 || in.position_ids[i] >= c.max_positions)
        fail(ErrorKind::Range, fn + ": " + api_name("position_ids") + token_at(i, in.length) + " = " +
                                   std::to_string(in.position_ids[i]) + " is not in [0, " +
                                   std::to_string(c.max_positions) + ")");
}

// position_ids (N, L): given, or cumsum(mask) - 1 over the cached and new tokens, 1 where the
// mask is 0 (generation/utils.py's prepare_inputs_for_generation).
std::vector<std::int32_t> positions_of(const CausalInput& in, const KvCache* cache) {
  const std::size_t N = static_cast<std::size_t>(in.batch), L = static_cast<std::size_t>(in.length);
  if (in.position_ids) return std::vector<std::int32_t>(in.position_ids, in.position_ids + N * L);
  std::vector<std::int32_t> p(N * L);
  for (std::size_t n = 0; n < N; ++n) {
    std::int64_t seen = cache && cache->batch() ? cache->seen(n) : 0;
    for (std::size_t l = 0; l < L; ++l) {
      const bool token = !in.attention_mask || in.attention_mask[n * L + l];
      seen += token;
      p[n * L + l] = token ? static_cast<std::int32_t>(seen - 1) : 1;
    }
  }
  return p;
}

// M (N, 1, 1, S): 0 for keys that are tokens, finfo(float32).min for padding, cached (the
// cache's mask) or new; empty when no key is padding.
Tensor key_padding_mask(const CausalInput& in, const KvCache* cache) {
  const std::size_t N = static_cast<std::size_t>(in.batch), L = static_cast<std::size_t>(in.length);
  const std::size_t P = cache ? cache->length() : 0, S = P + L;
  const auto is_token = [&](std::size_t n, std::size_t j) {
    if (j < P) return cache->mask()[n * cache->capacity() + j] != 0;
    return !in.attention_mask || in.attention_mask[n * L + j - P] != 0;
  };
  bool any = false;
  for (std::size_t n = 0; n < N && !any; ++n)
    for (std::size_t j = 0; j < S && !any; ++j) any = !is_token(n, j);
  if (!any) return {};
  Tensor m = make_uninitialised_tensor({in.batch, 1, 1, static_cast<std::int64_t>(S)}, forward_fn() + ": mask");
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t j = 0; j < S; ++j)
      m.data[n * S + j] = is_token(n, j) ? 0.0f : std::numeric_limits<float>::lowest();
  return m;
}

// x[n, l] = word[ids[n, l]] (+ position[p[n, l]])      (N*L, D)
void embed(const Model& model, const CausalInput& in, const std::vector<std::int32_t>& positions, float* x) {
  const ParameterLayout& p = model.layout();
  const std::size_t rows = static_cast<std::size_t>(in.batch * in.length),
                    D = static_cast<std::size_t>(model.config().hidden_size);
  const float* position =
      model.has(Param::PositionEmbeddings) ? model.parameter(p.global(Param::PositionEmbeddings)) : nullptr;
  for (std::size_t t = 0; t < rows; ++t) {
    model.word_embedding(in.input_ids[t], x + t * D);  // float32, or a q8 model's int8 row read back
    if (position) kernels::add(x + t * D, 1, position + static_cast<std::size_t>(positions[t]) * D, 1, x + t * D, D);
  }
}

// cos, sin (N*L, Dh / 2) of p * inv_freq, computed in float64 and rounded once.
void rotary_angles(const ModelConfig& c, const std::vector<std::int32_t>& positions, Tensor& cos, Tensor& sin) {
  const std::vector<double> inv_freq = rotary_inverse_frequencies(c);
  const std::size_t half = inv_freq.size();
  const auto i64 = [](std::size_t d) { return static_cast<std::int64_t>(d); };
  cos = make_uninitialised_tensor({i64(positions.size()), i64(half)}, forward_fn() + ": rotary cos");
  sin = make_uninitialised_tensor({i64(positions.size()), i64(half)}, forward_fn() + ": rotary sin");
  for (std::size_t t = 0; t < positions.size(); ++t)
    for (std::size_t i = 0; i < half; ++i) {
      const double angle = static_cast<double>(positions[t]) * inv_freq[i];
      cos.data[t * half + i] = static_cast<float>(std::cos(angle));
      sin.data[t * half + i] = static_cast<float>(std::sin(angle));
    }
}

Tensor copy_of(const float* x, const Shape& shape, const std::string& what) {
  Tensor c = make_uninitialised_tensor(shape, what);
  std::copy_n(x, c.data.size(), c.data.begin());
  return c;
}

}  // namespace

std::vector<double> rotary_inverse_frequencies(const ModelConfig& c) {
  const std::size_t half = static_cast<std::size_t>(c.head_dim / 2);
  const double Dh = static_cast<double>(c.head_dim);
  const RopeScaling& r = c.rope_scaling;
  const double pi = 3.14159265358979323846;
  std::vector<double> inv_freq(half);
  for (std::size_t i = 0; i < half; ++i) {
    double f = 1.0 / std::pow(c.rope_theta, static_cast<double>(2 * i) / Dh);  // 1 / theta^(2i / Dh)
    if (r.type == RopeType::Linear) f /= r.factor;
    if (r.type == RopeType::Llama3) {  // _compute_llama3_parameters
      const double wavelength = 2 * pi / f, low = r.original_max_positions / r.low_freq_factor,
                   high = r.original_max_positions / r.high_freq_factor;
      if (wavelength > low) {
        f /= r.factor;
      } else if (!(wavelength < high)) {
        const double smooth =
            (r.original_max_positions / wavelength - r.low_freq_factor) / (r.high_freq_factor - r.low_freq_factor);
        f = (1 - smooth) * f / r.factor + smooth * f;
      }
    }
    inv_freq[i] = f;
  }
  return inv_freq;
}

void KvCache::reserve(std::size_t batch, std::size_t total, const std::string& fn) {
  if (batch == batch_ && total <= capacity_) return;
  const ModelConfig& c = model_->config();
  const std::size_t P = static_cast<std::size_t>(c.max_positions);
  std::size_t capacity = std::max<std::size_t>({total, 2 * capacity_, 16});
  capacity = std::min(capacity, std::max(P, total));
  const std::int64_t cached = cache_floats(c, batch, capacity);
  if (cached > kMaxElements)
    fail(ErrorKind::Range, fn + ": a key/value cache of " + std::to_string(capacity) + " tokens x " +
                               std::to_string(batch) + " sequences would not fit in memory");
  AlignedVector<float> keys, values;
  std::vector<std::uint8_t> mask;
  const std::size_t floats = static_cast<std::size_t>(cached);
  try {
    keys.resize(floats);
    values.resize(floats);
    mask.assign(batch * capacity, 0);
  } catch (const std::exception&) {  // bad_alloc, or length_error past the vectors' max_size
    fail(ErrorKind::Range, fn + ": out of memory for a key/value cache of " + std::to_string(capacity) + " tokens");
  }
  // what it holds, head by head ((layers N Hkv) heads of capacity rows of Dh)
  const std::size_t heads = static_cast<std::size_t>(cache_floats(c, batch, 1) / c.head_dim),
                    Dh = static_cast<std::size_t>(c.head_dim);
  if (batch_ == batch)
    for (std::size_t h = 0; h < heads; ++h) {
      std::copy_n(keys_.data() + h * capacity_ * Dh, length_ * Dh, keys.data() + h * capacity * Dh);
      std::copy_n(values_.data() + h * capacity_ * Dh, length_ * Dh, values.data() + h * capacity * Dh);
    }
  for (std::size_t n = 0; n < batch && batch_ == batch; ++n)
    std::copy_n(mask_.data() + n * capacity_, length_, mask.data() + n * capacity);
  if (batch_ != batch) {
    length_ = 0;
    seen_.assign(batch, 0);
  }
  keys_ = std::move(keys), values_ = std::move(values), mask_ = std::move(mask);
  batch_ = batch, capacity_ = capacity;
}

KvCacheLayer KvCache::layer(std::size_t l) {
  const std::size_t per_layer =
      static_cast<std::size_t>(cache_floats(model_->config(), batch_, capacity_) / model_->config().num_layers);
  return {keys_.data() + l * per_layer, values_.data() + l * per_layer, capacity_, length_};
}

void KvCache::advance(std::size_t L, const std::uint8_t* new_mask) {
  for (std::size_t n = 0; n < batch_; ++n)
    for (std::size_t l = 0; l < L; ++l) {
      const std::uint8_t m = new_mask ? new_mask[n * L + l] : 1;
      mask_[n * capacity_ + length_ + l] = m;
      seen_[n] += m;
    }
  length_ += L;
}

void KvCache::clear() {
  keys_ = AlignedVector<float>(), values_ = AlignedVector<float>();
  mask_.clear(), seen_.clear();
  batch_ = length_ = capacity_ = 0;
}

namespace {

// The forward after validation (and the cache's reserve): the named steps of the header.
CausalOutput causal_forward_steps(const Model& model, const CausalInput& in, const CausalOptions& options,
                                  KvCache* cache, std::size_t lm_head) {
  const std::string fn = forward_fn(), state_copy = fn + ": " + api_name("hidden_states");
  const ModelConfig& c = model.config();
  const std::size_t N = static_cast<std::size_t>(in.batch), L = static_cast<std::size_t>(in.length),
                    D = static_cast<std::size_t>(c.hidden_size);

  const std::vector<std::int32_t> positions = positions_of(in, cache);
  const Tensor mask = key_padding_mask(in, cache);
  const TensorRef mask_ref = mask.ref();
  Tensor x = make_uninitialised_tensor({in.batch, in.length, c.hidden_size}, fn + ": hidden state");
  BlockScratch scratch = allocate_block_scratch(c.block, N, L, fn);
  Tensor cos, sin;
  BlockInput block_in;
  block_in.batch = N;
  block_in.length = L;
  block_in.mask = mask.data.empty() ? nullptr : &mask_ref;
  block_in.output_attentions = options.output_attentions;
  if (c.block.rotary) {
    rotary_angles(c, positions, cos, sin);
    block_in.rotary_cos = cos.data.data();
    block_in.rotary_sin = sin.data.data();
  }

  CausalOutput out;
  embed(model, in, positions, x.data.data());
  for (std::int64_t layer = 0; layer < c.num_layers; ++layer) {
    if (options.output_hidden_states) out.hidden_states.push_back(copy_of(x.data.data(), x.shape, state_copy));
    KvCacheLayer cache_layer;
    if (cache) cache_layer = cache->layer(static_cast<std::size_t>(layer));
    Tensor weights = transformer_block(c.block, model.layer_weights(layer), block_in, scratch, x.data.data(),
                                       cache ? &cache_layer : nullptr);
    if (options.output_attentions) out.attentions.push_back(std::move(weights));
  }
  apply_base_heads(model, x.data.data(), N * L);
  if (options.output_hidden_states) out.hidden_states.push_back(copy_of(x.data.data(), x.shape, state_copy));

  if (options.last_logits_only) {
    Tensor last = make_uninitialised_tensor({in.batch, static_cast<std::int64_t>(D)}, fn + ": last tokens");
    for (std::size_t n = 0; n < N; ++n) std::copy_n(x.data.data() + (n * L + L - 1) * D, D, last.data.data() + n * D);
    out.logits = apply_head(model, lm_head, last.data.data(), N, fn);
    out.logits.shape = {in.batch, 1, c.vocab_size};
  } else {
    out.logits = apply_head(model, lm_head, x.data.data(), N * L, fn);
    out.logits.shape = {in.batch, in.length, c.vocab_size};
  }
  if (cache) cache->advance(L, in.attention_mask);
  return out;
}

}  // namespace

CausalOutput causal_forward(const Model& model, const CausalInput& in, const CausalOptions& options, KvCache* cache) {
  const std::string fn = forward_fn();
  const ModelConfig& c = model.config();
  validate_input(model, in, options, cache);
  std::size_t lm_head = 0;
  if (!find_head(model.architecture(), "lm_head", &lm_head) || !model.has_head(lm_head))
    fail(ErrorKind::Type, fn + ": " + c.model_type + " has no language-model head");
  if (!cache) return causal_forward_steps(model, in, options, nullptr, lm_head);
  // An empty cache takes its batch size here; if the forward then fails (out of memory) it is
  // emptied again, so that a failed forward leaves the cache as it was: unchanged or empty.
  const std::size_t batch_before = cache->batch();
  try {
    cache->reserve(static_cast<std::size_t>(in.batch), cache->length() + static_cast<std::size_t>(in.length), fn);
    return causal_forward_steps(model, in, options, cache, lm_head);
  } catch (...) {
    if (cache->batch() != batch_before) cache->clear();
    throw;
  }
}

}  // namespace aw
