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

namespace aw {
namespace {

constexpr const char* kFn = "scaled_dot_product_attention";

std::string describe(const TensorRef& q, const TensorRef& k, const TensorRef& v) {
  return "query " + shape_str(q.shape) + ", key " + shape_str(k.shape) + ", value " + shape_str(v.shape);
}

// A mask broadcast over (batch..., L, S): per batch index the offset of its (L, S) plane, and the
// strides inside the plane (0 where a dim is broadcast).
struct MaskLayout {
  const float* data = nullptr;
  std::vector<std::size_t> plane_offset;
  std::ptrdiff_t row_stride = 0, col_stride = 0;
};

MaskLayout layout_mask(const float* data, const Shape& mask, const Shape& batch, std::int64_t L, std::int64_t S) {
  MaskLayout m;
  m.data = data;
  const std::int64_t rows = mask.size() >= 2 ? mask[mask.size() - 2] : 1;
  const std::int64_t cols = mask.empty() ? 1 : mask.back();
  m.col_stride = cols == 1 && S != 1 ? 0 : 1;
  m.row_stride = rows == 1 && L != 1 ? 0 : cols;
  const std::size_t plane = static_cast<std::size_t>(rows * cols);
  m.plane_offset = broadcast_offsets(batch, mask.size() > 2 ? leading_dims(mask, 2) : Shape{});
  for (auto& o : m.plane_offset) o *= plane;
  return m;
}

}  // namespace

SdpaResult scaled_dot_product_attention(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                                        const SdpaOptions& opt) {
  const std::string fn = kFn;
  const Shape &q = query.shape, &k = key.shape, &v = value.shape;
  if (q.size() < 2 || k.size() < 2 || v.size() < 2)
    fail(ErrorKind::Shape, fn + ": query, key and value need at least 2 dimensions (..., L, E), got " +
                               describe(query, key, value));
  const std::int64_t L = q[q.size() - 2], E = q.back(), S = k[k.size() - 2], Ev = v.back();
  if (k.back() != E)
    fail(ErrorKind::Shape, fn + ": key's last dimension must equal query's E = " + std::to_string(E) + ", got " +
                               describe(query, key, value));
  if (v[v.size() - 2] != S)
    fail(ErrorKind::Shape, fn + ": value must have the same sequence length S = " + std::to_string(S) +
                               " as key (dim -2), got " + describe(query, key, value));
  if (opt.float_mask && opt.bool_mask) fail(ErrorKind::Type, fn + ": give one attn_mask, not two");
  if (opt.is_causal && (opt.float_mask || opt.bool_mask))
    fail(ErrorKind::Shape, fn + ": attn_mask and is_causal cannot both be set (as in torch)");

  Shape qb = leading_dims(q, 2), kb = leading_dims(k, 2), vb = leading_dims(v, 2);
  std::int64_t group = 1;
  if (opt.enable_gqa) {
    if (q.size() < 3 || k.size() < 3 || v.size() < 3)
      fail(ErrorKind::Shape, fn + ": enable_gqa needs a heads dimension (..., H, L, E) in query, key and value, got " +
                                 describe(query, key, value));
    const std::int64_t Hq = qb.back(), H = kb.back();
    if (vb.back() != H)
      fail(ErrorKind::Shape, fn + ": key and value must have the same number of heads, got " + describe(query, key, value));
    if (H == 0 || Hq % H != 0)
      fail(ErrorKind::Shape, fn + ": with enable_gqa the query heads (" + std::to_string(Hq) +
                                 ") must be a multiple of the key/value heads (" + std::to_string(H) + "), got " +
                                 describe(query, key, value));
    group = Hq / H;
    // For broadcasting the batch dims, key/value heads count as Hq; offsets map back with `group`.
    if (group > 1) kb.back() = vb.back() = Hq;
  }
  const std::string shapes = describe(query, key, value);
  Shape batch = broadcast_shapes(broadcast_shapes(qb, kb, fn + ": batch dims of " + shapes),
                                 vb, fn + ": batch dims of " + shapes);
  if (group > 1) kb.back() = vb.back() = qb.back() / group;

  Shape plane_target = batch;
  plane_target.push_back(L);
  plane_target.push_back(S);
  // Boolean masks become additive ones: true -> 0, false -> -inf.
  AlignedVector<float> bool_as_float;
  const float* mask_data = nullptr;
  const Shape* mask_shape = nullptr;
  if (opt.bool_mask) {
    const std::size_t n = checked_numel(opt.bool_mask->shape, fn + ": attn_mask");
    try {
      bool_as_float.resize(n);
    } catch (const std::bad_alloc&) {
      fail(ErrorKind::Range, fn + ": out of memory converting attn_mask " + shape_str(opt.bool_mask->shape));
    }
    for (std::size_t i = 0; i < n; ++i)
      bool_as_float[i] = opt.bool_mask->data[i] ? 0.0f : -std::numeric_limits<float>::infinity();
    mask_data = bool_as_float.data();
    mask_shape = &opt.bool_mask->shape;
  } else if (opt.float_mask) {
    mask_data = opt.float_mask->data;
    mask_shape = &opt.float_mask->shape;
  }
  if (mask_shape) {
    const std::string what = fn + ": attn_mask " + shape_str(*mask_shape) + " must broadcast to (N..., L, S) = " +
                             shape_str(plane_target);
    if (mask_shape->size() > plane_target.size()) fail(ErrorKind::Shape, what);
    if (broadcast_shapes(*mask_shape, plane_target, what) != plane_target) fail(ErrorKind::Shape, what);
  }

  Shape out_shape = batch;
  out_shape.push_back(L);
  out_shape.push_back(Ev);
  SdpaResult r;
  r.output = make_uninitialised_tensor(out_shape, fn + ": output");  // every row is written below
  const bool want_weights = opt.return_weights || opt.return_intermediates;
  if (want_weights) r.weights = make_tensor(plane_target, fn + ": weights");
  if (opt.return_intermediates) {
    r.scores = make_tensor(plane_target, fn + ": scores");
    r.scaled = make_tensor(plane_target, fn + ": scaled");
    r.masked = make_tensor(plane_target, fn + ": masked");
  }
  std::size_t heads = 1;
  for (auto d : batch) heads *= static_cast<std::size_t>(d);
  const auto uL = static_cast<std::size_t>(L), uS = static_cast<std::size_t>(S), uE = static_cast<std::size_t>(E),
             uEv = static_cast<std::size_t>(Ev);
  // Nothing to compute: zeros (a row with no keys attends to nothing). With Ev = 0 the weights
  // are still wanted when asked for.
  if (heads == 0 || uL == 0 || uS == 0 || (uEv == 0 && !want_weights)) {
    std::fill(r.output.data.begin(), r.output.data.end(), 0.0f);
    return r;
  }

  const float scale = static_cast<float>(opt.scale ? *opt.scale : (E > 0 ? 1.0 / std::sqrt(static_cast<double>(E)) : 1.0));
  const auto off_q = broadcast_offsets(batch, qb);
  const auto off_k = broadcast_offsets(batch, kb, group);
  const auto off_v = broadcast_offsets(batch, vb, group);
  MaskLayout mask;
  if (mask_shape) mask = layout_mask(mask_data, *mask_shape, batch, L, S);

  // Without weights to return, the fused kernel needs only a few tiles of scratch per thread;
  // otherwise (or when the materialised path is forced) the (L, S) weights of one head.
  // (A head dim so large that even the tiles would not fit takes the materialised path, whose
  // (L, S) check then decides.)
  const std::size_t threads = thread_count();
  const std::uint64_t fused_scratch = flash_attention_scratch_size(uE, uEv);
  const bool fused = !want_weights && !opt.force_materialized &&
                     fused_scratch * threads <= static_cast<std::uint64_t>(kMaxElements);
  AlignedVector<float> scratch;
  if (fused) {
    try {
      scratch.resize(static_cast<std::size_t>(fused_scratch) * threads);
    } catch (const std::bad_alloc&) {
      fail(ErrorKind::Range, fn + ": out of memory for the attention tiles, got " + shapes);
    }
  } else if (!want_weights) {
    // In int64: on wasm32 size_t would wrap (L = S = 65536 gives 0) and the kernel would write
    // far past a tiny scratch buffer.
    if (L * S > kMaxElements)
      fail(ErrorKind::Range, fn + ": the (L, S) = (" + std::to_string(L) + ", " + std::to_string(S) +
                                 ") score matrix is too large, got " + shapes);
    try {
      scratch.resize(uL * uS);
    } catch (const std::bad_alloc&) {
      fail(ErrorKind::Range, fn + ": out of memory for the (L, S) score matrix, got " + shapes);
    }
  }
  auto head_inputs = [&](std::size_t h) {
    struct {
      const float *q, *k, *v, *mask;
      float* out;
    } in{query.data + off_q[h] * uL * uE, key.data + off_k[h] * uS * uE, value.data + off_v[h] * uS * uEv,
         mask_shape ? mask.data + mask.plane_offset[h] : nullptr, r.output.data.data() + h * uL * uEv};
    return in;
  };

  if (fused) {
    // Tasks: (head, query tile), head by head, each with its thread's scratch, taken from a
    // shared counter. One tile per task so that the threads finish together even when one runs
    // slower (a busy core: with 8 tasks of 32 tiles at 8 x 2048, one thread often idled through
    // the last task), and a head's last tiles first: under causal a tile costs in proportion to
    // its index, so each head ends with its cheapest tiles. Head by head keeps a head's keys and
    // values in cache while its tiles run.
    // Small calls stay on one thread: waking the pool's threads took 0.1-0.5 ms here (wasm,
    // 2-core VM), so below ~64 MFLOP (~2 ms on one thread) threads were slower (1 x 128: 0.6x).
    const double flops = 4.0 * static_cast<double>(heads) * static_cast<double>(uL) * static_cast<double>(uS) *
                         static_cast<double>(uE + uEv) / 2.0;
    const std::size_t workers = flops < 64e6 ? 1 : threads;
    const std::size_t tile = flash_attention_query_tile();
    const std::size_t tiles = (uL + tile - 1) / tile;
    // With several query tiles per head, each would pack every key tile again: pack each key
    // plane once (the size of key with S rounded up to whole key tiles; planes shared by heads,
    // GQA or broadcast, once) unless that does not fit, which only costs the repacking.
    std::size_t key_planes = 1;  // (S, E) planes in key: its leading dims
    for (auto d : kb) key_planes *= static_cast<std::size_t>(d);
    const std::uint64_t packed_plane = flash_attention_packed_keys_size(uS, uE);
    AlignedVector<float> packed_keys;
    if (tiles > 1 && uE > 0 && packed_plane * key_planes <= static_cast<std::uint64_t>(kMaxElements)) {
      try {
        packed_keys.resize(static_cast<std::size_t>(packed_plane) * key_planes);
      } catch (const std::bad_alloc&) {
        packed_keys = {};
      }
    }
    if (!packed_keys.empty()) {
      const auto pack = [&](std::size_t plane, std::size_t) {
        aw::flash_attention_pack_keys(key.data + plane * uS * uE, packed_keys.data() + plane * packed_plane, uS, uE);
      };
      if (workers == 1) {
        for (std::size_t plane = 0; plane < key_planes; ++plane) pack(plane, 0);
      } else {
        parallel_for(key_planes, pack);
      }
    }
    const auto attend = [&](std::size_t task, std::size_t worker) {
      const std::size_t h = task / tiles, row_begin = (tiles - 1 - task % tiles) * tile;
      const auto in = head_inputs(h);
      aw::flash_attention_rows(in.q, in.k, in.v, in.out, scratch.data() + worker * fused_scratch, row_begin,
                               std::min(uL, row_begin + tile), uS, uE, uEv, scale, in.mask, mask.row_stride,
                               mask.col_stride, opt.is_causal,
                               packed_keys.empty() ? nullptr : packed_keys.data() + off_k[h] * packed_plane);
    };
    if (workers == 1) {
      for (std::size_t task = 0; task < heads * tiles; ++task) attend(task, 0);
    } else {
      parallel_for(heads * tiles, attend);
    }
    return r;
  }

  // Materialised: one head per task when each head writes its own weights; with a shared scratch
  // (forced path without weights) one thread.
  const float neg_inf = -std::numeric_limits<float>::infinity();
  auto materialised_head = [&](std::size_t h, std::size_t) {
    const auto in = head_inputs(h);
    const float *qh = in.q, *kh = in.k, *mh = in.mask;
    float* wh = want_weights ? r.weights.data.data() + h * uL * uS : scratch.data();
    aw::scaled_dot_product_attention_head(qh, kh, in.v, in.out, wh, uL, uS, uE, uEv, scale, mh, mask.row_stride,
                                          mask.col_stride, opt.is_causal);
    if (opt.return_intermediates) {
      // The steps one by one, for teaching: scores = Q K^T, scaled = scale * scores, masked = scaled + M.
      float* scores = r.scores.data.data() + h * uL * uS;
      float* scaled = r.scaled.data.data() + h * uL * uS;
      float* masked = r.masked.data.data() + h * uL * uS;
      aw::linear(qh, kh, nullptr, scores, uL, uE, uS);
      for (std::size_t i = 0; i < uL; ++i)
        for (std::size_t j = 0; j < uS; ++j) {
          const std::size_t ij = i * uS + j;
          scaled[ij] = scores[ij] * scale;
          float m = 0.0f;
          if (mh) m = mh[static_cast<std::ptrdiff_t>(i) * mask.row_stride + static_cast<std::ptrdiff_t>(j) * mask.col_stride];
          if (opt.is_causal && j > i) m = neg_inf;
          masked[ij] = scaled[ij] + m;
        }
    }
  };
  if (want_weights) {
    parallel_for(heads, materialised_head);
  } else {
    for (std::size_t h = 0; h < heads; ++h) materialised_head(h, 0);
  }
  return r;
}

}  // namespace aw
