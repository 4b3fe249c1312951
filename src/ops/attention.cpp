// scaled_dot_product_attention as named steps:
//   check the inputs -> plan the heads (batch broadcast, GQA grouping) -> lay out the mask ->
//   allocate the results -> run the fused kernel (no weights to return) or the materialised one.
#include "ops/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "kernels/attention.hpp"
#include "kernels/flash_attention.hpp"
#include "kernels/matmul.hpp"
#include "ops/attention_mask.hpp"

namespace aw {
namespace {

// query (batch..., L, E), key (batch..., S, E), value (batch..., S, Ev)
struct Dims {
  std::size_t L, S, E, Ev;
};

// Which matrices each head reads: head h (a row-major index of the broadcast batch dims) is
// query matrix query_of[h], key matrix key_of[h] and value matrix value_of[h].
struct HeadPlan {
  Shape batch;  // the broadcast leading dims (..., Hq)
  std::size_t heads = 0;
  std::vector<std::size_t> query_of, key_of, value_of;
  std::size_t key_planes = 0;  // (S, E) matrices in key
};

// Where each head finds its (L, S) plane of the additive mask (none: data == nullptr).
struct MaskPlan {
  Tensor converted;  // a boolean mask as an additive one
  const float* data = nullptr;
  std::vector<std::size_t> plane_offset;  // per head
  std::ptrdiff_t row_stride = 0, col_stride = 0;
};

Dims check_inputs(const TensorRef& query, const TensorRef& key, const TensorRef& value, const SdpaOptions& opt) {
  const std::string& fn = opt.function;
  const Shape &q = query.shape, &k = key.shape, &v = value.shape;
  const std::string shapes = describe_qkv(query, key, value);
  if (q.size() < 2 || k.size() < 2 || v.size() < 2)
    fail(ErrorKind::Shape, fn + ": query, key and value need at least 2 dimensions (..., L, E), got " + shapes);
  const std::int64_t L = q[q.size() - 2], E = q.back(), S = k[k.size() - 2], Ev = v.back();
  if (k.back() != E)
    fail(ErrorKind::Shape,
         fn + ": key's last dimension must equal query's E = " + std::to_string(E) + ", got " + shapes);
  if (v[v.size() - 2] != S)
    fail(ErrorKind::Shape, fn + ": value must have the same sequence length S = " + std::to_string(S) +
                               " as key (dim -2), got " + shapes);
  if (opt.float_mask && opt.bool_mask) fail(ErrorKind::Type, fn + ": give one " + api_name("attn_mask") + ", not two");
  if (opt.is_causal && (opt.float_mask || opt.bool_mask))
    fail(ErrorKind::Shape,
         fn + ": " + api_name("attn_mask") + " and " + api_name("is_causal") + " cannot both be set (as in torch)");
  if (opt.causal_lower_right && (opt.is_causal || S < L))
    fail(ErrorKind::Shape, fn + ": the bottom-right causal mask needs no " + api_name("is_causal") +
                               " and at least as many keys as queries, got " + shapes);
  if (opt.key_value_capacity && opt.key_value_capacity < static_cast<std::size_t>(S))
    fail(ErrorKind::Shape, fn + ": key and value hold " + std::to_string(S) + " rows, more than their capacity " +
                               std::to_string(opt.key_value_capacity) + ", got " + shapes);
  return {static_cast<std::size_t>(L), static_cast<std::size_t>(S), static_cast<std::size_t>(E),
          static_cast<std::size_t>(Ev)};
}

// Leading dims broadcast as torch's; with enable_gqa the key heads Hk and the value heads Hv each
// divide the query heads Hq, and query head h reads key head h / (Hq / Hk) and value head
// h / (Hq / Hv) (aten's pre_process_group_query_attention_input repeats each so many times).
HeadPlan plan_heads(const TensorRef& query, const TensorRef& key, const TensorRef& value, const SdpaOptions& opt) {
  const std::string& fn = opt.function;
  const std::string shapes = describe_qkv(query, key, value);
  const Shape qb = leading_dims(query.shape, 2), kb = leading_dims(key.shape, 2), vb = leading_dims(value.shape, 2);
  std::int64_t key_group = 1, value_group = 1;  // query heads per key head, per value head
  if (opt.enable_gqa) {
    if (qb.empty() || kb.empty() || vb.empty())
      fail(ErrorKind::Shape, fn + ": " + api_name("enable_gqa") +
                                 " needs a heads dimension (..., H, L, E) in query, key and value, got " + shapes);
    const std::int64_t Hq = qb.back(), Hk = kb.back(), Hv = vb.back();
    const bool all_equal = Hq == Hk && Hk == Hv;  // as torch: nothing to repeat (0 heads too)
    if (!all_equal && (Hk == 0 || Hv == 0 || Hq % Hk != 0 || Hq % Hv != 0))
      fail(ErrorKind::Shape, fn + ": with " + api_name("enable_gqa") + " the query heads (" + std::to_string(Hq) +
                                 ") must be a multiple of the key heads (" + std::to_string(Hk) +
                                 ") and of the value heads (" + std::to_string(Hv) + "), got " + shapes);
    if (!all_equal) key_group = Hq / Hk, value_group = Hq / Hv;
  }
  // In the broadcast, key and value count their heads as query heads (each one `group` times).
  auto as_query_heads = [](Shape s, std::int64_t group) {
    if (group > 1) s.back() *= group;
    return s;
  };
  HeadPlan plan;
  const std::string where = fn + ": batch dims of " + shapes;
  plan.batch = broadcast_shapes(broadcast_shapes(qb, as_query_heads(kb, key_group), where),
                                as_query_heads(vb, value_group), where);
  plan.heads = 1;
  for (auto d : plan.batch) plan.heads *= static_cast<std::size_t>(d);
  plan.query_of = broadcast_offsets(plan.batch, qb);
  plan.key_of = broadcast_offsets(plan.batch, kb, key_group);
  plan.value_of = broadcast_offsets(plan.batch, vb, value_group);
  plan.key_planes = 1;
  for (auto d : kb) plan.key_planes *= static_cast<std::size_t>(d);
  return plan;
}

// (batch..., L, S): the shape of the weights, and what a mask must broadcast to.
Shape plane_shape(const Shape& batch, const Dims& d) {
  Shape s = batch;
  s.push_back(static_cast<std::int64_t>(d.L));
  s.push_back(static_cast<std::int64_t>(d.S));
  return s;
}

// The mask checked to broadcast to (batch..., L, S), a boolean one made additive (true takes
// part), with each head's plane and the strides inside a plane (0 where a dim is broadcast).
MaskPlan plan_mask(const SdpaOptions& opt, const Shape& batch, const Dims& d) {
  MaskPlan m;
  const Shape* shape = opt.float_mask ? &opt.float_mask->shape : opt.bool_mask ? &opt.bool_mask->shape : nullptr;
  if (!shape) return m;
  const Shape target = plane_shape(batch, d);
  const std::string what = opt.function + ": " + api_name("attn_mask") + " " + shape_str(*shape) +
                           " must broadcast to (N..., L, S) = " + shape_str(target);
  if (shape->size() > target.size() || broadcast_shapes(*shape, target, what) != target) fail(ErrorKind::Shape, what);
  if (opt.bool_mask) {
    m.converted =
        additive_mask(*opt.bool_mask, BoolMaskMeaning::TakesPart, opt.function + ": " + api_name("attn_mask"));
    m.data = m.converted.data.data();
  } else {
    m.data = opt.float_mask->data;
  }
  const std::int64_t rows = shape->size() >= 2 ? (*shape)[shape->size() - 2] : 1;
  const std::int64_t cols = shape->empty() ? 1 : shape->back();
  m.col_stride = cols == 1 && d.S != 1 ? 0 : 1;
  m.row_stride = rows == 1 && d.L != 1 ? 0 : cols;
  m.plane_offset = broadcast_offsets(batch, shape->size() > 2 ? leading_dims(*shape, 2) : Shape{});
  for (auto& o : m.plane_offset) o *= static_cast<std::size_t>(rows * cols);
  return m;
}

SdpaResult allocate_results(const Shape& batch, const Dims& d, const SdpaOptions& opt) {
  const std::string& fn = opt.function;
  Shape out_shape = batch;
  out_shape.push_back(static_cast<std::int64_t>(d.L));
  out_shape.push_back(static_cast<std::int64_t>(d.Ev));
  SdpaResult r;
  r.output = make_uninitialised_tensor(out_shape, fn + ": output");  // every row is written
  const Shape planes = plane_shape(batch, d);
  if (opt.return_weights || opt.return_intermediates) r.weights = make_tensor(planes, fn + ": weights");
  if (opt.return_intermediates) {
    r.scores = make_tensor(planes, fn + ": scores");
    r.scaled = make_tensor(planes, fn + ": scaled");
    r.masked = make_tensor(planes, fn + ": masked");
  }
  return r;
}

// One call's inputs, plans and results, and each head's views for the kernels.
struct Attention {
  const TensorRef &query, &key, &value;
  const Dims d;
  const HeadPlan& plan;
  const MaskPlan& mask;
  const bool causal;
  const std::size_t causal_offset;  // query i sees keys j <= i + causal_offset
  const std::size_t kv_rows;        // rows of each key and value matrix in memory (>= S)
  const float scale;
  SdpaResult& r;

  kernels::HeadView head(std::size_t h) const {
    return {query.data + plan.query_of[h] * d.L * d.E,
            key.data + plan.key_of[h] * kv_rows * d.E,
            value.data + plan.value_of[h] * kv_rows * d.Ev,
            r.output.data.data() + h * d.L * d.Ev,
            d.L,
            d.S,
            d.E,
            d.Ev};
  }
  kernels::MaskView mask_of(std::size_t h) const {
    return {mask.data ? mask.data + mask.plane_offset[h] : nullptr, mask.row_stride, mask.col_stride, causal,
            causal_offset};
  }
};

// task(i, worker) for i < count: over the thread pool, or on the calling thread.
template <class Task>
void run_tasks(std::size_t count, bool on_pool, const Task& task) {
  if (on_pool) return parallel_for(count, task);
  for (std::size_t i = 0; i < count; ++i) task(i, 0);
}

// Floats of memory `what` needs, or a Range error naming the call.
AlignedVector<float> allocate_scratch(std::size_t floats, const std::string& what, const std::string& fn,
                                      const Attention& a) {
  AlignedVector<float> scratch;
  try {
    scratch.resize(floats);
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::Range, fn + ": out of memory for " + what + ", got " + describe_qkv(a.query, a.key, a.value));
  }
  return scratch;
}

// Each (S, E) key matrix packed for the fused kernel once (planes shared by heads through GQA
// or broadcasting, once), when a head has several query tiles (each would pack every key tile
// again); empty when that memory cannot be had (which only costs the repacking).
AlignedVector<float> pack_keys_once(const Attention& a, std::size_t query_tiles, bool on_pool) {
  const std::uint64_t plane = kernels::flash_attention_packed_keys_size(a.d.S, a.d.E);
  AlignedVector<float> packed;
  if (query_tiles < 2 || a.d.E == 0 || plane * a.plan.key_planes > static_cast<std::uint64_t>(kMaxElements))
    return packed;
  try {
    packed.resize(static_cast<std::size_t>(plane) * a.plan.key_planes);
  } catch (const std::bad_alloc&) {
    return {};
  }
  run_tasks(a.plan.key_planes, on_pool, [&](std::size_t p, std::size_t) {
    kernels::flash_attention_pack_keys(a.key.data + p * a.kv_rows * a.d.E, packed.data() + p * plane, a.d.S, a.d.E);
  });
  return packed;
}

// The fused kernel, tasks of (head, query tile) taken from a shared counter, each with its
// thread's scratch: one tile per task so that the threads finish together when one core runs
// slower; a head's last tiles first, so that under causal (a tile's cost grows with its index)
// each head ends with its cheapest tiles; head by head, so that its keys and values stay in cache.
void run_fused(const Attention& a, const std::string& fn) {
  const std::size_t threads = thread_count();
  const std::size_t per_thread = static_cast<std::size_t>(kernels::flash_attention_scratch_size(a.d.E, a.d.Ev));
  AlignedVector<float> scratch = allocate_scratch(per_thread * threads, "the attention tiles", fn, a);
  // Small calls stay on the calling thread: waking the pool costs more (docs/performance.md, Threads).
  const double flops = 2.0 * static_cast<double>(a.plan.heads) * static_cast<double>(a.d.L) *
                       static_cast<double>(a.d.S) * static_cast<double>(a.d.E + a.d.Ev);
  const bool on_pool = threads > 1 && flops >= 64e6;
  const std::size_t tile = kernels::flash_attention_query_tile();
  const std::size_t tiles = (a.d.L + tile - 1) / tile;
  const AlignedVector<float> packed = pack_keys_once(a, tiles, on_pool);
  const std::uint64_t plane = kernels::flash_attention_packed_keys_size(a.d.S, a.d.E);
  run_tasks(a.plan.heads * tiles, on_pool, [&](std::size_t task, std::size_t worker) {
    const std::size_t h = task / tiles, row_begin = (tiles - 1 - task % tiles) * tile;
    const float* packed_keys = packed.empty() ? nullptr : packed.data() + a.plan.key_of[h] * plane;
    kernels::flash_attention_rows(a.head(h), a.mask_of(h), a.scale, row_begin, std::min(a.d.L, row_begin + tile),
                                  scratch.data() + worker * per_thread, packed_keys);
  });
}

// The steps one by one, for teaching: scores = Q K^T, scaled = scale * scores, masked = scaled + M.
void write_intermediates(const Attention& a, std::size_t h) {
  const kernels::HeadView head = a.head(h);
  const kernels::MaskView mask = a.mask_of(h);
  const std::size_t plane = h * a.d.L * a.d.S;
  float *scores = a.r.scores.data.data() + plane, *scaled = a.r.scaled.data.data() + plane,
        *masked = a.r.masked.data.data() + plane;
  kernels::matmul_transposed_b(head.q, head.k, scores, a.d.L, a.d.E, a.d.S);
  for (std::size_t i = 0; i < a.d.L; ++i)
    for (std::size_t j = 0; j < a.d.S; ++j) {
      const std::size_t ij = i * a.d.S + j;
      scaled[ij] = scores[ij] * a.scale;
      float m = mask.data ? mask.at(i, j) : 0.0f;
      if (mask.causal && j > i + mask.causal_offset) m = -std::numeric_limits<float>::infinity();
      masked[ij] = scaled[ij] + m;
    }
}

// The materialised kernel: one head per task when each head writes its own weights; with one
// shared (L, S) scratch (the forced path without weights) on the calling thread.
void run_materialised(const Attention& a, const SdpaOptions& opt) {
  const bool want_weights = opt.return_weights || opt.return_intermediates;
  AlignedVector<float> scratch;
  if (!want_weights) {
    // In int64: on wasm32 size_t would wrap (L = S = 65536 gives 0) and the kernel would write
    // far past a tiny scratch buffer.
    if (static_cast<std::int64_t>(a.d.L) * static_cast<std::int64_t>(a.d.S) > kMaxElements)
      fail(ErrorKind::Range, opt.function + ": the (L, S) = (" + std::to_string(a.d.L) + ", " + std::to_string(a.d.S) +
                                 ") score matrix is too large, got " + describe_qkv(a.query, a.key, a.value));
    scratch = allocate_scratch(a.d.L * a.d.S, "the (L, S) score matrix", opt.function, a);
  }
  run_tasks(a.plan.heads, want_weights, [&](std::size_t h, std::size_t) {
    float* weights = want_weights ? a.r.weights.data.data() + h * a.d.L * a.d.S : scratch.data();
    kernels::scaled_dot_product_attention_head(a.head(h), a.mask_of(h), a.scale, weights);
    if (opt.return_intermediates) write_intermediates(a, h);
  });
}

}  // namespace

SdpaResult scaled_dot_product_attention(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                                        const SdpaOptions& opt) {
  const Dims d = check_inputs(query, key, value, opt);
  const HeadPlan plan = plan_heads(query, key, value, opt);
  const MaskPlan mask = plan_mask(opt, plan.batch, d);
  SdpaResult r = allocate_results(plan.batch, d, opt);
  const bool want_weights = opt.return_weights || opt.return_intermediates;
  // Nothing to compute: zeros (a row with no keys attends to nothing). With Ev = 0 the weights
  // are still wanted when asked for.
  if (plan.heads == 0 || d.L == 0 || d.S == 0 || (d.Ev == 0 && !want_weights)) {
    std::fill(r.output.data.begin(), r.output.data.end(), 0.0f);
    return r;
  }
  const double scale = opt.scale ? *opt.scale : d.E > 0 ? 1.0 / std::sqrt(static_cast<double>(d.E)) : 1.0;
  const Attention a{query,
                    key,
                    value,
                    d,
                    plan,
                    mask,
                    opt.is_causal || opt.causal_lower_right,
                    opt.causal_lower_right ? d.S - d.L : 0,
                    opt.key_value_capacity ? opt.key_value_capacity : d.S,
                    static_cast<float>(scale),
                    r};
  // The fused kernel needs a few tiles of scratch per thread; a head dim so large that even they
  // would not fit takes the materialised path, whose (L, S) check then decides.
  const std::uint64_t fused_scratch = kernels::flash_attention_scratch_size(d.E, d.Ev) * thread_count();
  if (!want_weights && !opt.force_materialized && fused_scratch <= static_cast<std::uint64_t>(kMaxElements))
    run_fused(a, opt.function);
  else
    run_materialised(a, opt);
  return r;
}

}  // namespace aw
