#include "core/tensor.hpp"

#include <new>

#include "core/error.hpp"

namespace aw {

std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::size_t checked_numel(const Shape& shape, const std::string& where) {
  std::int64_t n = 1;
  bool zero = false;
  for (std::int64_t d : shape) {
    if (d < 0) fail(ErrorKind::Range, where + ": negative dimension in shape " + shape_str(shape));
    if (d == 0) zero = true;
  }
  if (zero) return 0;
  for (std::int64_t d : shape) {
    if (d > kMaxElements / n)
      fail(ErrorKind::Range,
           where + ": shape " + shape_str(shape) + " has more than " + std::to_string(kMaxElements) + " elements");
    n *= d;
  }
  return static_cast<std::size_t>(n);
}

namespace {

Tensor allocate_tensor(Shape shape, const std::string& where, bool zeros) {
  const std::size_t n = checked_numel(shape, where);
  Tensor t;
  try {
    if (zeros)
      t.data.assign(n, 0.0f);
    else
      t.data.resize(n);
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::Range, where + ": out of memory allocating a tensor of shape " + shape_str(shape));
  }
  t.shape = std::move(shape);
  return t;
}

}  // namespace

Tensor make_tensor(Shape shape, const std::string& where) { return allocate_tensor(std::move(shape), where, true); }

Tensor make_uninitialised_tensor(Shape shape, const std::string& where) {
  return allocate_tensor(std::move(shape), where, false);
}

std::size_t normalize_dim(std::int64_t dim, std::size_t rank, const std::string& where) {
  const auto r = static_cast<std::int64_t>(rank);
  const std::int64_t lo = rank == 0 ? -1 : -r, hi = rank == 0 ? 0 : r - 1;  // torch: a 0-d tensor takes dim -1 or 0
  if (dim < lo || dim > hi)
    fail(ErrorKind::Range, where + ": dim " + std::to_string(dim) + " is out of range [" + std::to_string(lo) + ", " +
                               std::to_string(hi) + "] for a tensor of rank " + std::to_string(rank));
  return static_cast<std::size_t>(dim < 0 ? dim + (rank == 0 ? 1 : r) : dim);
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& where) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(ErrorKind::Shape, where + ": shapes " + shape_str(a) + " and " + shape_str(b) +
                                 " are not broadcastable (dim " + std::to_string(i) + ": " + std::to_string(da) +
                                 " vs " + std::to_string(db) + ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace aw

namespace aw {

std::vector<std::size_t> broadcast_offsets(const Shape& batch, const Shape& operand, std::int64_t group) {
  std::size_t count = 1;
  for (std::int64_t d : batch) count *= static_cast<std::size_t>(d);
  std::vector<std::size_t> offsets(count);
  const std::size_t rank = batch.size(), skip = rank - operand.size();
  // operand strides in matrices, 0 where broadcast
  std::vector<std::size_t> stride(rank, 0);
  std::size_t s = 1;
  for (std::size_t i = operand.size(); i-- > 0;) {
    stride[i + skip] = operand[i] == 1 && batch[i + skip] != 1 && !(group > 1 && i + skip == rank - 1) ? 0 : s;
    s *= static_cast<std::size_t>(operand[i]);
  }
  std::vector<std::int64_t> idx(rank, 0);
  for (std::size_t n = 0; n < count; ++n) {
    std::size_t off = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      const std::int64_t i = (group > 1 && d == rank - 1) ? idx[d] / group : idx[d];
      off += static_cast<std::size_t>(i) * stride[d];
    }
    offsets[n] = off;
    for (std::size_t d = rank; d-- > 0;) {  // row-major increment
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
  return offsets;
}

}  // namespace aw
