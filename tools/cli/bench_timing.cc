// Benchmark timing (see bench_timing.h).
#include "cli/bench_timing.h"

#include <algorithm>
#include <cmath>
#include <ctime>

namespace attnrt::cli {

double ProcessCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}


double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

namespace {

struct RunTime {
  double wall_ms;
  double cpu_ms;
};

RunTime TimeOnce(void (*run)(void*), void* context) {
  const double cpu0 = ProcessCpuMs();
  const auto start = Clock::now();
  run(context);
  const double wall = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return {wall, ProcessCpuMs() - cpu0};
}

}  // namespace

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double SampleStddev(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double sum = 0;
  for (double x : v) sum += (x - mean) * (x - mean);
  return std::sqrt(sum / static_cast<double>(v.size() - 1));
}

Timing TimeRuns(void (*run)(void*), void* context, size_t warmup, size_t repeats, double seconds,
                Progress* progress) {
  double estimate = TimeOnce(run, context).wall_ms;
  for (size_t i = 1; i < warmup; ++i) estimate = std::min(estimate, TimeOnce(run, context).wall_ms);
  size_t count = repeats;
  if (count == 0) {
    const double fit = seconds * 1000.0 / std::max(estimate, 1e-6);
    count = static_cast<size_t>(std::clamp(fit, static_cast<double>(kMinRepeats), 1e6));
  }
  std::vector<double> wall, cpu;
  wall.reserve(count);
  cpu.reserve(count);
  Timing timing;
  const auto start = Clock::now();
  for (size_t i = 0; i < count; ++i) {
    const RunTime t = TimeOnce(run, context);
    wall.push_back(t.wall_ms);
    cpu.push_back(t.cpu_ms);
    if (progress != nullptr) progress->Update(i + 1, count);
    if (i + 1 < count && SecondsSince(start) >= seconds) break;
  }
  timing.runs = wall.size();
  // Cut short of what was asked for: --repeats, or the minimum a budget promises.
  timing.capped = timing.runs < (repeats > 0 ? repeats : kMinRepeats);
  timing.min_ms = *std::min_element(wall.begin(), wall.end());
  timing.median_ms = Median(wall);
  timing.stddev_ms = SampleStddev(wall);
  timing.cpu_median_ms = Median(cpu);
  return timing;
}

}  // namespace attnrt::cli
