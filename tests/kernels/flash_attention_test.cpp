// Tests for src/kernels/flash_attention: the fused kernel against the scalar reference
// (scaled_dot_product_attention_head_reference) and both against float64 attention from the
// formula   out = softmax(scale * q k^T + mask) v
// over sizes that hit every query/key tile tail and micro-kernel tail (L, S up to 130: key tiles
// and query tiles of 64, micro-kernel rows of 4 in every build),
// odd and even head dims (incl. 1 and 65), misaligned pointers, masks with broadcasting and
// negative strides, causal with L != S, and fully masked rows. The scratch must be enough:
// sentinels after it and around out must survive.
#include "kernels/flash_attention.hpp"

#include "kernels/attention.hpp"
#include "kernels/register_tile.hpp"

#include <catch2/catch.hpp>

#include "kernels/attention_float64.hpp"
#include "kernels/mask_layouts.hpp"

#include "kernels/kernel_test_util.hpp"

#include <cmath>
#include <cstddef>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

const std::size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 17, 33, 64, 65, 130};
const std::pair<std::size_t, std::size_t> head_dims[] = {{1, 1}, {3, 64}, {64, 3}, {64, 64}, {65, 65}, {2, 6}, {0, 5}};

using kernel_test::Buffer;  // sentinel-guarded buffers, as in every kernel test
using kernel_test::infinity;
using kernel_test::LogicalMask;  // tests/kernels/attention_float64.hpp
using kernel_test::MaskArgs;
using kernel_test::uniform_buffer;  // uniform [-1, 1)

// Tolerance for out: relative to sum_j w[j] |v[j, d]| (the size of the summed terms), plus a floor.
constexpr double rel = 1e-5, abs_floor = 1e-6;

// The first element failing |got - want| <= rel * scale + abs_floor (NaN fails), or "".
std::string first_mismatch(const float* got, const std::vector<double>& want, const std::vector<double>& scale) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double tolerance = rel * scale[i] + abs_floor;
    if (!(std::fabs(double(got[i]) - want[i]) <= tolerance)) {
      std::ostringstream s;
      s.precision(9);
      s << "element " << i << ": got " << got[i] << ", want " << want[i] << ", tolerance " << tolerance;
      return s.str();
    }
  }
  return "";
}

// Runs the fused kernel and the scalar reference; checks out against each other and against
// float64, and that nothing is written outside out and the scratch.
void check_fused(const Buffer& q, const Buffer& k, const Buffer& v, std::size_t L, std::size_t S, std::size_t E,
                 std::size_t Ev, float scale, const MaskArgs& mask, const LogicalMask& logical, bool causal,
                 std::size_t causal_offset = 0) {
  const aw::kernels::MaskView mask_view{mask.data, mask.row_stride, mask.col_stride, causal, causal_offset};
  const std::size_t offset = q.offset;
  Buffer out(L * Ev, offset), out_ref(L * Ev, offset), weights_ref(L * S, offset);
  Buffer scratch(aw::kernels::flash_attention_scratch_size(E, Ev), offset);

  aw::kernels::flash_attention_head(aw::kernels::HeadView{q.data(), k.data(), v.data(), out.data(), L, S, E, Ev},
                                    mask_view, scale, scratch.data());
  aw::kernels::scaled_dot_product_attention_head_reference(
      aw::kernels::HeadView{q.data(), k.data(), v.data(), out_ref.data(), L, S, E, Ev}, mask_view, scale,
      weights_ref.data());
  const kernel_test::AttentionFloat64 want =
      kernel_test::attention_float64(q.data(), k.data(), v.data(), L, S, E, Ev, scale, logical, causal, causal_offset);
  const std::vector<double> ref(out_ref.data(), out_ref.data() + L * Ev);

  // the same with the keys packed once (as the op does for several query tiles): byte-identical
  Buffer packed(aw::kernels::flash_attention_packed_keys_size(S, E), offset), out_packed(L * Ev, offset);
  aw::kernels::flash_attention_pack_keys(k.data(), packed.data(), S, E);
  aw::kernels::flash_attention_rows(aw::kernels::HeadView{q.data(), k.data(), v.data(), out_packed.data(), L, S, E, Ev},
                                    mask_view, scale, 0, L, scratch.data(), packed.data());
  CHECK(std::memcmp(out.data(), out_packed.data(), L * Ev * sizeof(float)) == 0);
  CHECK(packed.guards_intact());
  CHECK(out_packed.guards_intact());

  const std::string fused_vs_ref = first_mismatch(out.data(), ref, want.out_scale);
  const std::string fused_vs_f64 = first_mismatch(out.data(), want.out, want.out_scale);
  INFO("fused vs reference: " << fused_vs_ref);
  INFO("fused vs float64: " << fused_vs_f64);
  CHECK(fused_vs_ref.empty());
  CHECK(fused_vs_f64.empty());
  CHECK(out.guards_intact());
  CHECK(scratch.guards_intact());
}

using kernel_test::mask_layouts;
using kernel_test::MaskLayout;  // tests/kernels/mask_layouts.hpp

}  // namespace

TEST_CASE("flash attention: fused == reference == float64 over every tile tail, odd head dims, misaligned",
          "[kernels][flash_attention]") {
  std::mt19937 rng(20250101);
  for (std::size_t offset : {std::size_t(0), std::size_t(1)})
    for (std::size_t L : sizes)
      for (std::size_t S : sizes)
        for (const auto& dims : head_dims)
          for (bool causal : {false, true}) {
            if (offset == 1 && (L > 65 || S > 65) && dims.first != 65) continue;  // keep the run short
            const std::size_t E = dims.first, Ev = dims.second;
            const float scale = E == 0 ? 1.0f : 1.0f / std::sqrt(float(E));
            CAPTURE(offset, L, S, E, Ev, causal);
            const Buffer q = uniform_buffer(rng, L * E, offset);
            const Buffer k = uniform_buffer(rng, S * E, offset);
            const Buffer v = uniform_buffer(rng, S * Ev, offset);
            check_fused(q, k, v, L, S, E, Ev, scale, MaskArgs{}, nullptr, causal);
          }
}

TEST_CASE("flash attention: causal aligned bottom-right (the queries are the last L of S keys, a KV cache)",
          "[kernels][flash_attention]") {
  // causal_offset = S - L: query i sees keys j <= i + S - L (one new token sees every key); with
  // and without a key-padding mask (row stride 0) that excludes the first key of every row.
  std::mt19937 rng(20250105);
  for (std::size_t L : {std::size_t(1), std::size_t(3), std::size_t(65), std::size_t(80)})
    for (std::size_t S : {std::size_t(1), std::size_t(7), std::size_t(64), std::size_t(65), std::size_t(150)}) {
      if (L > S) continue;
      for (std::size_t E : {std::size_t(8), std::size_t(13)}) {
        CAPTURE(L, S, E);
        const Buffer q = uniform_buffer(rng, L * E, 1), k = uniform_buffer(rng, S * E, 1),
                     v = uniform_buffer(rng, S * E, 1);
        check_fused(q, k, v, L, S, E, E, 0.3f, MaskArgs{}, nullptr, true, S - L);
        std::vector<float> padding(S, 0.0f);
        padding[0] = -std::numeric_limits<float>::infinity();
        const LogicalMask logical = [&](std::size_t, std::size_t j) { return double(padding[j]); };
        check_fused(q, k, v, L, S, E, E, 0.3f, MaskArgs{padding.data(), 0, 1}, logical, true, S - L);
      }
    }
}

TEST_CASE("flash attention: large scores need the running max (online rescaling)", "[kernels][flash_attention]") {
  // Scores that grow along the keys: every key tile raises the running max, so the output
  // accumulated so far is rescaled again and again; exp without the max would overflow.
  std::mt19937 rng(20250102);
  const std::size_t L = 65, S = 200, E = 8, Ev = 9;
  Buffer q = uniform_buffer(rng, L * E, 0), k = uniform_buffer(rng, S * E, 0);
  const Buffer v = uniform_buffer(rng, S * Ev, 0);
  for (std::size_t i = 0; i < L * E; ++i) q.data()[i] = std::fabs(q.data()[i]) + 0.5f;
  for (std::size_t j = 0; j < S; ++j)
    for (std::size_t e = 0; e < E; ++e) k.data()[j * E + e] = std::fabs(k.data()[j * E + e]) * float(j) * 0.005f;
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    check_fused(q, k, v, L, S, E, Ev, 1.0f, MaskArgs{}, nullptr, causal);
  }
}

TEST_CASE("flash attention: scores beyond 2^22 take the scalar exp path", "[kernels][flash_attention]") {
  // The vector exp shifts by the running max through a float add at 2^23 (Exp2Shifted), which
  // holds for |max| < 2^22 in base 2 (with margin); larger scores take std::exp2. Here (E = 1,
  // scale 1) the first key tile has score_j = 37900 (j + 1), up to 3.5e6 in base 2, just below
  // 2^22 (the vector path with a large shift); the second has 1.2e7 (j - 63), 1.7e7 and more in
  // base 2 (the scalar path). Rows that see both tiles switch paths between them, and the output
  // of the first tile must be rescaled to nothing. The gaps make each row one-hot on its largest
  // visible key, exact in float32 and float64 alike; so this checks that huge scores come out
  // right, not which path computed them (one-hot rows come out right on either).
  std::mt19937 rng(20250105);
  const std::size_t L = 130, S = 130, E = 1, Ev = 3;
  Buffer q(L * E, 0), k(S * E, 0);
  for (std::size_t i = 0; i < L; ++i) q.data()[i] = 1.0f;
  for (std::size_t j = 0; j < S; ++j) k.data()[j] = j < 64 ? 37900.0f * float(j + 1) : 1.2e7f * float(j - 63);
  const Buffer v = uniform_buffer(rng, S * Ev, 0);
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    check_fused(q, k, v, L, S, E, Ev, 1.0f, MaskArgs{}, nullptr, causal);
  }
}

TEST_CASE("flash attention: NaN spreads to the rows that see it, on every arch", "[kernels][flash_attention]") {
  // A NaN in q makes its row NaN; in k, every row that sees that key; in v, that column of
  // every row that sees the key. Under causal a row does not see later keys (as torch's CPU
  // flash kernel, which skips them; its math path, like our materialised reference, multiplies
  // their zero weights by NaN). The clamp in the exp must not drop NaN: maxps natively would.
  std::mt19937 rng(20250106);
  const std::size_t L = 70, S = 70, E = 5, Ev = 6;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int where = 0; where < 3; ++where)
    for (bool causal : {false, true}) {
      CAPTURE(where, causal);
      Buffer q = uniform_buffer(rng, L * E, 0), k = uniform_buffer(rng, S * E, 0), v = uniform_buffer(rng, S * Ev, 0);
      if (where == 0) q.data()[3 * E + 1] = nan;                          // query 3
      if (where == 1) k.data()[66 * E + 2] = nan;                         // key 66 (in the second key tile)
      if (where == 2) v.data()[10 * Ev + 4] = nan;                        // value 10, column 4
      const std::size_t first_row = causal ? (where == 1 ? 66 : 10) : 0;  // rows that see the key
      auto expect_nan = [&](std::size_t i, std::size_t d) {
        return where == 0 ? i == 3 : where == 1 ? i >= first_row : i >= first_row && d == 4;
      };
      // The rows before first_row in its register tile (register_tile::tile_rows) multiply the
      // key's zero weight by NaN too (as the reference does for every row): either.
      const std::size_t tile = aw::kernels::register_tile::tile_rows;
      auto either = [&](std::size_t i) { return causal && where != 0 && i < first_row && i + tile > first_row; };
      Buffer out(L * Ev, 0), out_ref(L * Ev, 0), weights(L * S, 0);
      Buffer scratch(aw::kernels::flash_attention_scratch_size(E, Ev), 0);
      aw::kernels::flash_attention_head(aw::kernels::HeadView{q.data(), k.data(), v.data(), out.data(), L, S, E, Ev},
                                        aw::kernels::MaskView{nullptr, 0, 0, causal}, 0.5f, scratch.data());
      aw::kernels::scaled_dot_product_attention_head_reference(
          aw::kernels::HeadView{q.data(), k.data(), v.data(), out_ref.data(), L, S, E, Ev},
          aw::kernels::MaskView{nullptr, 0, 0, causal}, 0.5f, weights.data());
      for (std::size_t i = 0; i < L; ++i)
        for (std::size_t d = 0; d < Ev; ++d) {
          CAPTURE(i, d);
          const float got = out.data()[i * Ev + d], want = out_ref.data()[i * Ev + d];
          if (!either(i)) REQUIRE(std::isnan(got) == expect_nan(i, d));
          if (!std::isnan(got) && !std::isnan(want)) CHECK(std::fabs(got - want) <= 1e-5f);
        }
    }
}

TEST_CASE("flash attention: a row masked with -FLT_MAX everywhere weighs its keys equally, as torch",
          "[kernels][flash_attention]") {
  // torch adds the mask in natural units: every score of such a row rounds to -FLT_MAX and the
  // softmax is uniform. The fused kernel works in base 2, where log2(e) * -FLT_MAX would
  // overflow to -inf and the row would give 0 (mask_base2 keeps it finite).
  std::mt19937 rng(20250107);
  const std::size_t L = 5, S = 70, E = 4, Ev = 3;
  const Buffer q = uniform_buffer(rng, L * E, 0), k = uniform_buffer(rng, S * E, 0), v = uniform_buffer(rng, S * Ev, 0);
  Buffer mask(L * S, 0);
  for (std::size_t i = 0; i < L * S; ++i) mask.data()[i] = i / S == 2 ? -std::numeric_limits<float>::max() : 0.0f;
  Buffer out(L * Ev, 0), out_ref(L * Ev, 0), weights(L * S, 0),
      scratch(aw::kernels::flash_attention_scratch_size(E, Ev), 0);
  aw::kernels::flash_attention_head(aw::kernels::HeadView{q.data(), k.data(), v.data(), out.data(), L, S, E, Ev},
                                    aw::kernels::MaskView{mask.data(), std::ptrdiff_t(S), 1, false}, 0.5f,
                                    scratch.data());
  aw::kernels::scaled_dot_product_attention_head_reference(
      aw::kernels::HeadView{q.data(), k.data(), v.data(), out_ref.data(), L, S, E, Ev},
      aw::kernels::MaskView{mask.data(), std::ptrdiff_t(S), 1, false}, 0.5f, weights.data());
  for (std::size_t d = 0; d < Ev; ++d) {
    double mean = 0;
    for (std::size_t j = 0; j < S; ++j) mean += v.data()[j * Ev + d];
    mean /= double(S);
    CAPTURE(d);
    CHECK(std::fabs(out.data()[2 * Ev + d] - mean) <= 1e-5);
    CHECK(std::fabs(out_ref.data()[2 * Ev + d] - mean) <= 1e-5);
  }
  for (std::size_t i = 0; i < L * Ev; ++i) CHECK(std::fabs(out.data()[i] - out_ref.data()[i]) <= 1e-5f);
}

TEST_CASE("flash attention: additive masks with broadcasting and negative strides, with and without causal",
          "[kernels][flash_attention]") {
  std::mt19937 rng(20250103);
  const std::size_t few_sizes[] = {1, 4, 5, 17, 64, 65, 130};
  for (const MaskLayout& layout : mask_layouts)
    for (bool causal : {false, true})
      for (std::size_t L : few_sizes)
        for (std::size_t S : few_sizes) {
          const std::size_t E = 5, Ev = 7;
          CAPTURE(layout.name, causal, L, S, E, Ev);
          const Buffer q = uniform_buffer(rng, L * E, 1);
          const Buffer k = uniform_buffer(rng, S * E, 1);
          const Buffer v = uniform_buffer(rng, S * Ev, 1);
          const kernel_test::StoredMask mask = kernel_test::random_stored_mask(rng, layout, L, S);
          check_fused(q, k, v, L, S, E, Ev, 1.0f, mask.args, mask.logical, causal);
        }
}

TEST_CASE("flash attention: causal is upper-left aligned when L != S", "[kernels][flash_attention]") {
  std::mt19937 rng(20250104);
  const std::pair<std::size_t, std::size_t> shapes[] = {{5, 9},    {9, 5},  {17, 4},  {3, 130},
                                                        {130, 17}, {1, 65}, {65, 130}};
  for (const auto& shape : shapes) {
    const std::size_t L = shape.first, S = shape.second, E = 9, Ev = 4;
    CAPTURE(L, S);
    const Buffer q = uniform_buffer(rng, L * E, 1);
    const Buffer k = uniform_buffer(rng, S * E, 1);
    const Buffer v = uniform_buffer(rng, S * Ev, 1);
    check_fused(q, k, v, L, S, E, Ev, 1.0f, MaskArgs{}, nullptr, true);

    // Row 0 sees only key 0: out[0] = v[0].
    std::vector<float> out(L * Ev), scratch(aw::kernels::flash_attention_scratch_size(E, Ev));
    aw::kernels::flash_attention_head(aw::kernels::HeadView{q.data(), k.data(), v.data(), out.data(), L, S, E, Ev},
                                      aw::kernels::MaskView{nullptr, 0, 0, true}, 1.0f, scratch.data());
    for (std::size_t d = 0; d < Ev; ++d) CHECK(out[d] == Approx(v.data()[d]).epsilon(1e-6));
  }
}

TEST_CASE("flash attention: fully masked rows give 0, never NaN", "[kernels][flash_attention]") {
  std::mt19937 rng(20250105);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  for (std::size_t S : {std::size_t(1), std::size_t(4), std::size_t(65), std::size_t(130)})
    for (bool causal : {false, true}) {
      const std::size_t L = 70, E = 5, Ev = 9;
      CAPTURE(S, causal);
      const Buffer q = uniform_buffer(rng, L * E, 1);
      const Buffer k = uniform_buffer(rng, S * E, 1);
      const Buffer v = uniform_buffer(rng, S * Ev, 1);
      // rows 0, 3, 6 and 66 entirely -inf; row 67 -inf only in its first key tile, so the
      // running max stays -inf through a whole tile before becoming finite
      Buffer mask(L * S, 0);
      for (std::size_t i = 0; i < L * S; ++i) mask.data()[i] = uniform(rng);
      const std::size_t masked_rows[] = {0, 3, 6, 66};
      for (std::size_t i : masked_rows)
        for (std::size_t j = 0; j < S; ++j) mask.data()[i * S + j] = -infinity;
      for (std::size_t j = 0; j < std::min<std::size_t>(64, S); ++j) mask.data()[67 * S + j] = -infinity;
      const float* m = mask.data();
      const LogicalMask logical = [&](std::size_t i, std::size_t j) { return double(m[i * S + j]); };
      check_fused(q, k, v, L, S, E, Ev, 0.5f, MaskArgs{m, std::ptrdiff_t(S), 1}, logical, causal);

      std::vector<float> out(L * Ev), scratch(aw::kernels::flash_attention_scratch_size(E, Ev));
      aw::kernels::flash_attention_head(aw::kernels::HeadView{q.data(), k.data(), v.data(), out.data(), L, S, E, Ev},
                                        aw::kernels::MaskView{m, std::ptrdiff_t(S), 1, causal}, 0.5f, scratch.data());
      for (std::size_t i : masked_rows)
        for (std::size_t d = 0; d < Ev; ++d) CHECK(out[i * Ev + d] == 0.0f);
      for (float x : out) CHECK(std::isfinite(x));
    }
}

TEST_CASE("flash attention: the scratch does not depend on L and S", "[kernels][flash_attention]") {
  CHECK(aw::kernels::flash_attention_scratch_size(64, 64) < 64 * 1024);  // floats: a few tiles
  CHECK(aw::kernels::flash_attention_scratch_size(65, 3) > 0);
}
