// The matrix products' speed at three levels, in GFLOP/s (2 flops per multiply-add), one thread:
//   1. the register tile (kernels/register_tile.hpp, tile_product, Layout::Panel, k 768): every
//      shape the two wasm flavours could use, with splat-load or late broadcasts, a in L1 and a
//      block of b (768 x 64) in L2, as the products use it;
//   2. the kernels on the encoder's shapes: linear_packed (W packed beforehand, as the pretrained
//      encoders hold it), linear_blockwise (W packed block by block in the call), linear (the dot
//      tiles) and matmul_packed;
//   3. what a call spends outside the products: packing a (3072, 768) weight.
// Each figure is the fastest of 15 timed calls after warm-up calls (V8 does not on-stack-replace a
// running wasm call), timed in CPU time in Node (the machine is shared) and by the wall clock in
// Chromium. Compare tile shapes within one run; the VM swings between runs.
// Build and run: bash scripts/tile-bench.sh [node|chromium|all]
#include <emscripten/emscripten.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "kernels/matmul.hpp"
#include "kernels/register_tile.hpp"

#if defined(AW_TILE_BENCH_BASELINE)
// The same kernels from another commit (tile-bench.sh BASELINE=rev: compiled with -Daw=aw_base),
// for a before/after in one process.
namespace aw_base::kernels {
void linear_pack_weight(const float* w, float* packed, std::size_t n, std::size_t k);
void linear_packed(const float* x, const float* w_packed, const float* bias, float* y, std::size_t m, std::size_t k,
                   std::size_t n, float* scratch);
std::size_t linear_packed_scratch_size(std::size_t k);
void matmul_packed(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n,
                   float* scratch);
std::size_t matmul_packed_scratch_size();
}  // namespace aw_base::kernels
#endif

namespace {

using namespace aw::kernels;
using register_tile::Init;
using register_tile::Layout;

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  unsigned x = seed | 1;
  for (float& f : v) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    f = static_cast<float>(x) / 4294967296.0f - 0.5f;
  }
  return v;
}

// The process's CPU time in Node (process.cpuUsage(): the time the shared VM's scheduler gave it,
// whatever else runs), the wall clock elsewhere.
EM_JS(double, cpu_ms, (), {
  if (typeof process == 'object' && process.cpuUsage) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  return performance.now();
});

// The GFLOP/s of `run` (flops per call): its fastest of 15 calls after warm-up calls.
template <class Run>
double gflops(double flops, Run&& run) {
  for (double t0 = emscripten_get_now(); emscripten_get_now() - t0 < 150;) run();
  double ms[15];
  for (double& m : ms) {
    const double t0 = cpu_ms();
    run();
    m = cpu_ms() - t0;
  }
  std::sort(ms, ms + 15);
  return flops / (ms[0] * 1e6);
}

constexpr std::size_t K = 768, block_columns = 64;
float sink = 0;

// c (R x 64) = a_panel (R x K) b, b as panels of V vectors: 64 / (V lanes) tile products
template <std::size_t R, std::size_t V, bool Late>
__attribute__((noinline)) void sweep_block(const float* a_panel, const float* b_panels, float* c, int repeats) {
  constexpr std::size_t width = V * simd::lanes;
  for (int i = 0; i < repeats; ++i)
    for (std::size_t t = 0; t < block_columns / width; ++t)
      register_tile::tile_product<R, V, Init::Zero, Layout::Panel, 0, Late>(a_panel, R, b_panels + t * K * width,
                                                                             width, c + t * width, block_columns, K);
}

template <std::size_t R, std::size_t V, bool Late>
void tile_row(const char* name) {
  const auto a = random_floats(R * K, 1), b = random_floats(K * block_columns, 2);
  std::vector<float> c(R * block_columns);
  const int repeats = 128;
  const double g = gflops(2.0 * R * K * block_columns * repeats,
                          [&] { sweep_block<R, V, Late>(a.data(), b.data(), c.data(), repeats); });
  sink += c[0];
  std::printf("| tile %zu x %zu, %s | %.1f |\n", R, V, name, g);
}

void kernel_rows(std::size_t m, std::size_t k, std::size_t n) {
  const auto x = random_floats(m * k, 3), w = random_floats(n * k, 4), bias = random_floats(n, 5);
  std::vector<float> packed(n * k), y(m * n), scratch(linear_blockwise_scratch_size());
  std::vector<float> mm_scratch(matmul_packed_scratch_size());
  linear_pack_weight(w.data(), packed.data(), n, k);
  const double flops = 2.0 * m * k * n;
  const double packed_g =
      gflops(flops, [&] { linear_packed(x.data(), packed.data(), bias.data(), y.data(), m, k, n); });
  const double blockwise_g = gflops(
      flops, [&] { linear_blockwise(x.data(), w.data(), bias.data(), y.data(), m, k, n, scratch.data()); });
  const double dot_g = gflops(flops, [&] { linear(x.data(), w.data(), bias.data(), y.data(), m, k, n); });
  // matmul (m, k) x (k, n): w read as b
  const double mm_g =
      gflops(flops, [&] { matmul_packed(x.data(), w.data(), y.data(), m, k, n, mm_scratch.data()); });
  sink += y[0];
  std::printf("| %zu x %zu x %zu | %.1f | %.1f | %.1f | %.1f |", m, k, n, packed_g, blockwise_g, dot_g, mm_g);
#if defined(AW_TILE_BENCH_BASELINE)
  namespace base = aw_base::kernels;
  std::vector<float> base_packed(n * k), base_scratch(base::linear_packed_scratch_size(k) + 1);
  std::vector<float> base_mm_scratch(base::matmul_packed_scratch_size());
  base::linear_pack_weight(w.data(), base_packed.data(), n, k);
  const double base_packed_g = gflops(flops, [&] {
    base::linear_packed(x.data(), base_packed.data(), bias.data(), y.data(), m, k, n, base_scratch.data());
  });
  const double base_mm_g =
      gflops(flops, [&] { base::matmul_packed(x.data(), w.data(), y.data(), m, k, n, base_mm_scratch.data()); });
  std::printf(" %.1f | %.1f |", base_packed_g, base_mm_g);
#endif
  std::printf("\n");
}

}  // namespace

int main() {
#if defined(__wasm_relaxed_simd__)
  std::printf("\n# relaxed SIMD build (f32x4.relaxed_madd)\n");
#else
  std::printf("\n# SIMD128 build (f32x4.mul + f32x4.add)\n");
#endif
  std::printf("\n| register tile, Layout::Panel, k %zu, b block %zu x %zu (L2) | GFLOP/s |\n| --- | --- |\n", K, K,
              block_columns);
  tile_row<4, 2, false>("splat loads");
  tile_row<4, 2, true>("late broadcasts");
  tile_row<6, 2, true>("late broadcasts");
  tile_row<6, 2, false>("splat loads");
  tile_row<5, 2, true>("late broadcasts");
  tile_row<5, 2, false>("splat loads");
  tile_row<3, 2, false>("splat loads");
  tile_row<2, 4, false>("splat loads");
  tile_row<3, 3, false>("splat loads");
  tile_row<2, 3, false>("splat loads");

  std::printf("\n| kernel, m x k x n | linear_packed | linear_blockwise | linear (dot tiles) | matmul_packed |");
#if defined(AW_TILE_BENCH_BASELINE)
  std::printf(" baseline linear_packed | baseline matmul_packed |\n| --- | --- | --- | --- | --- | --- | --- |\n");
#else
  std::printf("\n| --- | --- | --- | --- | --- |\n");
#endif
  kernel_rows(64, 256, 256);
  for (std::size_t m : {128, 512}) {
    kernel_rows(m, 768, 2304);
    kernel_rows(m, 768, 768);
    kernel_rows(m, 768, 3072);
    kernel_rows(m, 3072, 768);
  }

  {
    const std::size_t n = 3072, k = 768;
    const auto w = random_floats(n * k, 6);
    std::vector<float> packed(n * k);
    for (int i = 0; i < 3; ++i) linear_pack_weight(w.data(), packed.data(), n, k);
    double best = 1e9;
    for (int i = 0; i < 7; ++i) {
      const double t0 = emscripten_get_now();
      linear_pack_weight(w.data(), packed.data(), n, k);
      best = std::min(best, emscripten_get_now() - t0);
    }
    sink += packed[5];
    std::printf("\nlinear_pack_weight (%zu, %zu): %.2f ms (best of 7)\n", n, k, best);
  }
  std::printf("# checksum %g\n", sink);
}
