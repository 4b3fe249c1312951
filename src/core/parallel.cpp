// Thread pool behind parallel_for. See parallel.hpp.
#include "core/parallel.hpp"

#ifndef AW_THREADS
#define AW_THREADS 0
#endif

#if AW_THREADS
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace aw {

#if AW_THREADS
namespace {

using Task = std::function<void(std::size_t, std::size_t)>;

// Workers sleep on `wake` until `generation` changes, then take task numbers from `next` until
// none are left, and the last to finish signals `done`. The caller takes tasks too.
class Pool {
 public:
  ~Pool() { resize(1); }

  std::size_t size() const { return workers_.size() + 1; }

  void resize(std::size_t n) {
    std::lock_guard<std::mutex> call(call_);  // not while a parallel_for runs
    if (n == 0) n = 1;
    if (n == size()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
    stop_ = false;
    // The generation they start from is the current one, passed in: read by the thread itself
    // it could already be a job's that started before the thread did, which it would then miss.
    for (std::size_t w = 1; w < n; ++w) workers_.emplace_back([this, w, start = generation_] { work(w, start); });
  }

  void run(std::size_t tasks, const Task& fn) {
    // nested (from inside a task) or concurrent callers: serial on the caller
    // (in_task_ first: try_lock on a mutex this thread holds would be undefined)
    auto serial = [&] {
      for (std::size_t t = 0; t < tasks; ++t) fn(t, 0);
    };
    if (in_task_ || tasks <= 1) return serial();
    std::unique_lock<std::mutex> call(call_, std::try_to_lock);
    if (!call.owns_lock() || workers_.empty()) return serial();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &fn;
      tasks_ = tasks;
      next_.store(0, std::memory_order_relaxed);
      busy_ = workers_.size();
      ++generation_;
    }
    wake_.notify_all();
    take_tasks(fn, 0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0; });
    job_ = nullptr;
  }

 private:
  void take_tasks(const Task& fn, std::size_t worker) {
    in_task_ = true;
    for (std::size_t t; (t = next_.fetch_add(1, std::memory_order_relaxed)) < tasks_;) fn(t, worker);
    in_task_ = false;
  }

  void work(std::size_t worker, std::size_t seen) {
    for (;;) {
      const Task* job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      take_tasks(*job, worker);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::mutex call_;   // one parallel_for (or resize) at a time
  std::mutex mutex_;  // guards the fields below but next_
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  const Task* job_ = nullptr;
  std::size_t tasks_ = 0;
  std::atomic<std::size_t> next_{0};
  std::size_t busy_ = 0;        // workers not yet done with the current job
  std::size_t generation_ = 0;  // bumped for every job
  bool stop_ = false;
  static thread_local bool in_task_;
};
thread_local bool Pool::in_task_ = false;

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void set_thread_count(std::size_t n) { pool().resize(n); }
std::size_t thread_count() { return pool().size(); }
void parallel_for(std::size_t tasks, const std::function<void(std::size_t, std::size_t)>& fn) { pool().run(tasks, fn); }

#else  // no threads: a loop

void set_thread_count(std::size_t) {}
std::size_t thread_count() { return 1; }
void parallel_for(std::size_t tasks, const std::function<void(std::size_t, std::size_t)>& fn) {
  for (std::size_t t = 0; t < tasks; ++t) fn(t, 0);
}

#endif

}  // namespace aw
