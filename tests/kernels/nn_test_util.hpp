// Helpers shared by the kernel tests of the layers around attention (activation, elementwise,
// layer_norm, positional_encoding): buffers at a chosen misalignment with guard sentinels, and a
// comparison against float64 that reports the worst element.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace nn_test {

// Sizes through every SIMD tail for 4, 8 and 16 float lanes (and 2, 4, 8 double lanes).
const std::size_t sizes[] = {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64, 65};
const std::size_t offsets[] = {0, 1};  // floats; 1 misaligns every pointer

constexpr float sentinel = 1234.5f;
constexpr std::size_t guard = 17;

// `count` floats at `offset` floats into the storage, with sentinels around them.
struct Buffer {
    std::vector<float> storage;
    std::size_t offset, count;
    Buffer(std::size_t count_, std::size_t offset_)
        : storage(offset_ + count_ + guard, sentinel), offset(offset_), count(count_) {}
    float* data() { return storage.data() + offset; }
    const float* data() const { return storage.data() + offset; }
    float& operator[](std::size_t i) { return data()[i]; }
    bool guards_intact() const
    {
        for (std::size_t i = 0; i < storage.size(); ++i)
            if ((i < offset || i >= offset + count) && storage[i] != sentinel) return false;
        return true;
    }
    bool same_values(const Buffer& other) const  // bitwise-equal payload (NaN == NaN)
    {
        for (std::size_t i = 0; i < count; ++i) {
            const float a = data()[i], b = other.data()[i];
            if (!(a == b || (std::isnan(a) && std::isnan(b)))) return false;
        }
        return true;
    }
};

inline Buffer random_buffer(std::mt19937& rng, std::size_t count, std::size_t offset, float stddev, float mean = 0.0f)
{
    std::normal_distribution<float> normal(mean, stddev);
    Buffer b(count, offset);
    for (std::size_t i = 0; i < count; ++i) b[i] = normal(rng);
    return b;
}

// First element failing |got - want| <= rel |want| + abs (NaN must match NaN, inf must match
// exactly), or else the element closest to failing.
struct Comparison {
    bool ok = true;
    std::size_t index = 0;
    double got = 0, want = 0, tolerance = 0;
};

inline Comparison compare(const float* got, const std::vector<double>& want, double rel, double abs)
{
    Comparison worst;
    double worst_ratio = -1;
    for (std::size_t i = 0; i < want.size(); ++i) {
        const double g = got[i], w = want[i];
        if (std::isnan(w) || std::isnan(g) || std::isinf(w) || std::isinf(g)) {
            const bool same = (std::isnan(w) && std::isnan(g)) || g == w;
            if (!same) return {false, i, g, w, 0};
            continue;
        }
        const double tolerance = rel * std::fabs(w) + abs;
        const double error = std::fabs(g - w);
        if (!(error <= tolerance)) return {false, i, g, w, tolerance};
        if (error / tolerance > worst_ratio) {
            worst_ratio = error / tolerance;
            worst = {true, i, g, w, tolerance};
        }
    }
    return worst;
}

inline std::vector<double> as_double(const float* p, std::size_t n) { return std::vector<double>(p, p + n); }

inline std::string describe(const Comparison& c)
{
    std::ostringstream s;
    s.precision(9);
    s << (c.ok ? "ok, worst element " : "FAILS at element ") << c.index << ": got " << c.got << ", want " << c.want
      << ", tolerance " << c.tolerance;
    return s.str();
}

}  // namespace nn_test
