// Tests for src/models/quantized_weight_writer: a weight's F32 / F16 / BF16 bytes streamed in
// chunks of every size (elements split across chunks) give the same int8 weight, byte for byte,
// as quantizing the decoded float32 weight at once; writes past the end are refused.
#include "models/quantized_weight_writer.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "ops/quantized_linear.hpp"

namespace {

// n x k random values as the dtype's little-endian bytes, and the floats they decode to.
struct Encoded {
  std::vector<std::uint8_t> bytes;
  std::vector<float> floats;
};

Encoded encode(aw::WeightDtype dtype, std::size_t count, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 0.3f);
  Encoded e;
  for (std::size_t i = 0; i < count; ++i) {
    const float v = normal(rng);
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    if (dtype == aw::WeightDtype::F32) {
      for (int b = 0; b < 4; ++b) e.bytes.push_back(static_cast<std::uint8_t>(bits >> (8 * b)));
    } else {
      // F16: a value exactly representable (small integer multiples of 2^-10); BF16: the top half
      const std::uint16_t h = dtype == aw::WeightDtype::BF16
                                  ? static_cast<std::uint16_t>(bits >> 16)
                                  : static_cast<std::uint16_t>(0x3c00 + (i * 7919) % 1024) ^ (i % 2 ? 0x8000 : 0);
      e.bytes.push_back(static_cast<std::uint8_t>(h));
      e.bytes.push_back(static_cast<std::uint8_t>(h >> 8));
    }
  }
  e.floats.resize(count);
  aw::decode_weights(dtype, e.bytes.data(), e.floats.data(), count);
  return e;
}

bool same_weight(const aw::QuantizedLinearWeight& a, const aw::QuantizedLinearWeight& b) {
  // compared as vectors (an empty one's data() may be null, which memcmp must not get)
  auto bytes = [](const auto& v) {
    const auto* p = reinterpret_cast<const unsigned char*>(v.data());
    return std::vector<unsigned char>(p, p + v.size() * sizeof(v[0]));
  };
  return bytes(a.packed) == bytes(b.packed) && bytes(a.scales) == bytes(b.scales) && bytes(a.sums) == bytes(b.sums);
}

}  // namespace

TEST_CASE("QuantizedWeightWriter: chunks of every size give the weight quantized at once", "[models][quantized]") {
  std::mt19937 rng(20260401);
  for (aw::WeightDtype dtype : {aw::WeightDtype::F32, aw::WeightDtype::F16, aw::WeightDtype::BF16})
    for (std::size_t chunk : {1, 3, 5, 64, 1000, 1 << 20})
      for (auto [n, k] : {std::pair<std::size_t, std::size_t>{9, 37}, {16, 300}, {1, 1}, {3, 0}}) {
        CAPTURE(static_cast<int>(dtype), chunk, n, k);
        const Encoded e = encode(dtype, n * k, rng);
        const aw::QuantizedLinearWeight want = aw::quantize_linear_weight(
            aw::TensorRef{e.floats.data(), {static_cast<std::int64_t>(n), static_cast<std::int64_t>(k)}});
        aw::QuantizedLinearWeight got(static_cast<std::int64_t>(n), static_cast<std::int64_t>(k), "test");
        aw::QuantizedWeightWriter writer(dtype, got, "layer.weight");
        CHECK(writer.total_bytes() == e.bytes.size());
        for (std::size_t at = 0; at < e.bytes.size(); at += chunk) {
          CHECK(!writer.complete());
          writer.write(e.bytes.data() + at, std::min(chunk, e.bytes.size() - at));
        }
        CHECK(writer.complete());
        CHECK(same_weight(got, want));
      }
}

TEST_CASE("QuantizedWeightWriter: a weight stored transposed (in, out) gives the weight quantized at once",
          "[models][quantized]") {
  std::mt19937 rng(20260402);
  for (aw::WeightDtype dtype : {aw::WeightDtype::F32, aw::WeightDtype::BF16})
    for (std::size_t chunk : {3, 1000})
      for (auto [n, k] : {std::pair<std::size_t, std::size_t>{9, 37}, {16, 300}, {1, 1}}) {
        CAPTURE(static_cast<int>(dtype), chunk, n, k);
        const Encoded e = encode(dtype, n * k, rng);  // stored (k, n)
        std::vector<float> w(n * k);                  // (n, k)
        for (std::size_t p = 0; p < k; ++p)
          for (std::size_t j = 0; j < n; ++j) w[j * k + p] = e.floats[p * n + j];
        const aw::QuantizedLinearWeight want = aw::quantize_linear_weight(
            aw::TensorRef{w.data(), {static_cast<std::int64_t>(n), static_cast<std::int64_t>(k)}});
        aw::QuantizedLinearWeight got(static_cast<std::int64_t>(n), static_cast<std::int64_t>(k), "test");
        aw::QuantizedWeightWriter writer(dtype, got, "h.0.mlp.c_fc.weight", true);
        for (std::size_t at = 0; at < e.bytes.size(); at += chunk)
          writer.write(e.bytes.data() + at, std::min(chunk, e.bytes.size() - at));
        CHECK(writer.complete());
        CHECK(same_weight(got, want));
      }
}

TEST_CASE("QuantizedWeightWriter: bytes past the tensor's end are refused", "[models][quantized]") {
  aw::QuantizedLinearWeight q(2, 3, "test");
  aw::QuantizedWeightWriter writer(aw::WeightDtype::F16, q, "encoder.layer.0.ffn.lin1.weight");
  const std::vector<std::uint8_t> bytes(14, 0);
  writer.write(bytes.data(), 10);
  try {
    writer.write(bytes.data(), 4);
    FAIL("no error");
  } catch (const aw::Error& e) {
    CHECK(e.kind() == aw::ErrorKind::Range);
    CHECK(std::string(e.what()) == "tensor 'encoder.layer.0.ffn.lin1.weight': 4 more bytes after 10 run past its 12");
  }
  CHECK(writer.bytes_written() == 10);
  writer.write(bytes.data(), 2);
  CHECK(writer.complete());
}

TEST_CASE("QuantizedWeightWriter: tensors filling row ranges of one weight (q, k, v) give it quantized at once",
          "[models][quantized]") {
  std::mt19937 rng(20260403);
  for (bool transposed : {false, true})
    for (auto [k, parts] : {std::pair<std::size_t, std::vector<std::size_t>>{12, {12, 12, 12}}, {37, {5, 9, 2}}}) {
      CAPTURE(transposed, k);
      std::size_t n = 0;
      for (std::size_t rows : parts) n += rows;
      std::vector<Encoded> encoded;
      std::vector<float> w(n * k);  // (n, k): the parts' rows back to back
      std::size_t first = 0;
      for (std::size_t rows : parts) {
        encoded.push_back(encode(aw::WeightDtype::F32, rows * k, rng));  // stored (rows, k) or (k, rows)
        for (std::size_t j = 0; j < rows; ++j)
          for (std::size_t p = 0; p < k; ++p)
            w[(first + j) * k + p] =
                transposed ? encoded.back().floats[p * rows + j] : encoded.back().floats[j * k + p];
        first += rows;
      }
      const aw::QuantizedLinearWeight want = aw::quantize_linear_weight(
          aw::TensorRef{w.data(), {static_cast<std::int64_t>(n), static_cast<std::int64_t>(k)}});
      aw::QuantizedLinearWeight got(static_cast<std::int64_t>(n), static_cast<std::int64_t>(k), "test");
      first = 0;
      for (std::size_t i = 0; i < parts.size(); ++i) {
        aw::QuantizedWeightWriter writer(aw::WeightDtype::F32, got, "part", transposed, first, parts[i]);
        CHECK(writer.total_bytes() == parts[i] * k * 4);
        const auto& bytes = encoded[i].bytes;
        for (std::size_t at = 0; at < bytes.size(); at += 7)
          writer.write(bytes.data() + at, std::min<std::size_t>(7, bytes.size() - at));
        CHECK(writer.complete());
        first += parts[i];
      }
      CHECK(same_weight(got, want));
    }
}
