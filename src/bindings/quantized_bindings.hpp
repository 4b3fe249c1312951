// The int8 weights held by this module (src/bindings/quantized_bindings.cpp), for the other
// bindings whose parameters may be quantized (nn modules).
#pragma once
#include <string>

#include "ops/quantized_linear.hpp"

namespace aw::js {

// The weight with this handle; nullptr for NaN (no int8 weight). Error naming `where` for a
// handle this module does not hold (disposed).
const QuantizedLinearWeight* quantized_weight(double handle, const std::string& where);

}  // namespace aw::js
