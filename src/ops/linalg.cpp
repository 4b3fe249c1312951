#include "ops/linalg.hpp"

#include <algorithm>
#include <new>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "kernels/matmul.hpp"

namespace aw {
namespace {

// One row of x (a decode step's y = x W^T) has no rows to split: W's rows are split instead, in
// whole panels of the packed layout (the last block takes W's unpacked tail rows), each thread
// computing its columns of y as alone (byte-identical). cols(j0, j1) computes y[j0:j1].
template <class Cols>
bool split_one_row(std::size_t m, std::size_t k, std::size_t n, const Cols& cols) {
  const std::size_t threads = thread_count(), P = kernels::linear_panel_width();
  if (m != 1 || threads == 1 || 2.0 * static_cast<double>(k) * static_cast<double>(n) < 4e6 || n < 2 * P) return false;
  const std::size_t panels = n / P, per_task = (panels + threads - 1) / threads;
  const std::size_t tasks = (panels + per_task - 1) / per_task;
  parallel_for(tasks, [&](std::size_t task, std::size_t) {
    const std::size_t j0 = task * per_task * P, j1 = task + 1 == tasks ? n : (task + 1) * per_task * P;
    cols(j0, j1);
  });
  return true;
}

}  // namespace

void matmul_rows_parallel(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n) {
  // b of 32768 floats (128 KiB) or more and blocks of enough rows to repay copying it: the
  // packed kernel, with a block of scratch per thread (if that cannot be had, the unpacked one:
  // same result).
  AlignedVector<float> scratch;
  if (m >= 16 && k * n >= 32768) {
    try {
      scratch.resize(kernels::matmul_packed_scratch_size() * thread_count());
    } catch (const std::bad_alloc&) {
      scratch = {};
    }
  }
  split_rows(m, k, n, [&](std::size_t begin, std::size_t end, std::size_t worker) {
    // each block copies b again: not for a few rows
    if (scratch.empty() || end - begin < 16)
      kernels::matmul(a + begin * k, b, c + begin * n, end - begin, k, n);
    else
      kernels::matmul_packed(a + begin * k, b, c + begin * n, end - begin, k, n,
                             scratch.data() + worker * kernels::matmul_packed_scratch_size());
  });
}

// linear copies W into panels block by block (kernels::linear_blockwise) from this many rows of x:
// from 64 rows the blocked tiles outrun the dot tiles by more than the copy costs (1.0-1.5x in
// relaxed SIMD, 1.0-1.4x in SIMD128; docs/performance.md).
constexpr std::size_t kPackFromRows = 64;

void linear_rows_parallel(const float* x, const float* w, const float* bias, float* y, std::size_t m, std::size_t k,
                          std::size_t n) {
  // a block of scratch per thread (if that cannot be had, the dot tiles: the same result up to
  // rounding)
  AlignedVector<float> scratch;
  if (m >= kPackFromRows && n >= kernels::linear_panel_width()) {
    try {
      scratch.resize(kernels::linear_blockwise_scratch_size() * thread_count());
    } catch (const std::bad_alloc&) {
      scratch = {};
    }
  }
  if (split_one_row(m, k, n, [&](std::size_t j0, std::size_t j1) {
        kernels::linear(x, w + j0 * k, bias ? bias + j0 : nullptr, y + j0, 1, k, j1 - j0);
      }))
    return;
  split_rows(m, k, n, [&](std::size_t begin, std::size_t end, std::size_t worker) {
    if (scratch.empty())
      kernels::linear(x + begin * k, w, bias, y + begin * n, end - begin, k, n);
    else
      kernels::linear_blockwise(x + begin * k, w, bias, y + begin * n, end - begin, k, n,
                                scratch.data() + worker * kernels::linear_blockwise_scratch_size());
  });
}

void linear_packed_rows_parallel(const float* x, const float* w_packed, const float* bias, float* y, std::size_t m,
                                 std::size_t k, std::size_t n) {
  if (split_one_row(m, k, n, [&](std::size_t j0, std::size_t j1) {
        kernels::linear_packed(x, w_packed + j0 * k, bias ? bias + j0 : nullptr, y + j0, 1, k, j1 - j0);
      }))
    return;
  split_rows(m, k, n, [&](std::size_t begin, std::size_t end, std::size_t) {
    kernels::linear_packed(x + begin * k, w_packed, bias, y + begin * n, end - begin, k, n);
  });
}

Tensor matmul(const TensorRef& input, const TensorRef& other) {
  const Shape& a = input.shape;
  const Shape& b = other.shape;
  const std::string shapes = "input " + shape_str(a) + " and other " + shape_str(b);
  if (a.empty() || b.empty()) fail(ErrorKind::Shape, "matmul: both arguments need at least 1 dimension, got " + shapes);
  // View 1-D operands as matrices: input (k) -> (1, k), other (k) -> (k, 1).
  const std::int64_t m = a.size() == 1 ? 1 : a[a.size() - 2];
  const std::int64_t k = a.back();
  const std::int64_t kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  const std::int64_t n = b.size() == 1 ? 1 : b.back();
  if (k != kb)
    fail(ErrorKind::Shape, "matmul: " + shapes + " cannot be multiplied (inner dimensions " + std::to_string(k) +
                               " and " + std::to_string(kb) + " differ)");
  const Shape a_batch = a.size() > 2 ? leading_dims(a, 2) : Shape{};
  const Shape b_batch = b.size() > 2 ? leading_dims(b, 2) : Shape{};
  const Shape batch = broadcast_shapes(a_batch, b_batch, "matmul: batch dims of " + shapes);
  Shape out_shape = batch;
  if (a.size() > 1) out_shape.push_back(m);
  if (b.size() > 1) out_shape.push_back(n);
  Tensor out = make_tensor(out_shape, "matmul: result");
  if (out.data.empty()) return out;

  const auto off_a = broadcast_offsets(batch, a_batch);
  const auto off_b = broadcast_offsets(batch, b_batch);
  const auto M = static_cast<std::size_t>(m), K = static_cast<std::size_t>(k), N = static_cast<std::size_t>(n);
  for (std::size_t i = 0; i < off_a.size(); ++i)
    matmul_rows_parallel(input.data + off_a[i] * M * K, other.data + off_b[i] * K * N, out.data.data() + i * M * N, M,
                         K, N);
  return out;
}

Shape linear_result_shape(const Shape& x, const Shape& w, const Shape* bias, const std::string& weight_note) {
  std::string shapes = "input " + shape_str(x) + ", weight " + shape_str(w) + weight_note;
  if (bias) shapes += ", bias " + shape_str(*bias);
  if (x.empty()) fail(ErrorKind::Shape, "linear: input needs at least 1 dimension, got " + shapes);
  if (w.size() != 1 && w.size() != 2)
    fail(ErrorKind::Shape,
         "linear: weight must be 2-D (out_features, in_features) or 1-D (in_features), got " + shapes);
  const std::int64_t in_features = w.back(), out_features = w.size() == 2 ? w[0] : 1;
  if (x.back() != in_features)
    fail(ErrorKind::Shape, "linear: " + shapes + ": input's last dimension " + std::to_string(x.back()) +
                               " must equal weight's in_features " + std::to_string(in_features));
  // torch adds a bias to a 1-D weight's product for some input ranks only (addmm refuses it): none here
  if (bias && w.size() == 1) fail(ErrorKind::Shape, "linear: a 1-D weight (in_features) takes no bias, got " + shapes);
  if (bias && !(bias->size() == 1 && (*bias)[0] == out_features) && !bias->empty())
    fail(ErrorKind::Shape, "linear: bias must have shape [" + std::to_string(out_features) + "] or [], got " + shapes);
  Shape out_shape = x;
  if (w.size() == 2)
    out_shape.back() = out_features;
  else
    out_shape.pop_back();  // a 1-D weight: one output, its dimension removed
  return out_shape;
}

const float* linear_bias(const TensorRef* bias, std::size_t n, AlignedVector<float>& storage) {
  if (!bias) return nullptr;
  if (!bias->shape.empty() || n == 1) return bias->data;
  storage.assign(n, bias->data[0]);
  return storage.data();
}

Tensor linear(const TensorRef& input, const TensorRef& weight, const TensorRef* bias) {
  const Shape& w = weight.shape;
  Tensor out = make_tensor(linear_result_shape(input.shape, w, bias ? &bias->shape : nullptr), "linear: result");
  // (N, K): a 1-D weight (in_features) is one row
  const std::size_t K = static_cast<std::size_t>(w.back()), N = w.size() == 2 ? static_cast<std::size_t>(w[0]) : 1;
  const std::size_t M = N == 0 ? 0 : out.data.size() / N;
  if (M * N == 0) return out;
  AlignedVector<float> repeated;
  linear_rows_parallel(input.data, weight.data, linear_bias(bias, N, repeated), out.data.data(), M, K, N);
  return out;
}

}  // namespace aw
