// Executor: how the runtime spreads independent work items over workers.
//
// The runtime only knows this interface; the host thread pool lives in tools/
// (firmware and single-threaded callers use SerialExecutor). Each worker index
// owns one scratch slice, so a worker must run its ranges one at a time.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnrt {

using WorkFn = void (*)(void* context, size_t begin, size_t end, size_t worker);

// Below what size a job is not worth splitting. A job's time on one thread is about
// the larger of its flops over the rate of compute-bound work and its bytes over
// the rate of streaming work; `flops` and `bytes` are what each rate gets through
// in the time below which splitting does not pay. A job under both runs on the
// calling thread (RunWorkItems). Zero: split every job of two or more items.
struct SplitThreshold {
  uint64_t flops = 0;
  uint64_t bytes = 0;
};

class Executor {
 public:
  virtual size_t workers() const = 0;
  // Calls fn for disjoint ranges that together cover [0, items); returns when all
  // calls have finished. `worker` is in [0, workers()).
  virtual void ParallelFor(size_t items, WorkFn fn, void* context) = 0;
  // Jobs below this run on the calling thread: handing them to other workers costs
  // more than it saves. A pool measures it (tools/host/split_calibration.h); the
  // default splits every job of two or more items.
  virtual SplitThreshold split_threshold() const { return SplitThreshold{}; }

 protected:
  // Not deletable through the interface: no virtual destructor, so firmware links
  // no operator delete.
  ~Executor() = default;
};

class SerialExecutor final : public Executor {
 public:
  size_t workers() const override { return 1; }
  void ParallelFor(size_t items, WorkFn fn, void* context) override {
    if (items > 0) fn(context, 0, items, 0);
  }
};

}  // namespace attnrt
