// Activations: xsimd kernels and their scalar references. See activation.hpp.
#include "kernels/activation.hpp"

#include <cmath>

#include "kernels/simd.hpp"

namespace aw::kernels {
namespace {

using simd::batch;
using simd::map;

constexpr float sqrt1_2 = 0.70710678118654752440f;         // 1 / sqrt(2)
constexpr float sqrt_2_over_pi = 0.79788456080286535588f;  // sqrt(2 / pi)
constexpr float kappa = 0.044715f;

// The scalar functions of the references. The SIMD kernels of the transcendental ones (GELU, SiLU)
// run their tails as padded vectors instead (simd::map_vectors): a value's bytes are then the same
// wherever it sits in a call, which the fused epilogue of the int8 linear layer relies on (it runs
// GELU over 64 columns of a row at a time: the same bytes as over the whole output).
float relu_scalar(float x) { return x < 0.0f ? 0.0f : x; }  // NaN < 0 is false: NaN stays
float gelu_scalar(float x) { return x * 0.5f * (1.0f + std::erf(x * sqrt1_2)); }
float gelu_tanh_scalar(float x) {
  const float inner = sqrt_2_over_pi * (x + kappa * x * x * x);
  return 0.5f * x * (1.0f + std::tanh(inner));
}
float silu_scalar(float x) { return x / (1.0f + std::exp(-x)); }

}  // namespace

void relu(const float* x, float* y, std::size_t n) {
  // select rather than max: xsimd::max's NaN handling differs between archs.
  map(
      x, y, n, [](batch v) { return xsimd::select(v < batch(0.0f), batch(0.0f), v); }, relu_scalar);
}

void relu_reference(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = relu_scalar(x[i]);
}

namespace {

// erf(t) ~ t P(t^2) / Q(t^2), P and Q of degree 5, fitted on [0, 3.9] by scripts/erf-fit.py (a
// weighted least-squares rational fit in 40-digit arithmetic: 1.5e-8 from erf there). Evaluated in
// float32 as below (12 multiplies, 10 adds, a division), within 3.4 ulp of 1 of erf: the roundings
// of p, q and p / q near 1. t is clamped to 3.9 (erf(3.9) = 1 - 2^-24 in float32; the fit gives
// exactly 1 there, so erf(+-inf) = +-1 and GELU(-inf) = -inf x 0 = NaN, as torch), and the result
// to [-1, 1] (from t = 3.61 the float32 evaluation passes 1 by up to 3 ulp). Plain multiplies and
// adds (no fused multiply-add, whose rounding differs by engine): the same bytes in every wasm
// engine. GELU over (512, 3072) values ~ N(0, 1.5^2) took 2.3x less time than with xsimd::erf (an
// exp, two polynomials, a division, and both branches for vectors that straddle 2/3): Node 24, AMD
// Zen 5, copies in and out included (docs/performance.md, "The relaxed dot as one instruction").
constexpr float erf_limit = 3.9f;
constexpr float erf_p[] = {1.1283790336972172f,   0.19189783575922356f,    0.0529614491848835f,
                           0.003835083478879917f, 0.00028742700779886963f, 2.0508549293923081e-6f};
constexpr float erf_q[] = {1.0f,
                           0.50339681928178418f,
                           0.11474056685343149f,
                           0.015105618057732956f,
                           0.0011813178752304159f,
                           3.823399739226316e-5f};

batch erf_rational(batch t) {
  t = xsimd::min(xsimd::max(t, batch(-erf_limit)), batch(erf_limit));
  const batch u = t * t;
  batch p(erf_p[5]), q(erf_q[5]);
  for (int i = 4; i >= 0; --i) {  // Horner: p = p u + p_i
    p = p * u + batch(erf_p[i]);
    q = q * u + batch(erf_q[i]);
  }
  return xsimd::min(xsimd::max(t * p / q, batch(-1.0f)), batch(1.0f));
}

}  // namespace

void gelu(const float* x, float* y, std::size_t n) {
  simd::map_vectors(x, y, n,
                    [](batch v) { return v * batch(0.5f) * (batch(1.0f) + erf_rational(v * batch(sqrt1_2))); });
}

void gelu_reference(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = gelu_scalar(x[i]);
}

void gelu_tanh(const float* x, float* y, std::size_t n) {
  simd::map_vectors(x, y, n, [](batch v) {
    const batch inner = batch(sqrt_2_over_pi) * simd::fma(batch(kappa) * v * v, v, v);  // x + kappa x^3
    return batch(0.5f) * v * (batch(1.0f) + xsimd::tanh(inner));
  });
}

void gelu_tanh_reference(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = gelu_tanh_scalar(x[i]);
}

void silu(const float* x, float* y, std::size_t n) {
  simd::map_vectors(x, y, n, [](batch v) { return v / (batch(1.0f) + xsimd::exp(-v)); });
}

void silu_reference(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = silu_scalar(x[i]);
}

}  // namespace aw::kernels
