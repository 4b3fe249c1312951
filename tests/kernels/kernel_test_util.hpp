// Helpers shared by every kernel test (tests/kernels/*_test.cpp): the sizes and misalignments
// swept, buffers at a chosen misalignment with guard sentinels, random fills, and comparisons
// against float64 that report the first failing (or else the worst) element.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace kernel_test {

// Sizes through every SIMD tail for 4, 8 and 16 float lanes (2, 4 and 8 double lanes) and of
// matmul's 4-row / 2-vector register tiles: every remainder mod 16 (0 to 17), then a few past
// the blocks.
const std::size_t sizes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 33, 64, 65};
// Pointer offsets in floats: 0 keeps std::vector's alignment, 1 misaligns every pointer.
const std::size_t offsets[] = {0, 1};

constexpr float infinity = std::numeric_limits<float>::infinity();
constexpr float not_a_number = std::numeric_limits<float>::quiet_NaN();

#if defined(__SANITIZE_ADDRESS__)
#define AW_TEST_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AW_TEST_ADDRESS_SANITIZER 1
#endif
#endif

constexpr float sentinel = 1234.5f;  // fills a buffer's storage around its payload
#if defined(AW_TEST_ADDRESS_SANITIZER)
// Under AddressSanitizer the payload ends its allocation, so that a read past it (a vector load
// over a tail) is reported, as well as a write; the sentinels before it stay.
constexpr std::size_t guard = 0;
#else
constexpr std::size_t guard = 17;  // sentinel floats after the payload (more than one vector)
#endif

// `count` floats at `offset` floats into the storage, with sentinels before and after them so
// that writes out of range are seen (and, under AddressSanitizer, reads past the end).
struct Buffer {
  std::vector<float> storage;
  std::size_t offset, count;
  Buffer(std::size_t count_, std::size_t offset_)  // never empty: data() is never null
      : storage(std::max<std::size_t>(offset_ + count_ + guard, 1), sentinel), offset(offset_), count(count_) {}
  float* data() { return storage.data() + offset; }
  const float* data() const { return storage.data() + offset; }
  float& operator[](std::size_t i) { return data()[i]; }
  bool guards_intact() const {
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

// Values uniform in [-1, 1).
inline Buffer uniform_buffer(std::mt19937& rng, std::size_t count, std::size_t offset) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Buffer b(count, offset);
  for (std::size_t i = 0; i < count; ++i) b[i] = uniform(rng);
  return b;
}

// Values normal(mean, stddev).
inline Buffer normal_buffer(std::mt19937& rng, std::size_t count, std::size_t offset, float stddev, float mean = 0.0f) {
  std::normal_distribution<float> normal(mean, stddev);
  Buffer b(count, offset);
  for (std::size_t i = 0; i < count; ++i) b[i] = normal(rng);
  return b;
}

inline std::vector<double> as_double(const float* p, std::size_t n) { return std::vector<double>(p, p + n); }

// |want[i]|: the scale of a comparison relative to the value itself.
inline std::vector<double> magnitudes(const std::vector<double>& want) {
  std::vector<double> m(want.size());
  for (std::size_t i = 0; i < want.size(); ++i) m[i] = std::fabs(want[i]);
  return m;
}

// A comparison passes where |got - want| <= rel * scale + abs.
struct Tolerance {
  double rel, abs;
};

struct Comparison {
  bool ok = true;
  std::size_t index = 0;
  double got = 0, want = 0, tolerance = 0;
};

// First element failing |got - want| <= rel * scale[i] + abs, or else the element closest to
// failing. NaN must meet NaN and an infinity the same infinity. `scale` is the size of what was
// summed (e.g. sum of |products| for a dot product, which cannot be more accurate than that
// whatever cancellation leaves), or |want| (magnitudes) for a tolerance relative to the value.
inline Comparison compare(const float* got, const std::vector<double>& want, const std::vector<double>& scale,
                          Tolerance t) {
  Comparison worst;
  double worst_ratio = -1;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double g = got[i], w = want[i];
    if (std::isnan(w) || std::isnan(g) || std::isinf(w) || std::isinf(g)) {
      const bool same = (std::isnan(w) && std::isnan(g)) || g == w;
      if (!same) return {false, i, g, w, 0};
      continue;
    }
    const double tolerance = t.rel * scale[i] + t.abs;
    const double error = std::fabs(g - w);
    if (!(error <= tolerance)) return {false, i, g, w, tolerance};
    const double ratio = tolerance > 0 ? error / tolerance : 0;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = {true, i, g, w, tolerance};
    }
  }
  return worst;
}

// Relative to the value: |got - want| <= rel |want| + abs.
inline Comparison compare(const float* got, const std::vector<double>& want, Tolerance t) {
  return compare(got, want, magnitudes(want), t);
}

inline std::string describe(const Comparison& c) {
  std::ostringstream s;
  s.precision(9);
  s << (c.ok ? "ok, worst element " : "FAILS at element ") << c.index << ": got " << c.got << ", want " << c.want
    << ", tolerance " << c.tolerance;
  return s.str();
}

// The three comparisons of every kernel test: the xsimd result against the scalar reference's
// (`tight`: the same float32 maths in another order), and each against float64 (`loose`).
// `what` prefixes the messages (e.g. "weights, "). With `scale`, every tolerance is relative to
// it (as in compare()); without, to the value compared with (the reference's, or float64's).
inline void check_simd_reference_float64(const std::string& what, const float* simd, const float* reference,
                                         const std::vector<double>& want, const std::vector<double>* scale,
                                         Tolerance tight, Tolerance loose) {
  const std::vector<double> ref = as_double(reference, want.size());
  const Comparison simd_vs_ref = compare(simd, ref, scale ? *scale : magnitudes(ref), tight);
  const Comparison simd_vs_f64 = compare(simd, want, scale ? *scale : magnitudes(want), loose);
  const Comparison ref_vs_f64 = compare(reference, want, scale ? *scale : magnitudes(want), loose);
  INFO(what << "xsimd vs reference: " << describe(simd_vs_ref));
  INFO(what << "xsimd vs float64: " << describe(simd_vs_f64));
  INFO(what << "reference vs float64: " << describe(ref_vs_f64));
  CHECK(simd_vs_ref.ok);
  CHECK(simd_vs_f64.ok);
  CHECK(ref_vs_f64.ok);
}

}  // namespace kernel_test
