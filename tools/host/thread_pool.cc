// Fixed thread pool with dynamic chunking (see thread_pool.h). Chunks are handed
// out from an atomic counter so uneven items (causal rows) balance themselves.
#include "host/thread_pool.h"

#include <string>
#include <system_error>

namespace attnrt {

size_t DefaultThreadCount() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

ThreadPool::ThreadPool(size_t workers) {
  size_t w = 1;
  try {
    for (; w < workers; ++w) threads_.emplace_back([this, w] { WorkerLoop(w); });
  } catch (const std::system_error& e) {
    // The destructor does not run for a constructor that throws, and a joinable
    // std::thread destroyed unjoined terminates the program: stop those that started.
    StopWorkers();
    throw std::system_error(e.code(), "cannot start worker thread " + std::to_string(w) + " of " +
                                          std::to_string(workers) + " (try fewer --threads)");
  }
}

ThreadPool::~ThreadPool() { StopWorkers(); }

void ThreadPool::StopWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void ThreadPool::Drain(size_t worker) {
  for (;;) {
    const size_t begin = next_.fetch_add(chunk_, std::memory_order_relaxed);
    if (begin >= items_) return;
    const size_t end = begin + chunk_ < items_ ? begin + chunk_ : items_;
    fn_(context_, begin, end, worker);
  }
}

void ThreadPool::WorkerLoop(size_t worker) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    Drain(worker);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--busy_ == 0) done_.notify_one();
  }
}

void ThreadPool::ParallelFor(size_t items, WorkFn fn, void* context) {
  if (items == 0) return;
  if (threads_.empty()) {
    fn(context, 0, items, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = fn;
    context_ = context;
    items_ = items;
    // About 8 chunks per worker: enough to balance, few enough to stay cheap.
    const size_t per = items / (workers() * 8);
    chunk_ = per == 0 ? 1 : per;
    next_.store(0, std::memory_order_relaxed);
    busy_ = threads_.size();
    ++generation_;
  }
  start_.notify_all();
  Drain(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return busy_ == 0; });
}

}  // namespace attnrt
