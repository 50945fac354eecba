// Executor: how the runtime spreads independent work items over workers.
//
// The runtime only knows this interface; the host thread pool lives in tools/
// (firmware and single-threaded callers use SerialExecutor). Each worker index
// owns one scratch slice, so a worker must run its ranges one at a time.
#pragma once

#include <cstddef>

namespace attnrt {

using WorkFn = void (*)(void* context, size_t begin, size_t end, size_t worker);

class Executor {
 public:
  virtual size_t workers() const = 0;
  // Calls fn for disjoint ranges that together cover [0, items); returns when all
  // calls have finished. `worker` is in [0, workers()).
  virtual void ParallelFor(size_t items, WorkFn fn, void* context) = 0;

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
