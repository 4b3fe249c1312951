// Tests for src/ops/linear_weight: y = x W^T + b through linear() in each form a weight is held
// in (Rows, Packed, Q8), on 1 and 2 threads: Rows and Packed against float64, Q8 byte for byte
// the int8 op (ops/quantized_linear), with and without a bias; rows past a panel and tails.
#include "ops/linear_weight.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/parallel.hpp"
#include "kernels/kernel_test_util.hpp"  // normal_buffer
#include "kernels/matmul.hpp"
#include "ops/quantized_linear.hpp"

TEST_CASE("ops: linear() in the Rows, Packed and Q8 forms", "[ops][linear_weight]") {
  std::mt19937 rng(20261128);
  for (const auto& [rows, in, out] : {std::array<std::size_t, 3>{1, 5, 3}, {7, 33, 17}, {70, 64, 40}}) {
    CAPTURE(rows, in, out);
    const auto x = kernel_test::normal_buffer(rng, rows * in, 0, 1.0f);
    const auto w = kernel_test::normal_buffer(rng, out * in, 0, 0.3f);
    const auto b = kernel_test::normal_buffer(rng, out, 0, 1.0f);
    std::vector<float> packed(out * in);
    aw::kernels::linear_pack_weight(w.data(), packed.data(), out, in);
    const aw::QuantizedLinearWeight q8 =
        aw::quantize_linear_weight(aw::TensorRef{w.data(), {std::int64_t(out), std::int64_t(in)}});
    for (const bool with_bias : {true, false}) {
      const float* bias = with_bias ? b.data() : nullptr;
      // y = x W^T + b in float64, and the int8 op's own result
      std::vector<double> want(rows * out), scale(rows * out);
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < out; ++j) {
          double s = bias ? bias[j] : 0.0, m = bias ? std::fabs(bias[j]) : 0.0;
          for (std::size_t p = 0; p < in; ++p) {
            s += double(x.data()[i * in + p]) * w.data()[j * in + p];
            m += std::fabs(double(x.data()[i * in + p]) * w.data()[j * in + p]);
          }
          want[i * out + j] = s;
          scale[i * out + j] = m;
        }
      const aw::TensorRef bias_ref{b.data(), {std::int64_t(out)}};
      const aw::Tensor q8_op = aw::quantized_linear(aw::TensorRef{x.data(), {std::int64_t(rows), std::int64_t(in)}}, q8,
                                                    with_bias ? &bias_ref : nullptr);
      for (const std::size_t threads : {std::size_t(1), std::size_t(2)}) {
        aw::set_thread_count(threads);
        for (const aw::LinearFormat format : {aw::LinearFormat::Rows, aw::LinearFormat::Packed, aw::LinearFormat::Q8}) {
          CAPTURE(with_bias, threads, int(format));
          aw::LinearWeight lw;
          lw.format = format;
          lw.weight = format == aw::LinearFormat::Rows     ? w.data()
                      : format == aw::LinearFormat::Packed ? packed.data()
                                                           : nullptr;
          lw.q8 = format == aw::LinearFormat::Q8 ? &q8 : nullptr;
          lw.bias = bias;
          lw.out_features = out;
          lw.in_features = in;
          CHECK(lw.present());
          std::vector<float> y(rows * out, NAN);
          aw::linear(lw, x.data(), y.data(), rows);
          if (format == aw::LinearFormat::Q8) {
            CHECK(std::memcmp(y.data(), q8_op.data.data(), y.size() * sizeof(float)) == 0);
          } else {
            for (std::size_t i = 0; i < y.size(); ++i) CHECK(std::fabs(y[i] - want[i]) <= 1e-5 * scale[i] + 1e-6);
          }
        }
      }
      aw::set_thread_count(1);
    }
  }
  CHECK_FALSE(aw::LinearWeight{}.present());
}
