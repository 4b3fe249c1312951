// Tests for src/kernels/matmul: the xsimd kernels against their scalar references and
// against float64 sums, over sizes that hit every SIMD tail for 4, 8 and 16 lanes.
#include "kernels/matmul.hpp"

#include <catch2/catch.hpp>
#include <xsimd/xsimd.hpp>

#include <cmath>
#include <cstddef>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Every tail of 4-, 8- and 16-lane vectors and of the 4-row / 2-vector register tiles.
const std::size_t sizes[] = {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64, 65};

// Pointer offsets in floats: 0 keeps std::vector's alignment, 1 misaligns every row start.
const std::size_t offsets[] = {0, 1};

constexpr float sentinel = 1234.5f;   // fills output buffers around the written range
constexpr std::size_t guard = 17;     // sentinel floats after the output (more than one vector)

// A float buffer of `count` values starting `offset` floats into its storage, with sentinels
// before and after so that writes out of range are seen.
struct Buffer {
    std::vector<float> storage;
    std::size_t offset, count;
    Buffer(std::size_t count_, std::size_t offset_)
        : storage(offset_ + count_ + guard, sentinel), offset(offset_), count(count_) {}
    float* data() { return storage.data() + offset; }
    const float* data() const { return storage.data() + offset; }
    bool guards_intact() const
    {
        for (std::size_t i = 0; i < storage.size(); ++i)
            if ((i < offset || i >= offset + count) && storage[i] != sentinel) return false;
        return true;
    }
};

Buffer random_buffer(std::mt19937& rng, std::size_t count, std::size_t offset)
{
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    Buffer b(count, offset);
    for (std::size_t i = 0; i < count; ++i) b.data()[i] = uniform(rng);
    return b;
}

// Worst element of a comparison |got - want| <= rel * scale + abs. `scale` is the size of the
// terms that were summed (sum of |products|): a dot product cannot be more accurate than
// that, whatever cancellation leaves in the result.
struct Comparison {
    bool ok = true;
    std::size_t index = 0;
    double got = 0, want = 0, tolerance = 0;
};

Comparison compare(const float* got, const std::vector<double>& want,
                   const std::vector<double>& scale, double rel, double abs)
{
    Comparison worst;
    double worst_ratio = -1;
    for (std::size_t i = 0; i < want.size(); ++i) {
        const double tolerance = rel * scale[i] + abs;
        const double error = std::fabs(static_cast<double>(got[i]) - want[i]);
        if (!(error <= tolerance)) return {false, i, got[i], want[i], tolerance};  // NaN fails too
        const double ratio = tolerance > 0 ? error / tolerance : 0;
        if (ratio > worst_ratio) {
            worst_ratio = ratio;
            worst = {true, i, got[i], want[i], tolerance};
        }
    }
    return worst;
}

std::string describe(const Comparison& c)
{
    std::ostringstream s;
    s.precision(9);
    s << "worst element " << c.index << ": got " << c.got << ", want " << c.want
      << ", tolerance " << c.tolerance;
    return s.str();
}

std::vector<double> as_double(const float* x, std::size_t count)
{
    return std::vector<double>(x, x + count);
}

// Tolerances. Against float64: 1e-5 of the summed magnitudes plus 1e-6 absolute.
// xsimd against the scalar reference: 1e-6 of the summed magnitudes (both are float32 sums
// of the same products in a different order, with or without FMA).
constexpr double rel_float64 = 1e-5, abs_float64 = 1e-6;
constexpr double rel_tight = 1e-6, abs_tight = 0;

}  // namespace

TEST_CASE("kernels: a wasm build uses xsimd's wasm arch (4 lanes)", "[kernels]")
{
    // xsimd older than 13 has no wasm arch and silently falls back to SSE emulation (slow).
#if defined(__wasm_simd128__)
    CHECK(std::string(xsimd::default_arch::name()) == "wasm");
    CHECK(xsimd::batch<float>::size == 4);
#else
    SUCCEED("native build, xsimd arch " << xsimd::default_arch::name() << ", "
                                        << xsimd::batch<float>::size << " lanes");
#endif
}

TEST_CASE("matmul: xsimd == reference == float64 for every tail and misalignment", "[kernels][matmul]")
{
    std::mt19937 rng(20240601);
    for (std::size_t offset : offsets)
    for (std::size_t m : sizes)
    for (std::size_t k : sizes)
    for (std::size_t n : sizes) {
        CAPTURE(m, k, n, offset);
        const Buffer a = random_buffer(rng, m * k, offset);  // (m, k)
        const Buffer b = random_buffer(rng, k * n, offset);  // (k, n)
        Buffer c(m * n, offset), c_ref(m * n, offset);       // (m, n)

        aw::matmul(a.data(), b.data(), c.data(), m, k, n);
        aw::matmul_reference(a.data(), b.data(), c_ref.data(), m, k, n);

        // c[i, j] = sum_p a[i, p] b[p, j] in float64, and sum_p |a[i, p] b[p, j]|
        std::vector<double> want(m * n), scale(m * n);
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j)
                for (std::size_t p = 0; p < k; ++p) {
                    const double product = double(a.data()[i * k + p]) * double(b.data()[p * n + j]);
                    want[i * n + j] += product;
                    scale[i * n + j] += std::fabs(product);
                }

        const Comparison simd_vs_ref = compare(c.data(), as_double(c_ref.data(), m * n), scale, rel_tight, abs_tight);
        const Comparison simd_vs_f64 = compare(c.data(), want, scale, rel_float64, abs_float64);
        const Comparison ref_vs_f64 = compare(c_ref.data(), want, scale, rel_float64, abs_float64);
        INFO("xsimd vs reference: " << describe(simd_vs_ref));
        INFO("xsimd vs float64: " << describe(simd_vs_f64));
        INFO("reference vs float64: " << describe(ref_vs_f64));
        CHECK(simd_vs_ref.ok);
        CHECK(simd_vs_f64.ok);
        CHECK(ref_vs_f64.ok);
        CHECK(c.guards_intact());
        CHECK(c_ref.guards_intact());
    }
}

TEST_CASE("matmul_transposed_b: xsimd == reference == float64 for every tail and misalignment", "[kernels][matmul]")
{
    std::mt19937 rng(20240602);
    for (std::size_t offset : offsets)
    for (std::size_t m : sizes)
    for (std::size_t k : sizes)
    for (std::size_t n : sizes) {
        CAPTURE(m, k, n, offset);
        const Buffer a = random_buffer(rng, m * k, offset);  // (m, k)
        const Buffer b = random_buffer(rng, n * k, offset);  // (n, k)
        Buffer c(m * n, offset), c_ref(m * n, offset);       // (m, n)

        aw::matmul_transposed_b(a.data(), b.data(), c.data(), m, k, n);
        aw::matmul_transposed_b_reference(a.data(), b.data(), c_ref.data(), m, k, n);

        // c[i, j] = sum_p a[i, p] b[j, p] in float64
        std::vector<double> want(m * n), scale(m * n);
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j)
                for (std::size_t p = 0; p < k; ++p) {
                    const double product = double(a.data()[i * k + p]) * double(b.data()[j * k + p]);
                    want[i * n + j] += product;
                    scale[i * n + j] += std::fabs(product);
                }

        const Comparison simd_vs_ref = compare(c.data(), as_double(c_ref.data(), m * n), scale, rel_tight, abs_tight);
        const Comparison simd_vs_f64 = compare(c.data(), want, scale, rel_float64, abs_float64);
        const Comparison ref_vs_f64 = compare(c_ref.data(), want, scale, rel_float64, abs_float64);
        INFO("xsimd vs reference: " << describe(simd_vs_ref));
        INFO("xsimd vs float64: " << describe(simd_vs_f64));
        INFO("reference vs float64: " << describe(ref_vs_f64));
        CHECK(simd_vs_ref.ok);
        CHECK(simd_vs_f64.ok);
        CHECK(ref_vs_f64.ok);
        CHECK(c.guards_intact());
        CHECK(c_ref.guards_intact());
    }
}

TEST_CASE("linear: y = x W^T + bias, xsimd == reference == float64, with and without bias", "[kernels][matmul]")
{
    std::mt19937 rng(20240603);
    for (bool with_bias : {true, false})
    for (std::size_t offset : offsets)
    for (std::size_t m : sizes)
    for (std::size_t k : sizes)
    for (std::size_t n : sizes) {
        CAPTURE(with_bias, m, k, n, offset);
        const Buffer x = random_buffer(rng, m * k, offset);   // (m, k)
        const Buffer w = random_buffer(rng, n * k, offset);   // (n, k)
        const Buffer bias = random_buffer(rng, n, offset);    // (n)
        const float* bias_or_null = with_bias ? bias.data() : nullptr;
        Buffer y(m * n, offset), y_ref(m * n, offset);        // (m, n)

        aw::linear(x.data(), w.data(), bias_or_null, y.data(), m, k, n);
        aw::linear_reference(x.data(), w.data(), bias_or_null, y_ref.data(), m, k, n);

        // y[i, j] = sum_p x[i, p] w[j, p] + bias[j] in float64
        std::vector<double> want(m * n), scale(m * n);
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                for (std::size_t p = 0; p < k; ++p) {
                    const double product = double(x.data()[i * k + p]) * double(w.data()[j * k + p]);
                    want[i * n + j] += product;
                    scale[i * n + j] += std::fabs(product);
                }
                if (with_bias) {
                    want[i * n + j] += bias.data()[j];
                    scale[i * n + j] += std::fabs(bias.data()[j]);
                }
            }

        const Comparison simd_vs_ref = compare(y.data(), as_double(y_ref.data(), m * n), scale, rel_tight, abs_tight);
        const Comparison simd_vs_f64 = compare(y.data(), want, scale, rel_float64, abs_float64);
        const Comparison ref_vs_f64 = compare(y_ref.data(), want, scale, rel_float64, abs_float64);
        INFO("xsimd vs reference: " << describe(simd_vs_ref));
        INFO("xsimd vs float64: " << describe(simd_vs_f64));
        INFO("reference vs float64: " << describe(ref_vs_f64));
        CHECK(simd_vs_ref.ok);
        CHECK(simd_vs_f64.ok);
        CHECK(ref_vs_f64.ok);
        CHECK(y.guards_intact());
        CHECK(y_ref.guards_intact());
    }
}

TEST_CASE("matmul: small exact products", "[kernels][matmul]")
{
    // Integers small enough that every float32 sum is exact.
    const float a[] = {1, 2, 3,
                       4, 5, 6};          // (2, 3)
    const float b[] = {7, 8,
                       9, 10,
                       11, 12};           // (3, 2)
    const float bt[] = {7, 9, 11,
                        8, 10, 12};       // b^T (2, 3)
    const float bias[] = {0.5f, -1.0f};   // (2)

    float c[4], c_ref[4], c_t[4], c_t_ref[4], y[4], y_ref[4];
    aw::matmul(a, b, c, 2, 3, 2);
    aw::matmul_reference(a, b, c_ref, 2, 3, 2);
    aw::matmul_transposed_b(a, bt, c_t, 2, 3, 2);
    aw::matmul_transposed_b_reference(a, bt, c_t_ref, 2, 3, 2);
    aw::linear(a, bt, bias, y, 2, 3, 2);
    aw::linear_reference(a, bt, bias, y_ref, 2, 3, 2);

    const float want[] = {58, 64, 139, 154};
    const float want_y[] = {58.5f, 63, 139.5f, 153};
    for (int i = 0; i < 4; ++i) {
        CAPTURE(i);
        CHECK(c[i] == want[i]);
        CHECK(c_ref[i] == want[i]);
        CHECK(c_t[i] == want[i]);
        CHECK(c_t_ref[i] == want[i]);
        CHECK(y[i] == want_y[i]);
        CHECK(y_ref[i] == want_y[i]);
    }
}

TEST_CASE("matmul: k == 0 writes zeros", "[kernels][matmul]")
{
    const float unused = 0.0f;
    for (std::size_t n : sizes) {
        CAPTURE(n);
        std::vector<float> c(3 * n, sentinel), c_t(3 * n, sentinel), y(3 * n, sentinel);
        std::vector<float> bias(n, 2.0f);
        aw::matmul(&unused, &unused, c.data(), 3, 0, n);
        aw::matmul_transposed_b(&unused, &unused, c_t.data(), 3, 0, n);
        aw::linear(&unused, &unused, bias.data(), y.data(), 3, 0, n);
        for (std::size_t i = 0; i < 3 * n; ++i) {
            CHECK(c[i] == 0.0f);
            CHECK(c_t[i] == 0.0f);
            CHECK(y[i] == 2.0f);  // bias only
        }
    }
}
