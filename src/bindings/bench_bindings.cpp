// Embind name for the benchmarks' heap read bandwidth (glue only; not part of the JS API):
// _readBandwidth(mib, passes) allocates a buffer of `mib` MiB in the wasm heap, writes it once
// (so that every page is mapped), reads it once to warm up, then times `passes` streaming reads
// (kernels/stream_read: the sum of the floats, first to last) with emscripten_get_now.
// Returns {bytes, ms: [per pass], sum} or {error, kind}. Each pass reads `bytes` bytes; the
// benchmark (scripts/bench-decoder.mjs) reports bytes / ms as the heap's read bandwidth.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <cstddef>
#include <string>
#include <vector>

#include "bindings/js_interop.hpp"
#include "core/error.hpp"
#include "kernels/stream_read.hpp"

namespace aw::js {
namespace {

val read_bandwidth_js(double mib, double passes) {
  return guarded([&] {
    if (!(mib >= 1 && mib <= 2048 && mib == static_cast<double>(static_cast<int>(mib))))
      fail(ErrorKind::Range, "readBandwidth: mib must be an integer in [1, 2048], got " + std::to_string(mib));
    if (!(passes >= 1 && passes <= 1000 && passes == static_cast<double>(static_cast<int>(passes))))
      fail(ErrorKind::Range, "readBandwidth: passes must be an integer in [1, 1000], got " + std::to_string(passes));
    const std::size_t n = static_cast<std::size_t>(mib) * (std::size_t(1) << 20) / sizeof(float);
    std::vector<float> buffer(n);
    for (std::size_t i = 0; i < n; ++i) buffer[i] = static_cast<float>(i & 7);
    float sum = kernels::stream_read_sum(buffer.data(), n);
    val ms = val::array();
    for (int p = 0; p < static_cast<int>(passes); ++p) {
      const double t0 = emscripten_get_now();
      sum += kernels::stream_read_sum(buffer.data(), n);
      ms.call<void>("push", emscripten_get_now() - t0);
    }
    val out = val::object();
    out.set("bytes", static_cast<double>(n * sizeof(float)));
    out.set("ms", ms);
    out.set("sum", sum);  // keeps the reads alive
    return out;
  });
}

}  // namespace
}  // namespace aw::js

EMSCRIPTEN_BINDINGS(attention_wasm_bench) { emscripten::function("_readBandwidth", &aw::js::read_bandwidth_js); }
