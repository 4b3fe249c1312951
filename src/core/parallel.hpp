// A small pool of threads for the ops (std::thread; Emscripten pthreads in the wasm threaded
// build). Kernels stay single-threaded and allocation-free: an op splits its work into
// independent tasks, each writing its own part of the output with the same arithmetic as one
// thread would, so results do not depend on the number of threads (byte-identical).
//
// Without thread support (AW_THREADS undefined or 0: the single-thread wasm build) the pool is a
// plain loop on the caller.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>

namespace aw {

// Number of threads parallel_for uses, the caller included; 1 = run on the caller only.
// Starts or stops worker threads (n - 1 of them). In the wasm build, call it from the thread
// that calls the ops (the JS main thread) with n - 1 <= the Emscripten pthread pool, before
// any op: a blocked main thread cannot start a new Worker. n = 0 counts as 1; without thread
// support any n gives 1.
void set_thread_count(std::size_t n);
std::size_t thread_count();

// Calls fn(task, worker) once for every task in [0, tasks), spread over thread_count() threads
// (worker in [0, thread_count()), the caller is worker 0: use it to pick per-thread scratch), and
// returns when all have run. Tasks are handed out in increasing order as threads become free.
// A call made from inside a task, or while another thread's call is running, runs serially on
// its caller (worker 0). fn must not throw.
void parallel_for(std::size_t tasks, const std::function<void(std::size_t task, std::size_t worker)>& fn);

// The row split of the matrix products (ops/linalg, ops/quantized_linear): calls
// rows(begin, end, worker) over [0, m) of an (m, k) x (k, n) product in blocks: one block below
// ~16 MFLOP (waking the pool's threads costs more: docs/performance.md, Threads), else about 4 blocks per
// thread, of whole tiles of `tile` rows (the kernels' register tiles). worker < thread_count()
// is the thread running the block.
template <typename Rows>
void split_rows(std::size_t m, std::size_t k, std::size_t n, const Rows& rows, std::size_t tile = 4) {
  const std::size_t threads = thread_count();
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
  if (threads == 1 || m < 2 * tile || flops < 16e6) return rows(std::size_t{0}, m, std::size_t{0});
  const std::size_t blocks = std::min(4 * threads, m / tile);
  const std::size_t block = (m / blocks + tile - 1) / tile * tile;
  parallel_for((m + block - 1) / block, [&](std::size_t task, std::size_t worker) {
    rows(task * block, std::min(m, (task + 1) * block), worker);
  });
}

}  // namespace aw
