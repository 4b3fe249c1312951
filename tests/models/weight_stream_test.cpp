// Tests for src/models/weight_stream: the F16 / BF16 widening against their definitions over
// every bit pattern, little-endian decoding at any alignment, and the stream's conversion of
// tensors arriving in chunks of every size (elements split across chunks, bytes between tensors
// skipped), its order check and its overlap check.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "models/weight_stream.hpp"

namespace {

// binary16 by its definition: (-1)^s 2^(e-15) (1 + m/1024); subnormal (-1)^s 2^-14 m/1024
double half_value(std::uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0) return sign * std::ldexp(m, -24);
  if (e == 31) return m ? NAN : sign * INFINITY;
  return sign * std::ldexp(1.0 + m / 1024.0, e - 15);
}

// bfloat16 by its definition: (-1)^s 2^(e-127) (1 + m/128); subnormal (-1)^s 2^-126 m/128
double bfloat16_value(std::uint16_t b) {
  const double sign = (b & 0x8000) ? -1.0 : 1.0;
  const int e = (b >> 7) & 0xff, m = b & 0x7f;
  if (e == 0) return sign * std::ldexp(m, -133);
  if (e == 255) return m ? NAN : sign * INFINITY;
  return sign * std::ldexp(1.0 + m / 128.0, e - 127);
}

bool same_value(float got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return static_cast<double>(got) == want && std::signbit(got) == std::signbit(want);
}

void put16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v & 0xff));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put32(std::vector<std::uint8_t>& out, float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
}

}  // namespace

TEST_CASE("half_to_float and bfloat16_to_float: every bit pattern as the definition says", "[models][weight_stream]") {
  for (std::uint32_t bits = 0; bits < 65536; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    INFO("bits 0x" << std::hex << bits);
    REQUIRE(same_value(aw::half_to_float(h), half_value(h)));
    REQUIRE(same_value(aw::bfloat16_to_float(h), bfloat16_value(h)));
  }
}

TEST_CASE("decode_weights: little-endian elements at any alignment", "[models][weight_stream]") {
  const float values[] = {1.5f, -0.0f, 3.25e-39f /* subnormal */, -INFINITY, 65504.0f};
  for (std::size_t misalign = 0; misalign < 4; ++misalign) {
    std::vector<std::uint8_t> bytes(misalign, 0xee);
    for (float v : values) put32(bytes, v);
    float out[5];
    aw::decode_weights(aw::WeightDtype::F32, bytes.data() + misalign, out, 5);
    CHECK(std::memcmp(out, values, sizeof values) == 0);
  }
  std::vector<std::uint8_t> half{0xee};
  for (std::uint16_t h : {0x3c00, 0xc000, 0x0001, 0x7bff}) put16(half, h);
  float out[4];
  aw::decode_weights(aw::WeightDtype::F16, half.data() + 1, out, 4);
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == -2.0f);
  CHECK(out[2] == std::ldexp(1.0f, -24));
  CHECK(out[3] == 65504.0f);
}

TEST_CASE("parse_weight_dtype: F32, F16, BF16; anything else a Type error naming the tensor",
          "[models][weight_stream]") {
  CHECK(aw::parse_weight_dtype("BF16", "x") == aw::WeightDtype::BF16);
  CHECK(aw::dtype_bytes(aw::WeightDtype::F16) == 2);
  try {
    aw::parse_weight_dtype("I64", "tensor 'ids'");
    FAIL("no error");
  } catch (const aw::Error& e) {
    CHECK(e.kind() == aw::ErrorKind::Type);
    CHECK(std::string(e.what()) == "tensor 'ids' has dtype I64; only F32, F16 and BF16 are read");
  }
}

TEST_CASE("WeightStream: tensors in chunks of every size, split elements, skipped bytes between them",
          "[models][weight_stream]") {
  // A data section: 3 bytes skipped, a (5) F16 tensor, 1 byte skipped, a (3) F32 tensor at an odd
  // offset, a (4) BF16 tensor, 2 bytes skipped.
  std::vector<std::uint8_t> data(3, 0xaa);
  const std::uint16_t halves[] = {0x3c00, 0x3555, 0x8001, 0x7c00, 0xfbff};
  for (auto h : halves) put16(data, h);
  data.push_back(0xbb);
  const float floats[] = {0.1f, -7.0f, 1e30f};
  const std::uint64_t f32_begin = data.size();
  for (float f : floats) put32(data, f);
  const std::uint16_t bfloats[] = {0x3f80, 0xc040, 0x0001, 0x7f7f};
  const std::uint64_t bf_begin = data.size();
  for (auto b : bfloats) put16(data, b);
  data.push_back(0xcc);
  data.push_back(0xdd);

  for (std::size_t chunk = 1; chunk <= 17; ++chunk) {
    CAPTURE(chunk);
    float h[5], f[3], b[4];
    std::fill(h, h + 5, 99.0f), std::fill(f, f + 3, 99.0f), std::fill(b, b + 4, 99.0f);
    aw::WeightStream stream({{"f32", aw::WeightDtype::F32, f32_begin, f32_begin + 12, f},
                             {"bf16", aw::WeightDtype::BF16, bf_begin, bf_begin + 8, b},
                             {"f16", aw::WeightDtype::F16, 3, 13, h}});
    CHECK(stream.first_incomplete()->name == "f16");
    for (std::size_t at = 0; at < data.size(); at += chunk)
      stream.write(at, data.data() + at, std::min(chunk, data.size() - at));
    CHECK(stream.first_incomplete() == nullptr);
    for (int i = 0; i < 5; ++i) CHECK(same_value(h[i], half_value(halves[i])));
    for (int i = 0; i < 3; ++i) CHECK(f[i] == floats[i]);
    for (int i = 0; i < 4; ++i) CHECK(same_value(b[i], bfloat16_value(bfloats[i])));
  }
}

TEST_CASE("WeightStream: out-of-order bytes, overlapping or partial-element tensors are errors",
          "[models][weight_stream]") {
  float dst[8] = {};
  const std::vector<std::uint8_t> bytes(64, 0);
  aw::WeightStream stream({{"a", aw::WeightDtype::F32, 0, 16, dst}, {"b", aw::WeightDtype::F32, 16, 32, dst + 4}});
  stream.write(0, bytes.data(), 8);
  try {
    stream.write(12, bytes.data(), 8);  // skips bytes 8..11 of 'a'
    FAIL("no error");
  } catch (const aw::Error& e) {
    CHECK(e.kind() == aw::ErrorKind::Range);
    CHECK(std::string(e.what()) ==
          "tensor 'a': bytes from 12 arrived, but the next expected byte is 8 (writes must follow the file order)");
  }
  CHECK(stream.bytes_written(*stream.first_incomplete()) == 8);  // nothing was written by the failed call
  auto error_of = [](std::vector<aw::WeightTarget> targets) {
    try {
      aw::WeightStream s(std::move(targets));
    } catch (const aw::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of({{"a", aw::WeightDtype::F32, 0, 16, dst}, {"b", aw::WeightDtype::F32, 12, 28, dst}}) ==
        "tensor 'b': data_offsets [12, 28] overlap tensor 'a' [0, 16]");
  CHECK(error_of({{"a", aw::WeightDtype::F16, 0, 3, dst}}) ==
        "tensor 'a': data_offsets [0, 3] do not hold whole elements");
}
