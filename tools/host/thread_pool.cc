// Fixed thread pool with dynamic chunking (see thread_pool.h). Chunks are handed
// out from an atomic counter so uneven items (causal rows) balance themselves.
#include "host/thread_pool.h"

#include <chrono>
#include <string>
#include <system_error>

namespace attnrt {
namespace {

// About 50 microseconds of polling: longer than the gap between the jobs of one
// decode step, far shorter than anything a person notices on an idle pool.
constexpr auto kSpinTime = std::chrono::microseconds(50);

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield");
#endif
}

// Polls `ready` for up to kSpinTime; false when it never became true. Between
// rounds it yields, so on a machine with more runnable threads than cores the
// spinner hands its core to whoever it is waiting for.
template <typename Ready>
bool SpinUntil(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (ready()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return ready();
    std::this_thread::yield();
  }
}

}  // namespace

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
    stop_.store(true, std::memory_order_release);
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
  const auto job = [&] {
    return stop_.load(std::memory_order_acquire) ||
           generation_.load(std::memory_order_acquire) != seen;
  };
  for (;;) {
    if (!SpinUntil(job)) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, job);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    Drain(worker);
    if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);  // the caller may be between its check and its wait
      done_.notify_one();
    }
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
    busy_.store(threads_.size(), std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);  // publishes the job to spinners
  }
  start_.notify_all();
  Drain(0);
  const auto finished = [&] { return busy_.load(std::memory_order_acquire) == 0; };
  if (SpinUntil(finished)) return;
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, finished);
}

}  // namespace attnrt
