#include "ops/linear_weight.hpp"

#include "ops/linalg.hpp"

namespace aw {

void linear(const LinearWeight& w, const float* x, float* y, std::size_t rows) {
  switch (w.format) {
    case LinearFormat::Rows:
      return linear_rows_parallel(x, w.weight, w.bias, y, rows, w.in_features, w.out_features);
    case LinearFormat::Packed:
      return linear_packed_rows_parallel(x, w.weight, w.bias, y, rows, w.in_features, w.out_features);
    case LinearFormat::Q8:
      return quantized_linear_rows_parallel(x, *w.q8, w.bias, y, rows);
  }
}

}  // namespace aw
