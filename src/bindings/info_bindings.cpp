// Embind name for build facts (glue only): which SIMD instruction set the kernels were compiled
// for, so a page or a benchmark can say what it measured.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <xsimd/xsimd.hpp>

namespace aw::js {
namespace {

emscripten::val build_info_js() {
  emscripten::val info = emscripten::val::object();
  info.set("simd", std::string(xsimd::default_arch::name()));                       // "wasm" = SIMD128
  info.set("floatLanes", static_cast<int>(xsimd::batch<float>::size));              // 4 on SIMD128
  info.set("emscripten", std::to_string(__EMSCRIPTEN_major__) + "." + std::to_string(__EMSCRIPTEN_minor__) +
                             "." + std::to_string(__EMSCRIPTEN_tiny__));
#ifdef __EMSCRIPTEN_PTHREADS__
  info.set("threads", true);
#else
  info.set("threads", false);
#endif
  return info;
}

}  // namespace
}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_info) { emscripten::function("_buildInfo", &aw::js::build_info_js); }
