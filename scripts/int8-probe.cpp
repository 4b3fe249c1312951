// The integer dot products of wasm SIMD on this engine and CPU: how the engine lowers relaxed
// SIMD's i32x4.relaxed_dot_i8x16_i7x16_add (the a = 127, b = -1 probe: -508 when the i7 operand is
// read signed (ARM sdot, AVX-VNNI-INT8), 129540 unsigned (AVX-VNNI vpdpbusd), 65534 unsigned with
// saturating pair sums (SSSE3 pmaddubsw)), and the speed of an int8 GEMM's register tile on each
// route, against the same tile in f32:
//   relaxed-dot   i32x4.relaxed_dot_i8x16_i7x16_add                        16 multiply-adds
//   i16-dot       i16x8.relaxed_dot_i8x16_i7x16 + i32x4.extadd_pairwise_i16x8_s + i32x4.add
//   i16-pairs     two groups' i16x8.relaxed_dot_i8x16_i7x16 added (i16x8.add), then extadd + add:
//                 the library's RelaxedI16Dot (exact while each int16 lane's four products stay
//                 within 32767: the weights' quads, kernels/quantize.hpp)
//   simd128       i16x8.load8x8_s of the weights + i32x4.dot_i16x8_s + i32x4.add      (8 each)
//   f32           f32x4.relaxed_madd (or mul + add)                                     (4)
// GEMM: c (m, n) = a (m, k) w (n, k)^T with a as u7 in [0, 127] (the i7 operand, broadcast 4 k at a
// time), w packed in panels of 4 V columns, each 4 k of 4 columns in 16 bytes (the i8 operand),
// m = 120, k = 768, n = 3072; GOP/s = 2 m n k / time, the best of 16 calls after warm-up calls
// (V8 does not replace a running wasm call with optimised code), the variants taking turns; and
// the library's kernel (kernels::quantized_linear: x quantized per call, the f32 epilogue) on the
// same shape with each product this build has. The checksums must agree: every
// route computes the same exact integer sums.
// Build and run: node scripts/int8-probe.mjs [--node=PATH ...] [--chromium]
#include <emscripten/emscripten.h>
#include <wasm_simd128.h>

#include "kernels/quantized_matmul.hpp"  // the library's kernel, measured beside the bare tiles

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

volatile std::int8_t probe_a = 127;
volatile std::int8_t probe_b = -1;

// i32x4.relaxed_dot_i8x16_i7x16_add(a = 127 x 16, b = -1 x 16, 0), lane 0
int relaxed_dot_lowering() {
  const v128_t a = wasm_i8x16_splat(probe_a), b = wasm_i8x16_splat(probe_b);
  return wasm_i32x4_extract_lane(wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a, b, wasm_i32x4_splat(0)), 0);
}

enum class Route { RelaxedDot, I16Dot, I16Pairs, Simd128, F32 };
const char* route_name(Route r) {
  switch (r) {
    case Route::RelaxedDot:
      return "relaxed-dot";
    case Route::I16Dot:
      return "i16-dot";
    case Route::I16Pairs:
      return "i16-pairs";
    case Route::Simd128:
      return "simd128";
    case Route::F32:
      return "f32";
  }
  return "?";
}

constexpr int M = 120, K = 768, N = 3072;

// a[r, p .. p+3] in every i32 lane: a splat load, or (late) an i32 load then i32x4.splat, which
// TurboFan schedules beside its use rather than hoisting it with the loads
template <bool Late>
inline v128_t broadcast4(const std::uint8_t* a) {
  std::int32_t bits;
  std::memcpy(&bits, a, 4);
  if constexpr (Late) {
    __asm__("" : "+r"(bits));
    return wasm_i32x4_splat(bits);
  }
  return wasm_v128_load32_splat(a);
}

// c[0:R, 0:4V] = a[0:R, 0:k] w_panel^T   (w_panel: k/4 steps of V x 16 bytes)
template <int R, int V, Route route, bool Late>
__attribute__((always_inline)) inline void int_tile(const std::uint8_t* a, const std::int8_t* w, std::int32_t* c, int k,
                                                    int n) {
  constexpr int A = route == Route::Simd128 ? 2 * V : V;
  v128_t acc[R][A];
#pragma clang loop unroll(full)
  for (int r = 0; r < R; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < A; ++v) acc[r][v] = wasm_i32x4_splat(0);
  if constexpr (route == Route::I16Pairs) {
    // groups g and g + 1 (k = p .. p + 7): their int16 pair sums added before widening
    for (int p = 0; p < k; p += 8, w += 32 * V) {
      v128_t w0[V], w1[V];
#pragma clang loop unroll(full)
      for (int v = 0; v < V; ++v) w0[v] = wasm_v128_load(w + 16 * v), w1[v] = wasm_v128_load(w + 16 * V + 16 * v);
#pragma clang loop unroll(full)
      for (int r = 0; r < R; ++r) {
        const v128_t x0 = broadcast4<Late>(a + r * k + p), x1 = broadcast4<Late>(a + r * k + p + 4);
#pragma clang loop unroll(full)
        for (int v = 0; v < V; ++v) {
          const v128_t s = wasm_i16x8_add(wasm_i16x8_relaxed_dot_i8x16_i7x16(w0[v], x0),
                                          wasm_i16x8_relaxed_dot_i8x16_i7x16(w1[v], x1));
          acc[r][v] = wasm_i32x4_add(acc[r][v], wasm_i32x4_extadd_pairwise_i16x8(s));
        }
      }
    }
  } else {
    for (int p = 0; p < k; p += 4, w += 16 * V) {
      if constexpr (route == Route::Simd128) {
        // a as i16 here (2 bytes per k): 4 k in 8 bytes
        const std::int16_t* a16 = reinterpret_cast<const std::int16_t*>(a);
        v128_t wv[2 * V];
#pragma clang loop unroll(full)
        for (int v = 0; v < V; ++v) {
          wv[2 * v] = wasm_i16x8_load8x8(w + 16 * v);          // columns 0, 1 of the group: 4 k each
          wv[2 * v + 1] = wasm_i16x8_load8x8(w + 16 * v + 8);  // columns 2, 3
        }
#pragma clang loop unroll(full)
        for (int r = 0; r < R; ++r) {
          const v128_t x = wasm_v128_load64_splat(a16 + r * k + p);
#pragma clang loop unroll(full)
          for (int v = 0; v < 2 * V; ++v) acc[r][v] = wasm_i32x4_add(acc[r][v], wasm_i32x4_dot_i16x8(wv[v], x));
        }
      } else {
        v128_t wv[V];
#pragma clang loop unroll(full)
        for (int v = 0; v < V; ++v) wv[v] = wasm_v128_load(w + 16 * v);
#pragma clang loop unroll(full)
        for (int r = 0; r < R; ++r) {
          const v128_t x = broadcast4<Late>(a + r * k + p);
#pragma clang loop unroll(full)
          for (int v = 0; v < V; ++v) {
            if constexpr (route == Route::RelaxedDot)
              acc[r][v] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(wv[v], x, acc[r][v]);
            else
              acc[r][v] = wasm_i32x4_add(
                  acc[r][v], wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_relaxed_dot_i8x16_i7x16(wv[v], x)));
          }
        }
      }
    }
  }
#pragma clang loop unroll(full)
  for (int r = 0; r < R; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < V; ++v) {
      v128_t out = acc[r][v];
      if constexpr (route == Route::Simd128)  // lanes (c0, c0, c1, c1) and (c2, c2, c3, c3): pairwise sums
        out = wasm_i32x4_add(wasm_i32x4_shuffle(acc[r][2 * v], acc[r][2 * v + 1], 0, 2, 4, 6),
                             wasm_i32x4_shuffle(acc[r][2 * v], acc[r][2 * v + 1], 1, 3, 5, 7));
      wasm_v128_store(c + r * n + 4 * v, out);
    }
}

template <int R, int V, Route route, bool Late>
__attribute__((noinline)) void int_gemm(const std::uint8_t* a, const std::int8_t* w, std::int32_t* c) {
  const int a_bytes_per_k = route == Route::Simd128 ? 2 : 1;
  for (int j = 0; j < N; j += 4 * V)
    for (int i = 0; i + R <= M; i += R)
      int_tile<R, V, route, Late>(a + i * K * a_bytes_per_k, w + j * K, c + i * N + j, K, N);
}

// f32: c[0:R, 0:4V] = a[0:R, 0:k] w_panel  (a as R interleaved rows: a[p * R + r]; w_panel[p][4V])
template <int R, int V, bool Late>
__attribute__((noinline)) void f32_gemm(const float* a, const float* w, float* c) {
  for (int j = 0; j < N; j += 4 * V)
    for (int i = 0; i + R <= M; i += R) {
      const float* ap = a + i * K;
      const float* wp = w + j * K;
      v128_t acc[R][V];
#pragma clang loop unroll(full)
      for (int r = 0; r < R; ++r)
#pragma clang loop unroll(full)
        for (int v = 0; v < V; ++v) acc[r][v] = wasm_f32x4_splat(0);
      for (int p = 0; p < K; ++p, ap += R, wp += 4 * V) {
        v128_t wv[V];
#pragma clang loop unroll(full)
        for (int v = 0; v < V; ++v) wv[v] = wasm_v128_load(wp + 4 * v);
#pragma clang loop unroll(full)
        for (int r = 0; r < R; ++r) {
          v128_t x;
          if constexpr (Late) {
            std::int32_t bits;
            std::memcpy(&bits, ap + r, 4);
            __asm__("" : "+r"(bits));
            x = wasm_i32x4_splat(bits);
          } else {
            x = wasm_v128_load32_splat(ap + r);
          }
#pragma clang loop unroll(full)
          for (int v = 0; v < V; ++v) acc[r][v] = wasm_f32x4_relaxed_madd(x, wv[v], acc[r][v]);
        }
      }
#pragma clang loop unroll(full)
      for (int r = 0; r < R; ++r)
#pragma clang loop unroll(full)
        for (int v = 0; v < V; ++v) wasm_v128_store(c + (i + r) * N + j + 4 * v, acc[r][v]);
    }
}

std::vector<std::uint8_t> a8;
// the library's kernel: weights quantized and packed once, x quantized per call (in the kernel)
std::vector<std::int8_t> packed;
std::vector<float> packed_scales, y_lib;
std::vector<std::int32_t> packed_sums;
std::vector<unsigned char> scratch;
std::vector<std::int16_t> a16;
std::vector<std::int8_t> w8;
std::vector<std::int32_t> c32;
std::vector<float> af, wf, cf;

std::int64_t checksum(int rows) {
  std::int64_t s = 0;
  for (int i = 0; i < rows * N; ++i) s += c32[i] * static_cast<std::int64_t>(i % 7 + 1);
  return s;
}

void run_library(aw::kernels::Int8Product product);

// Every variant: a name, its rows (whole tiles of M), a run, its best speed so far.
struct Variant {
  std::string name;
  int rows;
  void (*run)();
  bool integer;
  double best = 0;
  std::int64_t checksum = 0;
  const aw::kernels::Int8Product* library = nullptr;  // the library's kernel with this product
  void call() const {
    if (library)
      run_library(*library);
    else
      run();
  }
};
std::vector<Variant> variants;

template <int R, int V, Route route, bool Late = false>
void add_int() {
  char name[64];
  std::snprintf(name, sizeof name, "%-12s %d x %2d%s", route_name(route), R, 4 * V, Late ? " late" : "");
  variants.push_back({name, M / R * R,
                      [] {
                        int_gemm<R, V, route, Late>(
                            route == Route::Simd128 ? reinterpret_cast<const std::uint8_t*>(a16.data()) : a8.data(),
                            w8.data(), c32.data());
                      },
                      true});
}

template <int R, int V, bool Late = false>
void add_f32() {
  char name[64];
  std::snprintf(name, sizeof name, "%-12s %d x %2d%s", "f32", R, 4 * V, Late ? " late" : "");
  variants.push_back({name, M / R * R, [] { f32_gemm<R, V, Late>(af.data(), wf.data(), cf.data()); }, false});
}

void add_library_kernel(aw::kernels::Int8Product product, const char* name) {
  if (!aw::kernels::int8_product_available(product)) return;
  static aw::kernels::Int8Product chosen[4];
  chosen[static_cast<int>(product)] = product;
  char label[64];
  std::snprintf(label, sizeof label, "%-12s library", name);
  variants.push_back({label, M, nullptr, false});
  variants.back().library = &chosen[static_cast<int>(product)];
}

void run_library(aw::kernels::Int8Product product) {
  const aw::kernels::QuantizedWeightView w{packed.data(), packed_scales.data(), packed_sums.data(), N, K};
  aw::kernels::quantized_linear(af.data(), w, nullptr, y_lib.data(), M, aw::kernels::OutputActivation::None,
                                scratch.data(), product);
}

// Rounds over all variants, taking turns (the machine is shared: its load swings within seconds),
// two timed calls each per round after three warm-up calls; each variant's best call counts.
void measure_all(int rounds) {
  for (Variant& v : variants) {
    std::fill(c32.begin(), c32.end(), 0);
    for (int i = 0; i < 3; ++i) v.call();
    if (v.integer) v.checksum = checksum(v.rows);
  }
  for (int round = 0; round < rounds; ++round)
    for (Variant& v : variants)
      for (int call = 0; call < 2; ++call) {
        const double t0 = emscripten_get_now();
        v.call();
        const double ms = emscripten_get_now() - t0;
        v.best = std::max(v.best, 2.0 * v.rows * K * N / (ms * 1e6));
      }
  for (const Variant& v : variants) {
    if (v.library)
      std::printf("gemm %s: %6.1f GOP/s    (quantizing x, the epilogue included)\n", v.name.c_str(), v.best);
    else if (v.integer)
      std::printf("gemm %s: %6.1f GOP/s    checksum %lld\n", v.name.c_str(), v.best,
                  static_cast<long long>(v.checksum));
    else
      std::printf("gemm %s: %6.1f GFLOP/s\n", v.name.c_str(), v.best);
  }
}

}  // namespace

int main() {
  std::printf("relaxed_dot_i8x16_i7x16_add(127, -1) = %d (%s)\n", relaxed_dot_lowering(),
              relaxed_dot_lowering() == 65534    ? "pmaddubsw: unsigned i7, saturating"
              : relaxed_dot_lowering() == 129540 ? "VNNI vpdpbusd: unsigned i7"
              : relaxed_dot_lowering() == -508   ? "signed i7 (sdot / AVX-VNNI-INT8)"
                                                 : "unknown");
  std::srand(1);
  a8.resize(M * K);
  a16.resize(M * K);
  w8.resize(N * K);
  c32.resize(M * N);
  af.resize(M * K);
  wf.resize(N * K);
  cf.resize(M * N);
  // a in [0, 127]; w in [-64, 64] (every four values' sum |w| within 256, as the library's
  // quantization keeps its quads: i16-pairs is exact too), already in the packed order (random:
  // the order does not matter)
  for (int i = 0; i < M * K; ++i) a16[i] = a8[i] = static_cast<std::uint8_t>(std::rand() % 128);
  for (int i = 0; i < N * K; ++i) w8[i] = static_cast<std::int8_t>(std::rand() % 129 - 64);
  // the SIMD128 route reads the same packed weights but its a as i16 (4 k = 8 bytes)
  for (int i = 0; i < M * K; ++i) af[i] = a8[i] / 127.0f;
  for (int i = 0; i < N * K; ++i) wf[i] = w8[i] / 127.0f;

  packed.resize(aw::kernels::quantized_weight_bytes(N, K));
  packed_scales.resize(aw::kernels::quantized_weight_channels(N));
  packed_sums.resize(aw::kernels::quantized_weight_channels(N));
  aw::kernels::quantize_weight_rows(wf.data(), 0, N, N, K, packed.data(), packed_scales.data(), packed_sums.data());
  y_lib.resize(M * N);
  scratch.resize(aw::kernels::quantized_linear_scratch_bytes(K));
  add_library_kernel(aw::kernels::Int8Product::RelaxedDot, "relaxed-dot");
  add_library_kernel(aw::kernels::Int8Product::RelaxedI16Dot, "i16-dot");
  add_library_kernel(aw::kernels::Int8Product::Simd128Dot, "simd128");
  add_f32<4, 2>();
  add_f32<6, 2, true>();
  add_f32<2, 4>();
  add_int<4, 2, Route::RelaxedDot>();
  add_int<4, 2, Route::RelaxedDot, true>();
  add_int<6, 2, Route::RelaxedDot, true>();
  add_int<6, 2, Route::RelaxedDot>();
  add_int<5, 2, Route::RelaxedDot>();
  add_int<2, 4, Route::RelaxedDot>();
  add_int<3, 3, Route::RelaxedDot>();
  add_int<3, 2, Route::RelaxedDot>();
  add_int<5, 2, Route::RelaxedDot, true>();
  add_int<8, 1, Route::RelaxedDot>();
  add_int<4, 3, Route::RelaxedDot, true>();
  add_int<4, 2, Route::I16Dot>();
  add_int<4, 2, Route::I16Dot, true>();
  add_int<2, 4, Route::I16Dot>();
  add_int<3, 2, Route::I16Dot>();
  add_int<3, 3, Route::I16Dot>();
  add_int<6, 2, Route::I16Dot, true>();
  add_int<8, 1, Route::I16Dot>();
  add_int<2, 2, Route::I16Dot>();
  add_int<4, 1, Route::Simd128>();
  add_int<2, 2, Route::Simd128>();
  add_int<3, 2, Route::Simd128>();
  add_int<6, 1, Route::Simd128>();
  add_int<2, 3, Route::Simd128>();
  add_int<4, 2, Route::Simd128>();
  add_int<2, 2, Route::I16Pairs>();
  add_int<3, 2, Route::I16Pairs>();
  add_int<4, 2, Route::I16Pairs>();
  add_int<2, 3, Route::I16Pairs>();
  measure_all(8);
  std::printf("done\n");
}
