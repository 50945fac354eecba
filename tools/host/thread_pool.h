// ThreadPool: the host Executor. Threads start once and wait for jobs, so a run
// spawns nothing and allocates nothing; the calling thread is worker 0.
//
// Waiting spins briefly before it sleeps: a decode step hands the pool dozens of
// jobs a few tens of microseconds apart, and a condition-variable wake-up costs
// about as much as such a job, so workers (and the caller, waiting for them)
// poll for a short while first and only then block.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "attnrt/runtime/executor.h"

namespace attnrt {

class ThreadPool final : public Executor {
 public:
  // `workers` >= 1 counts the calling thread; workers - 1 threads are started.
  explicit ThreadPool(size_t workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t workers() const override { return threads_.size() + 1; }
  void ParallelFor(size_t items, WorkFn fn, void* context) override;

 private:
  void WorkerLoop(size_t worker);
  void StopWorkers();
  // Takes chunks of the current job until none are left.
  void Drain(size_t worker);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  // Written under mutex_ (so sleepers cannot miss them), read by spinners without it.
  std::atomic<uint64_t> generation_{0};
  std::atomic<size_t> busy_{0};
  std::atomic<bool> stop_{false};

  WorkFn fn_ = nullptr;
  void* context_ = nullptr;
  size_t items_ = 0;
  size_t chunk_ = 1;
  std::atomic<size_t> next_{0};
};

// Worker count for "--threads 0" or an unset option: the machine's hardware threads.
size_t DefaultThreadCount();

}  // namespace attnrt
