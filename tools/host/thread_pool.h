// ThreadPool: the host Executor. Threads start once and wait for jobs, so a run
// spawns nothing and allocates nothing; the calling thread is worker 0.
//
// A job is done when its items are done. Workers claim chunks of items from one
// atomic word that holds the job's generation and its next item, so a worker
// that wakes late (descheduled by another program on a busy machine) either
// takes what is left or finds the job gone and never touches it; the caller
// takes chunks too and then waits only for chunks other workers have started,
// never for a worker that took nothing.
//
// Waiting spins briefly before it sleeps: a decode step hands the pool dozens of
// jobs a few tens of microseconds apart, and a condition-variable wake-up costs
// about as much as such a job, so workers (and the caller, waiting for a started
// chunk) poll for a short while first and only then block.
//
// A worker that loses its core in the middle of a chunk (another program took it)
// makes the caller wait up to a scheduler time slice, far longer than the chunk.
// The caller notes such a stall (a wait of more than four chunks of its own pace and
// of at least 0.5 ms) and, when another stall follows within 50 ms (one alone can be
// a hiccup), runs every job itself for a while: 20 ms, doubling with each stall that
// follows up to 1 s, back to 20 ms after 64 split jobs without one. On a machine
// whose cores are taken the pool so runs about as fast as one thread, instead of
// waiting on the scheduler job after job; when the cores free up it splits again.
#pragma once

#include <atomic>
#include <chrono>
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
  // Below what size RunWorkItems keeps a job on the calling thread: unset (every
  // job split) until CalibrateSplit (split_calibration.h) measures this pool, or a
  // caller sets it. Set it before handing the pool to a model, not while it runs.
  SplitThreshold split_threshold() const override { return split_threshold_; }
  void set_split_threshold(const SplitThreshold& t) { split_threshold_ = t; }
  // Stalls noted so far (see above): jobs whose caller waited on a worker that had
  // lost its core.
  size_t stalls() const { return stalls_; }

 private:
  // What a worker needs to run a chunk of job `generation`. Two slots, indexed by
  // the generation's low bit: job g + 1 is published (into the other slot) only
  // after job g is done, so a slot is rewritten only once its job is finished and
  // the next one too; a worker that read a slot of a finished job fails its claim
  // (the generation in `claim_` moved on) and discards what it read. Atomic fields,
  // so such a stale read is not a data race.
  struct JobSlot {
    std::atomic<WorkFn> fn{nullptr};
    std::atomic<void*> context{nullptr};
    std::atomic<size_t> items{0};
    std::atomic<size_t> chunk{1};
  };

  void WorkerLoop(size_t worker);
  void StopWorkers();
  // Claims and runs chunks of job `generation` until none are left or the job
  // is gone; returns the items this call ran.
  size_t Drain(uint32_t generation, size_t worker);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  std::atomic<bool> stop_{false};

  JobSlot slots_[2];
  // (generation << 32) | next unclaimed item of that generation's job.
  std::atomic<uint64_t> claim_{0};
  // Items of the current job that have finished running (by any worker).
  std::atomic<size_t> finished_{0};
  // True while the caller sleeps on done_ (so the finisher knows to wake it).
  std::atomic<bool> caller_sleeps_{false};
  // After a split job: a wait for other workers' chunks of `wait` where the caller
  // ran `mine` items in `own` suggests one of them lost its core.
  void NoteWait(std::chrono::steady_clock::duration own, size_t mine, size_t chunk,
                std::chrono::steady_clock::duration wait, std::chrono::steady_clock::time_point now);

  uint32_t generation_ = 0;  // the caller's: the current job's generation
  SplitThreshold split_threshold_;
  // The caller's stall guard (above); only the calling thread touches these.
  std::chrono::steady_clock::time_point serial_until_{};
  std::chrono::steady_clock::time_point last_stall_{};
  std::chrono::steady_clock::duration backoff_{};
  size_t clean_jobs_ = 0;
  size_t stalls_ = 0;
};

// Worker count for "--threads 0" or an unset option: the physical cores this process
// may run on (cpu_topology.h; ReadThreadDefault says why).
size_t DefaultThreadCount();

}  // namespace attnrt
