#include "models/weight_stream.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.hpp"
#include "models/quantized_weight_writer.hpp"

namespace aw {

WeightDtype parse_weight_dtype(const std::string& name, const std::string& where) {
  if (name == "F32") return WeightDtype::F32;
  if (name == "F16") return WeightDtype::F16;
  if (name == "BF16") return WeightDtype::BF16;
  fail(ErrorKind::Type, where + " has dtype " + name + "; only F32, F16 and BF16 are read");
}

std::size_t dtype_bytes(WeightDtype dtype) { return dtype == WeightDtype::F32 ? 4 : 2; }

// binary16: sign (1) | exponent (5, bias 15) | mantissa (10). Normal numbers move the exponent
// to float's bias 127 (+112) and the mantissa up 13 bits; subnormals are mantissa * 2^-24,
// exact in float; exponent 31 is inf/NaN.
float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // 0 or subnormal
    std::memcpy(&bits, &magnitude, sizeof bits);
    bits |= sign;
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

float bfloat16_to_float(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

void decode_weights(WeightDtype dtype, const std::uint8_t* src, float* dst, std::size_t count) {
  // Little-endian assembled byte by byte (any alignment, any host order).
  switch (dtype) {
    case WeightDtype::F32:
      for (std::size_t i = 0; i < count; ++i, src += 4) {
        const std::uint32_t bits = static_cast<std::uint32_t>(src[0]) | static_cast<std::uint32_t>(src[1]) << 8 |
                                   static_cast<std::uint32_t>(src[2]) << 16 | static_cast<std::uint32_t>(src[3]) << 24;
        std::memcpy(dst + i, &bits, sizeof bits);
      }
      break;
    case WeightDtype::F16:
      for (std::size_t i = 0; i < count; ++i, src += 2)
        dst[i] = half_to_float(static_cast<std::uint16_t>(src[0] | src[1] << 8));
      break;
    case WeightDtype::BF16:
      for (std::size_t i = 0; i < count; ++i, src += 2)
        dst[i] = bfloat16_to_float(static_cast<std::uint16_t>(src[0] | src[1] << 8));
      break;
  }
}

WeightStream::WeightStream(std::vector<WeightTarget> targets) {
  std::sort(targets.begin(), targets.end(),
            [](const WeightTarget& a, const WeightTarget& b) { return a.begin < b.begin; });
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const WeightTarget& t = targets[i];
    if (t.end < t.begin || (t.end - t.begin) % dtype_bytes(t.dtype) != 0)
      fail(ErrorKind::Shape, "tensor '" + t.name + "': data_offsets [" + std::to_string(t.begin) + ", " +
                                 std::to_string(t.end) + "] do not hold whole elements");
    if (i > 0 && t.begin < targets[i - 1].end)
      fail(ErrorKind::Shape, "tensor '" + t.name + "': data_offsets [" + std::to_string(t.begin) + ", " +
                                 std::to_string(t.end) + "] overlap tensor '" + targets[i - 1].name + "' [" +
                                 std::to_string(targets[i - 1].begin) + ", " + std::to_string(targets[i - 1].end) +
                                 "]");
  }
  states_.reserve(targets.size());
  for (auto& t : targets) states_.push_back(State{std::move(t)});
}

void WeightStream::write(std::uint64_t offset, const std::uint8_t* bytes, std::size_t n) {
  const std::uint64_t stop = offset + n;
  // the first target that ends after offset
  auto first = std::upper_bound(states_.begin(), states_.end(), offset,
                                [](std::uint64_t o, const State& s) { return o < s.target.end; });
  // Check every target this write touches before converting anything.
  for (auto it = first; it != states_.end() && it->target.begin < stop; ++it) {
    const std::uint64_t from = std::max(offset, it->target.begin);
    if (from - it->target.begin != it->written)
      fail(ErrorKind::Range, "tensor '" + it->target.name + "': bytes from " + std::to_string(from) +
                                 " arrived, but the next expected byte is " +
                                 std::to_string(it->target.begin + it->written) +
                                 " (writes must follow the file order)");
  }
  for (auto it = first; it != states_.end() && it->target.begin < stop; ++it) {
    State& s = *it;
    const std::uint64_t from = std::max(offset, s.target.begin), to = std::min(stop, s.target.end);
    const std::uint8_t* p = bytes + (from - offset);
    std::size_t left = static_cast<std::size_t>(to - from);
    if (s.target.quantized) {  // the writer keeps its own split element
      s.target.quantized->write(p, left);
      s.written += left;
      continue;
    }
    const std::size_t size = dtype_bytes(s.target.dtype);
    std::size_t pos = static_cast<std::size_t>(s.written);  // bytes into the tensor
    // 1. complete an element that the previous chunk split
    if (pos % size != 0) {
      const std::size_t have = pos % size, take = std::min(size - have, left);
      std::memcpy(s.partial + have, p, take);
      p += take, left -= take, pos += take;
      if (pos % size == 0) store(s.target, s.partial, pos / size - 1, 1);
    }
    // 2. whole elements
    const std::size_t whole = left / size;
    store(s.target, p, pos / size, whole);
    p += whole * size, left -= whole * size, pos += whole * size;
    // 3. the start of an element that the next chunk completes
    std::memcpy(s.partial, p, left);
    pos += left;
    s.written = pos;
  }
}

// Elements [first, first + count) of the target, at src, converted into place.
void WeightStream::store(const WeightTarget& t, const std::uint8_t* src, std::size_t first, std::size_t count) {
  if (!t.transposed) return decode_weights(t.dtype, src, t.dst + first, count);
  // element i of the stored (rows, cols) matrix is (i / cols, i % cols): it goes to
  // dst[(i % cols) * rows + i / cols]; converted a block at a time, then scattered
  constexpr std::size_t block = 256;
  float converted[block];
  for (std::size_t done = 0; done < count; done += block) {
    const std::size_t n = std::min(block, count - done);
    decode_weights(t.dtype, src + done * dtype_bytes(t.dtype), converted, n);
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t i = first + done + j;
      t.dst[(i % t.cols) * t.rows + i / t.cols] = converted[j];
    }
  }
}

const WeightTarget* WeightStream::first_incomplete() const {
  for (const State& s : states_)
    if (s.written != s.target.end - s.target.begin) return &s.target;
  return nullptr;
}

std::uint64_t WeightStream::bytes_written(const WeightTarget& target) const {
  for (const State& s : states_)
    if (&s.target == &target) return s.written;
  return 0;
}

}  // namespace aw
