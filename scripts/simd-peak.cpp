// The ceiling a multiply-add kernel can reach on this engine: independent accumulator chains
// acc = acc * m + c over 4-float vectors, SIMD128 (f32x4.mul then f32x4.add) against relaxed SIMD
// (f32x4.relaxed_madd, fused), with 8 and 12 accumulators. GFLOP/s = 2 flops x 4 lanes x
// accumulators x steps / time. Each variant is called repeatedly and timed after warm-up calls
// (V8 does not replace a running wasm call with optimised code).
// Build and run: bash scripts/simd-peak.sh
#include <emscripten/emscripten.h>
#include <wasm_simd128.h>

#include <cstdio>

namespace {

// Read at run time, so that the compiler cannot fold the chains.
volatile float multiplier = 0.999f, addend = 0.001f;

template <int Accumulators, bool Fused>
__attribute__((noinline)) float multiply_add_chains(int steps) {
  v128_t acc[Accumulators];
  for (int i = 0; i < Accumulators; ++i) acc[i] = wasm_f32x4_splat(0.5f + 0.01f * i);
  const v128_t m = wasm_f32x4_splat(multiplier), c = wasm_f32x4_splat(addend);
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < Accumulators; ++i) {
#ifdef __wasm_relaxed_simd__
      if constexpr (Fused) {
        acc[i] = wasm_f32x4_relaxed_madd(acc[i], m, c);  // acc * m + c, one instruction
        continue;
      }
#endif
      acc[i] = wasm_f32x4_add(wasm_f32x4_mul(acc[i], m), c);
    }
  }
  v128_t sum = acc[0];
  for (int i = 1; i < Accumulators; ++i) sum = wasm_f32x4_add(sum, acc[i]);
  return wasm_f32x4_extract_lane(sum, 0);
}

template <int Accumulators, bool Fused>
void measure(const char* name) {
  const int steps = 1 << 20;
  float sink = 0;
  for (int call = 0; call < 30; ++call) sink += multiply_add_chains<Accumulators, Fused>(steps);  // warm-up
  double best = 0;
  for (int call = 0; call < 20; ++call) {
    const double t0 = emscripten_get_now();
    sink += multiply_add_chains<Accumulators, Fused>(steps);
    const double ms = emscripten_get_now() - t0;
    const double gflops = 2.0 * 4 * Accumulators * steps / (ms * 1e6);
    if (gflops > best) best = gflops;
  }
  std::printf("%-34s %2d accumulators: %5.1f GFLOP/s (best of 20 calls; checksum %g)\n", name, Accumulators, best, sink);
}

}  // namespace

int main() {
  measure<8, false>("SIMD128 f32x4.mul + f32x4.add");
  measure<12, false>("SIMD128 f32x4.mul + f32x4.add");
#ifdef __wasm_relaxed_simd__
  measure<8, true>("relaxed SIMD f32x4.relaxed_madd");
  measure<12, true>("relaxed SIMD f32x4.relaxed_madd");
#endif
}
