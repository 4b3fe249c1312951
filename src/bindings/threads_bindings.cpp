// Embind names for the thread pool (core/parallel.hpp). In the single-thread module the count
// stays 1 whatever is asked.
#include <emscripten/bind.h>

#include "core/parallel.hpp"

namespace {

// n: total threads (the caller included), at most Module.awPoolSize + 1 (the preloaded Workers).
void set_thread_count_js(double n) { aw::set_thread_count(n < 1 ? 1 : static_cast<std::size_t>(n)); }
double thread_count_js() { return static_cast<double>(aw::thread_count()); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_wasm_threads) {
  emscripten::function("_setThreadCount", &set_thread_count_js);
  emscripten::function("_threadCount", &thread_count_js);
}
