// Dense row-major float32 tensors as the C++ API sees them: an owned Tensor for results and a
// TensorRef (pointer + shape) for inputs. Shapes are int64 as in torch; sizes are checked once,
// here, so that kernels can take std::size_t without further checks.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <xsimd/xsimd.hpp>

namespace aw {

using Shape = std::vector<std::int64_t>;

// xsimd's aligned allocator, except that resize(n) leaves the new elements uninitialised instead
// of zeroing them. Input copies, kernel outputs and scratch are written in full before they are
// read; zeroing them would cost a memset per call (docs/performance.md, Where the time goes).
// Where zeros are meant, say so: assign(n, 0.0f), make_tensor. With AW_POISON_UNINITIALISED
// (the sanitizer build) new floats are NaN instead, so that reading memory nobody wrote shows up
// as NaN in the tests.
template <class T>
struct UninitialisedAllocator : xsimd::aligned_allocator<T> {
  using xsimd::aligned_allocator<T>::aligned_allocator;
  template <class U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
#ifdef AW_POISON_UNINITIALISED
    if constexpr (std::is_floating_point_v<U>) {
      ::new (static_cast<void*>(p)) U(std::numeric_limits<U>::quiet_NaN());
      return;
    }
#endif
    ::new (static_cast<void*>(p)) U;  // default-initialisation: no zeroing
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <class T>
using AlignedVector = std::vector<T, UninitialisedAllocator<T>>;

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
// The same without the zeros, for a result that the op writes in full.
Tensor make_uninitialised_tensor(Shape shape, const std::string& where);

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

// `shape` with leading 1s up to `rank` dims (rank >= shape.size()): how broadcasting aligns it.
inline Shape left_padded(const Shape& shape, std::size_t rank) {
  Shape s(rank - shape.size(), 1);
  s.insert(s.end(), shape.begin(), shape.end());
  return s;
}

}  // namespace aw
