// Tests for src/ops/quantized_linear: the int8 weight (validation, storage, dequantize), the op's
// shape checks and messages, batch dims and empty sizes, and the op over 1 and 2 threads against
// the kernel (byte-identical: rows are independent).
#include "ops/quantized_linear.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "kernels/kernel_test_util.hpp"  // uniform_buffer
#include "kernels/quantize.hpp"
#include "kernels/quantized_matmul.hpp"

namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const aw::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("quantize_linear_weight: int8 per output channel, dequantize within half a step", "[ops][quantized_linear]") {
  std::mt19937 rng(20260301);
  const std::size_t n = 13, k = 37;
  auto w = kernel_test::normal_buffer(rng, n * k, 0, 0.2f);
  const aw::QuantizedLinearWeight q = aw::quantize_linear_weight(aw::TensorRef{w.data(), {13, 37}});
  CHECK(q.shape() == aw::Shape{13, 37});
  // 16 channels (two panels) x 40 values (ten groups of 4: whole pairs) + 16 scales + 16 sums
  CHECK(q.resident_bytes() == 16 * 40 + 16 * 4 + 16 * 4);
  const aw::Tensor back = aw::dequantize(q);
  CHECK(back.shape == aw::Shape{13, 37});
  for (std::size_t j = 0; j < n; ++j) {
    const auto row = aw::kernels::weight_quantization_reference(w.data() + j * k, k);
    CHECK(q.scales[j] == row.scale);
    for (std::size_t p = 0; p < k; ++p) {
      CAPTURE(j, p);
      CHECK(std::fabs(back.data[j * k + p] - w[j * k + p]) <= 0.5f * row.scale * 1.0001f);
    }
  }
}

TEST_CASE("quantize_linear_weight and quantized_linear: shape errors name the arguments", "[ops][quantized_linear]") {
  std::vector<float> data(64, 0.5f);
  CHECK(error_of([&] {
          aw::quantize_linear_weight(aw::TensorRef{data.data(), {64}});
        }) == "quantize: weight must be 2-D (out_features, in_features), got [64]");
  CHECK(error_of([&] {
          aw::QuantizedLinearWeight(2, aw::kMaxQuantizedInFeatures + 1, "quantize");
        }).rfind("quantize: weight [2, 131073] has in_features 131073, more than the 131072", 0) == 0);
  const aw::QuantizedLinearWeight q = aw::quantize_linear_weight(aw::TensorRef{data.data(), {4, 8}});
  CHECK(error_of([&] {
          aw::quantized_linear(aw::TensorRef{data.data(), {2, 7}}, q, nullptr);
        }) == "linear: input [2, 7], weight [4, 8] (int8): input's last dimension 7 must equal weight's in_features 8");
  const aw::TensorRef bias{data.data(), {5}};
  CHECK(error_of([&] {
          aw::quantized_linear(aw::TensorRef{data.data(), {2, 8}}, q, &bias);
        }) == "linear: bias must have shape [4] or [], got input [2, 8], weight [4, 8] (int8), bias [5]");
  CHECK(error_of([&] {
          aw::quantized_linear(aw::TensorRef{data.data(), {}}, q, nullptr);
        }).rfind("linear: input needs at least 1 dimension", 0) == 0);
}

TEST_CASE("quantized_linear op: batch dims, 1 and 2 threads, equals the kernel", "[ops][quantized_linear]") {
  std::mt19937 rng(20260302);
  // input (3, 70, 300), weight (131, 300): 210 rows, 16.5 M multiply-adds, so that 2 threads split
  // it; 131 outputs leave 3 channels after the last whole panel
  const std::size_t m = 210, k = 300, n = 131;
  const auto x = kernel_test::normal_buffer(rng, m * k, 0, 1.0f), w = kernel_test::normal_buffer(rng, n * k, 0, 0.1f),
             bias = kernel_test::uniform_buffer(rng, n, 0);
  const aw::QuantizedLinearWeight q = aw::quantize_linear_weight(aw::TensorRef{w.data(), {131, 300}});
  std::vector<float> want(m * n);
  std::vector<unsigned char> scratch(aw::kernels::quantized_linear_scratch_bytes(k));
  aw::kernels::quantized_linear(x.data(), q.view(), bias.data(), want.data(), m, aw::kernels::OutputActivation::None,
                                scratch.data());
  for (std::size_t threads : {1, 2}) {
    CAPTURE(threads);
    aw::set_thread_count(threads);
    const aw::TensorRef b{bias.data(), {131}};
    const aw::Tensor got = aw::quantized_linear(aw::TensorRef{x.data(), {3, 70, 300}}, q, &b);
    aw::set_thread_count(1);
    CHECK(got.shape == aw::Shape{3, 70, 131});
    REQUIRE(got.data.size() == want.size());
    CHECK(std::memcmp(got.data.data(), want.data(), want.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("quantized_linear op: empty sizes", "[ops][quantized_linear]") {
  std::vector<float> data(16, 1.0f), bias{0.5f, -1.0f};
  // in_features 0: y = bias
  const aw::QuantizedLinearWeight empty_in = aw::quantize_linear_weight(aw::TensorRef{data.data(), {2, 0}});
  const aw::TensorRef b{bias.data(), {2}};
  const aw::Tensor y = aw::quantized_linear(aw::TensorRef{data.data(), {3, 0}}, empty_in, &b);
  CHECK(y.shape == aw::Shape{3, 2});
  for (std::size_t i = 0; i < 3; ++i) CHECK((y.data[2 * i] == 0.5f && y.data[2 * i + 1] == -1.0f));
  // no rows, no outputs
  const aw::QuantizedLinearWeight q = aw::quantize_linear_weight(aw::TensorRef{data.data(), {2, 4}});
  CHECK(aw::quantized_linear(aw::TensorRef{data.data(), {0, 4}}, q, nullptr).shape == aw::Shape{0, 2});
  const aw::QuantizedLinearWeight no_out = aw::quantize_linear_weight(aw::TensorRef{data.data(), {0, 4}});
  CHECK(aw::quantized_linear(aw::TensorRef{data.data(), {2, 4}}, no_out, nullptr).shape == aw::Shape{2, 0});
}
