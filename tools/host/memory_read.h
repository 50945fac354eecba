// The "plain read" reference for decode benchmarks: one vectorized pass that sums
// every float of some arrays (K and V), spread over the same executor the kernel
// uses. A decode step must read all of K and V at least once, so its time over
// this read's time says how close the kernel is to memory speed.
#pragma once

#include <cstddef>

#include "attnrt/runtime/executor.h"

namespace attnrt {

struct FloatSpan {
  const float* data;
  size_t count;
};

// Sums all floats of `spans` (in chunks of a few KiB handed out over
// `executor`'s workers, each summed with independent vector accumulators) and
// returns the total, so the reads cannot be optimized away.
double SumFloats(const FloatSpan* spans, size_t span_count, Executor* executor);

}  // namespace attnrt
