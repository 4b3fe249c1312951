// Dense row-major float32 tensors as the C++ API sees them: an owned Tensor for results and a
// TensorRef (pointer + shape) for inputs. Shapes are int64 as in torch; sizes are checked once,
// here, so that kernels can take std::size_t without further checks.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <xsimd/xsimd.hpp>

namespace aw {

using Shape = std::vector<std::int64_t>;
template <class T>
using AlignedVector = std::vector<T, xsimd::aligned_allocator<T>>;

// The largest element count any tensor may have: its byte size must fit a 32-bit wasm heap
// with room to spare (and the same limit natively, so both builds reject the same shapes).
constexpr std::int64_t kMaxElements = std::int64_t{1} << 29;  // 2 GiB of float32

// Input view: data holds numel(shape) floats; not owned.
struct TensorRef {
  const float* data = nullptr;
  Shape shape;
};

// Boolean mask input view (1 = true), same layout as TensorRef.
struct BoolTensorRef {
  const std::uint8_t* data = nullptr;
  Shape shape;
};

// Owned result.
struct Tensor {
  AlignedVector<float> data;
  Shape shape;
  TensorRef ref() const { return TensorRef{data.data(), shape}; }
};

// "[2, 3, 4]"
std::string shape_str(const Shape& shape);

// Product of dims; throws Range if a dim is negative or the product exceeds kMaxElements.
// `where` names the function and argument for the message, e.g. "matmul: input".
std::size_t checked_numel(const Shape& shape, const std::string& where);

// Allocates a zero-filled tensor of this shape (checked_numel first); std::bad_alloc becomes a
// Range error naming `where`.
Tensor make_tensor(Shape shape, const std::string& where);

// Dim index in [-rank, rank) -> [0, rank); throws Range naming `where`.
std::size_t normalize_dim(std::int64_t dim, std::size_t rank, const std::string& where);

// Broadcast two shapes as torch does (align right, 1 stretches); throws Shape naming both.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& where);


}  // namespace aw

namespace aw {

// For each row-major index of `batch`, the index of the matching matrix in an operand whose
// leading dims are `operand` (right-aligned, broadcast to `batch`). With group > 1 the operand's
// last dim is shared by `group` consecutive indices of batch's last dim (grouped-query
// attention: query head h reads key head h / group).
std::vector<std::size_t> broadcast_offsets(const Shape& batch, const Shape& operand, std::int64_t group = 1);

inline Shape leading_dims(const Shape& s, std::size_t trailing) {
  return Shape(s.begin(), s.end() - static_cast<std::ptrdiff_t>(std::min(trailing, s.size())));
}

}  // namespace aw
