// Mask layouts swept by the attention kernel tests (tests/kernels/attention_test.cpp,
// flash_attention_test.cpp): how an (L, S) additive mask is stored, the strides that describe
// it to the kernels, and the element (i, j) it stands for, written without the stride formula.
#pragma once

#include <cstddef>

namespace kernel_test {

struct MaskLayout {
  const char* name;
  std::size_t (*storage_size)(std::size_t L, std::size_t S);
  std::ptrdiff_t (*row_stride)(std::size_t L, std::size_t S);
  std::ptrdiff_t (*col_stride)(std::size_t L, std::size_t S);
  std::size_t (*first)(std::size_t L, std::size_t S);  // index of element (0, 0) in the storage
  std::size_t (*element)(std::size_t i, std::size_t j, std::size_t L, std::size_t S);
};

namespace mask_layout_detail {  // short names for the table only
using Z = std::size_t;
using D = std::ptrdiff_t;
inline const MaskLayout mask_layouts[] = {
    {"full (L, S)", [](Z L, Z S) { return L * S; }, [](Z, Z S) { return D(S); }, [](Z, Z) { return D(1); },
     [](Z, Z) { return Z(0); }, [](Z i, Z j, Z, Z S) { return i * S + j; }},
    {"(S) broadcast over rows (key padding)", [](Z, Z S) { return S; }, [](Z, Z) { return D(0); },
     [](Z, Z) { return D(1); }, [](Z, Z) { return Z(0); }, [](Z, Z j, Z, Z) { return j; }},
    {"(L, 1) broadcast over columns", [](Z L, Z) { return L; }, [](Z, Z) { return D(1); }, [](Z, Z) { return D(0); },
     [](Z, Z) { return Z(0); }, [](Z i, Z, Z, Z) { return i; }},
    {"scalar (1, 1)", [](Z, Z) { return Z(1); }, [](Z, Z) { return D(0); }, [](Z, Z) { return D(0); },
     [](Z, Z) { return Z(0); }, [](Z, Z, Z, Z) { return Z(0); }},
    {"transposed (S, L) storage", [](Z L, Z S) { return L * S; }, [](Z, Z) { return D(1); },
     [](Z L, Z) { return D(L); }, [](Z, Z) { return Z(0); }, [](Z i, Z j, Z L, Z) { return j * L + i; }},
    {"rows reversed (negative row stride)", [](Z L, Z S) { return L * S; }, [](Z, Z S) { return -D(S); },
     [](Z, Z) { return D(1); }, [](Z L, Z S) { return L == 0 ? 0 : (L - 1) * S; },
     [](Z i, Z j, Z L, Z S) { return (L - 1 - i) * S + j; }},
};
}  // namespace mask_layout_detail
using mask_layout_detail::mask_layouts;

}  // namespace kernel_test
