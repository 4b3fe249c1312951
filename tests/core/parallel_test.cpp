// The thread pool behind the ops (core/parallel.hpp): every task runs exactly once, worker
// indices stay below thread_count(), two tasks run at the same time on two threads, nested calls
// run serially, and a job started right after the threads are created is not missed by threads
// that start late. Natively the pool has real
// threads; in the single-thread wasm build it is a loop and the same tests hold.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "core/parallel.hpp"

namespace {

// Restores one thread when a test ends, so that tests do not depend on each other.
struct Threads {
  explicit Threads(std::size_t n) { aw::set_thread_count(n); }
  ~Threads() { aw::set_thread_count(1); }
};

}  // namespace

TEST_CASE("parallel_for runs every task once, on workers below thread_count()") {
  for (std::size_t n : {1, 2, 3, 8}) {
    Threads threads(n);
#if AW_THREADS
    CHECK(aw::thread_count() == n);
#else
    CHECK(aw::thread_count() == 1);
#endif
    for (std::size_t tasks : {0, 1, 2, 7, 1000}) {
      std::vector<std::atomic<int>> runs(tasks);
      std::atomic<bool> worker_in_range{true};
      aw::parallel_for(tasks, [&](std::size_t t, std::size_t worker) {
        runs[t].fetch_add(1);
        if (worker >= aw::thread_count()) worker_in_range = false;
      });
      for (std::size_t t = 0; t < tasks; ++t) CHECK(runs[t].load() == 1);
      CHECK(worker_in_range.load());
    }
  }
}

#if AW_THREADS
TEST_CASE("with 2 threads, two tasks run at the same time, on two threads") {
  // Each task waits (up to 10 s) until the other has started: a pool that ran its tasks one
  // after the other on the caller would time out here, where every other test still passes.
  Threads threads(2);
  std::atomic<int> started{0};
  std::atomic<bool> met[2] = {false, false};
  std::thread::id ids[2];
  std::size_t workers[2] = {9, 9};
  aw::parallel_for(2, [&](std::size_t t, std::size_t worker) {
    ids[t] = std::this_thread::get_id();
    workers[t] = worker;
    started.fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    met[t] = started.load() == 2;
  });
  CHECK(met[0].load());
  CHECK(met[1].load());
  CHECK(ids[0] != ids[1]);
  CHECK(workers[0] != workers[1]);
  CHECK(workers[0] + workers[1] == 1);  // workers 0 (the caller) and 1
}
#endif

TEST_CASE("a job right after the threads start is seen by all of them") {
  for (int round = 0; round < 200; ++round) {
    Threads threads(3);
    std::atomic<int> sum{0};
    aw::parallel_for(16, [&](std::size_t t, std::size_t) { sum += static_cast<int>(t); });
    REQUIRE(sum.load() == 120);
  }
}

TEST_CASE("parallel_for inside a task runs serially on that thread") {
  Threads threads(2);
  std::vector<std::atomic<int>> runs(8 * 5);
  aw::parallel_for(8, [&](std::size_t outer, std::size_t) {
    aw::parallel_for(5, [&](std::size_t inner, std::size_t worker) {
      runs[outer * 5 + inner].fetch_add(1);
      CHECK(worker == 0);
    });
  });
  for (auto& r : runs) CHECK(r.load() == 1);
}
