// Embind name for build facts (glue only): which SIMD instruction set the kernels were compiled
// for ("simd128" or "relaxed", the names init({ simd }) takes) and whether it is the threaded
// build, so a page or a benchmark can say what it measured.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <emscripten/version.h>  // __EMSCRIPTEN_major__ ... (no longer predefined since 3.1.4)

#include <xsimd/xsimd.hpp>

#include "kernels/quantized_matmul.hpp"

namespace aw::js {
namespace {

emscripten::val build_info_js() {
  emscripten::val info = emscripten::val::object();
#if defined(__wasm_relaxed_simd__)
  info.set("simd", std::string("relaxed"));  // -mrelaxed-simd: fused multiply-add (relaxed_madd)
#elif defined(__wasm_simd128__)
  info.set("simd", std::string("simd128"));  // -msimd128 (xsimd's "wasm" arch)
#else
  info.set("simd", std::string(xsimd::default_arch::name()));
#endif
  info.set("floatLanes", static_cast<int>(xsimd::batch<float>::size));  // 4 on SIMD128
  info.set("emscripten", std::to_string(__EMSCRIPTEN_major__) + "." + std::to_string(__EMSCRIPTEN_minor__) + "." +
                             std::to_string(__EMSCRIPTEN_tiny__));
  // the int8 products' route on this engine (kernels/quantized_matmul.hpp)
  const auto product = aw::kernels::preferred_int8_product();
  info.set("int8Product", std::string(product == aw::kernels::Int8Product::RelaxedDot      ? "relaxed-dot"
                                      : product == aw::kernels::Int8Product::RelaxedI16Dot ? "relaxed-i16-dot"
                                      : product == aw::kernels::Int8Product::Simd128Dot    ? "simd128-dot"
                                                                                           : "portable"));
  info.set("relaxedDotLowering", aw::kernels::relaxed_dot_lowering());
#ifdef __EMSCRIPTEN_PTHREADS__
  info.set("threaded", true);  // A.threads is how many threads the ops use
#else
  info.set("threaded", false);
#endif
  return info;
}

}  // namespace
}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_info) { emscripten::function("_buildInfo", &aw::js::build_info_js); }
