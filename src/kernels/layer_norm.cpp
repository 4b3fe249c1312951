// Layer normalisation: xsimd kernel and its scalar reference. See layer_norm.hpp.
#include "kernels/layer_norm.hpp"

#include <cmath>

#include <xsimd/xsimd.hpp>

namespace aw {
namespace {

using batch = xsimd::batch<float>;  // 4 lanes on wasm simd128, 8 on AVX2, 16 on AVX-512
constexpr std::size_t lanes = batch::size;

struct Moments {
    float mean, rstd;
};

// From the first-pass mean and the second pass's sum d and sum d^2 (d = x - mean): the corrected
// mean and 1 / sqrt(var + eps), exact (xsimd::rsqrt is an approximation on some archs).
Moments corrected(float mean, float d_sum, float sq, std::size_t n, float eps)
{
    const float count = static_cast<float>(n);
    const float raw = (sq - d_sum * d_sum / count) / count;
    const float var = raw < 0.0f ? 0.0f : raw;  // rounding can leave it just below 0; NaN stays NaN
    return {mean + d_sum / count, 1.0f / std::sqrt(var + eps)};
}

void layer_norm_row(const float* x, const float* weight, const float* bias, float* y, std::size_t n, float eps)
{
    const std::size_t n_vec = n - n % lanes;

    // mean
    batch sum_v(0.0f);
    for (std::size_t i = 0; i < n_vec; i += lanes) sum_v += batch::load_unaligned(x + i);
    float sum = xsimd::reduce_add(sum_v);
    for (std::size_t i = n_vec; i < n; ++i) sum += x[i];
    const float mean = sum / static_cast<float>(n);  // first pass

    // biased variance, corrected two-pass (Chan, Golub, LeVeque): with d = x - mean,
    //   var = (sum d^2 - (sum d)^2 / n) / n, and the mean corrected by sum d / n, which removes
    //   the rounding error of the first pass (it matters for a large mean with a small spread).
    const batch mean_v(mean);
    batch d_v(0.0f), sq_v(0.0f);
    for (std::size_t i = 0; i < n_vec; i += lanes) {
        const batch d = batch::load_unaligned(x + i) - mean_v;
        d_v += d;
        sq_v += d * d;
    }
    float d_sum = xsimd::reduce_add(d_v), sq = xsimd::reduce_add(sq_v);
    for (std::size_t i = n_vec; i < n; ++i) {
        d_sum += x[i] - mean;
        sq += (x[i] - mean) * (x[i] - mean);
    }
    const Moments m = corrected(mean, d_sum, sq, n, eps);

    // out = (x - mean) * rstd * weight + bias (x and y may be the same: each x[i] is read before y[i])
    const batch shift_v(m.mean), rstd_v(m.rstd);
    for (std::size_t i = 0; i < n_vec; i += lanes) {
        batch v = (batch::load_unaligned(x + i) - shift_v) * rstd_v;
        if (weight) v *= batch::load_unaligned(weight + i);
        if (bias) v += batch::load_unaligned(bias + i);
        v.store_unaligned(y + i);
    }
    for (std::size_t i = n_vec; i < n; ++i) {
        float v = (x[i] - m.mean) * m.rstd;
        if (weight) v *= weight[i];
        if (bias) v += bias[i];
        y[i] = v;
    }
}

}  // namespace

void layer_norm(const float* x, const float* weight, const float* bias, float* y, std::size_t rows,
                std::size_t n, float eps)
{
    if (n == 0) return;
    for (std::size_t r = 0; r < rows; ++r) layer_norm_row(x + r * n, weight, bias, y + r * n, n, eps);
}

void layer_norm_reference(const float* x, const float* weight, const float* bias, float* y,
                          std::size_t rows, std::size_t n, float eps)
{
    if (n == 0) return;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * n;
        float* yr = y + r * n;
        float sum = 0.0f;
        for (std::size_t i = 0; i < n; ++i) sum += xr[i];
        const float mean = sum / static_cast<float>(n);
        float d_sum = 0.0f, sq = 0.0f;
        for (std::size_t i = 0; i < n; ++i) {
            d_sum += xr[i] - mean;
            sq += (xr[i] - mean) * (xr[i] - mean);
        }
        const Moments m = corrected(mean, d_sum, sq, n, eps);
        for (std::size_t i = 0; i < n; ++i)
            yr[i] = (xr[i] - m.mean) * m.rstd * (weight ? weight[i] : 1.0f) + (bias ? bias[i] : 0.0f);
    }
}

}  // namespace aw
