// The split threshold, measured (see split_calibration.h).
#include "host/split_calibration.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include "attnrt/kernels/linear.h"
#include "host/aligned_buffer.h"

namespace attnrt {
namespace {

using Clock = std::chrono::steady_clock;

// A job whose items each wait (up to the cap) until every worker has started one.
constexpr auto kJoinCap = std::chrono::milliseconds(1);
constexpr int kDispatchRuns = 21;
// Jobs that reach the cap say the cores are taken: after this many the measurement
// stops (its median is then the cap or more), so a busy machine does not spend tens
// of milliseconds of its share on calibration right before the work it was asked for.
constexpr int kCappedRunsToStop = 3;
constexpr int kRateRuns = 9;

struct JoinJob {
  std::atomic<size_t> started{0};
  size_t workers = 1;
  Clock::time_point deadline;
};

void JoinAll(void* context, size_t begin, size_t end, size_t) {
  auto& job = *static_cast<JoinJob*>(context);
  job.started.fetch_add(end - begin);
  while (job.started.load() < job.workers && Clock::now() < job.deadline) {
    std::this_thread::yield();
  }
}

double DispatchMicroseconds(ThreadPool* pool) {
  std::vector<double> us;
  int capped = 0;
  const double cap_us = std::chrono::duration<double, std::micro>(kJoinCap).count();
  for (int run = 0; run <= kDispatchRuns && capped < kCappedRunsToStop; ++run) {
    // run 0 wakes the workers: not counted
    JoinJob job;
    job.workers = pool->workers();
    const auto start = Clock::now();
    job.deadline = start + kJoinCap;
    pool->ParallelFor(pool->workers(), JoinAll, &job);
    if (run > 0) {
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
      if (us.back() >= cap_us) ++capped;
    }
  }
  if (capped >= kCappedRunsToStop) {
    us.resize(2 * us.size() - 1, cap_us);  // as if more runs were capped: a median >= the cap
  }
  std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
  return us[us.size() / 2];
}

// The best (least disturbed) time of one thread running a whole Linear, in ns.
double BestLinearNs(size_t rows, size_t in, size_t out) {
  std::vector<float> x(rows * in, 0.5f), w(out * in, 0.25f), y(rows * out);
  LinearParams p{};
  p.rows = rows;
  p.in = in;
  p.out = out;
  p.x = x.data();
  p.x_stride = in;
  p.w = w.data();
  p.y = y.data();
  p.y_stride = out;
  AlignedBuffer scratch(LinearScratchFloats(p) * sizeof(float));
  if (!scratch.ok()) return 1e30;  // no rate: the threshold stays small
  float* const aligned = reinterpret_cast<float*>(scratch.data());
  const size_t items = LinearWorkItems(p);
  double best = 1e30;
  for (int run = 0; run <= kRateRuns; ++run) {  // run 0 brings the weight into cache
    const auto start = Clock::now();
    LinearRun(p, 0, items, aligned);
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    if (run > 0) best = std::min(best, ns);
  }
  return std::max(best, 1.0);
}

std::string Si(double v, const char* unit) {
  char text[32];
  if (v >= 1e9) {
    std::snprintf(text, sizeof(text), "%.1f G%s", v / 1e9, unit);
  } else if (v >= 1e6) {
    std::snprintf(text, sizeof(text), "%.1f M%s", v / 1e6, unit);
  } else if (v >= 1e3) {
    std::snprintf(text, sizeof(text), "%.0f k%s", v / 1e3, unit);
  } else {
    std::snprintf(text, sizeof(text), "%.0f %s", v, unit);
  }
  return text;
}

uint64_t ToCount(double v) {
  if (!(v > 0.0)) return 0;
  if (v >= 1.8e19) return UINT64_MAX;
  return static_cast<uint64_t>(std::ceil(v));
}

}  // namespace

SplitThreshold SplitThresholdFor(size_t workers, double dispatch_us, double gflops,
                                 double gbytes_per_s, double* threshold_us) {
  SplitThreshold t;
  *threshold_us = 0.0;
  if (workers <= 1) return t;
  const double w = static_cast<double>(workers);
  *threshold_us = 2.0 * dispatch_us * w / (w - 1.0);
  // us x (1e9 per s) x (1e-6 s per us) = us x 1e3.
  t.flops = ToCount(*threshold_us * gflops * 1e3);
  t.bytes = ToCount(*threshold_us * gbytes_per_s * 1e3);
  return t;
}

SplitCalibration CalibrateSplit(ThreadPool* pool) {
  SplitCalibration c;
  c.workers = pool->workers();
  if (c.workers <= 1) return c;
  const size_t rows = 16, in = 256, out = 128;
  c.gflops = 2.0 * rows * in * out / BestLinearNs(rows, in, out);
  const size_t stream_in = 256, stream_out = 256;
  c.gbytes_per_s = 4.0 * stream_in * stream_out / BestLinearNs(1, stream_in, stream_out);
  c.dispatch_us = DispatchMicroseconds(pool);
  c.threshold = SplitThresholdFor(c.workers, c.dispatch_us, c.gflops, c.gbytes_per_s,
                                  &c.threshold_us);
  pool->set_split_threshold(c.threshold);
  return c;
}

std::string DescribeSplit(const SplitCalibration& c) {
  if (c.workers <= 1) return "one worker: every job on the calling thread";
  if (c.threshold.flops == 0 && c.threshold.bytes == 0) return "every job split (not calibrated)";
  char text[160];
  std::snprintf(text, sizeof(text), "jobs under %.1f us (%sflop or %sB) run on the calling thread; "
                "dispatch %.1f us, %.1f GFLOP/s, %.1f GB/s", c.threshold_us,
                Si(static_cast<double>(c.threshold.flops), "").c_str(),
                Si(static_cast<double>(c.threshold.bytes), "").c_str(), c.dispatch_us, c.gflops,
                c.gbytes_per_s);
  return text;
}

}  // namespace attnrt
