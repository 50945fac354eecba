// CalibrateSplit: measures below what size a job is not worth splitting over a
// pool's workers, and sets the pool's SplitThreshold (runtime/executor.h).
//
// Three figures, measured once when a command makes its pool (a few
// milliseconds):
//   dispatch   the median wall time of a job that every worker must join: the
//              caller publishes it, each worker picks up one item and waits for
//              the others. What splitting a job costs here and now: a few
//              microseconds with workers spinning on an idle machine, the 1 ms
//              cap or more when another program holds the cores (three jobs at the
//              cap end the measurement: a busy machine's share is not spent on it).
//   gflops     one thread's rate on compute-bound work: a 16-row Linear block on
//              a cache-resident f32 weight, best of several runs.
//   gbytes     one thread's rate on streaming work: a one-row Linear (a decode
//              step's GEMV) over a 256 KiB f32 weight, in weight bytes per ns.
// With w workers and dispatch D, a job of one-thread time T takes about
// (T + D (w - 1)) / w split, which beats T only when T > D w / (w - 1). A job is
// split when it is twice that (so a split saves at least what it costs, with
// headroom for a machine busier than at calibration): the threshold time is
// 2 D w / (w - 1), and the threshold's flops and bytes are what each rate gets
// through in it.
#pragma once

#include <cstddef>
#include <string>

#include "attnrt/runtime/executor.h"
#include "host/thread_pool.h"

namespace attnrt {

struct SplitCalibration {
  size_t workers = 1;
  double dispatch_us = 0.0;
  double gflops = 0.0;
  double gbytes_per_s = 0.0;
  double threshold_us = 0.0;  // 2 D w / (w - 1)
  SplitThreshold threshold;
};

// The threshold for measured figures (the formula above; no threshold for one worker).
SplitThreshold SplitThresholdFor(size_t workers, double dispatch_us, double gflops,
                                 double gbytes_per_s, double* threshold_us);

// Measures `pool` and sets its threshold. A pool of one worker is left as it is.
SplitCalibration CalibrateSplit(ThreadPool* pool);

// "jobs under 4.1 us (310 kflop or 95 KB) run on the calling thread; dispatch
// 1.0 us, 75.3 GFLOP/s, 23.1 GB/s", "one worker: every job on the calling thread",
// or "every job split (not calibrated)".
std::string DescribeSplit(const SplitCalibration& c);

}  // namespace attnrt
