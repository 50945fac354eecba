// Timing for the benchmark commands (`bench sdpa`, `bench lm`): warm-up, timed
// runs within a time budget, median / stddev / min, process CPU time, and a
// progress line on stderr for long runs.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace attnrt::cli {

constexpr size_t kMinRepeats = 5;

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double stddev_ms = 0;      // sample standard deviation of the timed runs' wall time
  double cpu_median_ms = 0;  // process CPU time per run, all workers together
  size_t runs = 0;
  bool capped = false;       // --seconds ran out before --repeats (or kMinRepeats) runs
};

using Clock = std::chrono::steady_clock;

double ProcessCpuMs();
double SecondsSince(Clock::time_point start);
double Median(std::vector<double> v);
double SampleStddev(const std::vector<double>& v);

// Progress of a long benchmark on stderr: on a terminal a line rewritten in place
// (from one second into a shape on), elsewhere one line per shape that took longer
// than a few seconds. Nothing on short runs, nothing on stdout.
class Progress {
 public:
  explicit Progress(const char* command)
      : command_(command), tty_(isatty(STDERR_FILENO) == 1), command_start_(Clock::now()) {}
  void StartShape(const std::string& label) {
    label_ = label;
    shape_start_ = Clock::now();
    last_print_ = shape_start_;
  }
  void Update(size_t done, size_t planned) {
    if (!tty_ || SecondsSince(shape_start_) < 1.0 ||
        std::chrono::duration<double>(Clock::now() - last_print_).count() < 0.25) {
      return;
    }
    last_print_ = Clock::now();
    std::fprintf(stderr, "\r\x1b[K%s: %s: run %zu of %zu, %.1f s", command_, label_.c_str(), done,
                 planned, SecondsSince(shape_start_));
    shown_ = true;
  }
  void EndShape(size_t runs) {
    if (shown_) std::fprintf(stderr, "\r\x1b[K");
    shown_ = false;
    const double took = SecondsSince(shape_start_);
    if (!tty_ && took >= 3.0) {
      std::fprintf(stderr, "%s: %s: %zu runs in %.1f s (%.0f s so far)\n", command_, label_.c_str(),
                   runs, took, SecondsSince(command_start_));
    }
  }

 private:
  const char* command_;
  bool tty_;
  bool shown_ = false;
  std::string label_;
  Clock::time_point command_start_, shape_start_, last_print_;
};

// Warm-up runs (at least one; they also estimate one run's time), then the timed
// runs: `repeats` of them, or when 0 as many as fit in `seconds` (at least
// kMinRepeats). `seconds` is also a cap: the timed runs stop once it is spent,
// after at least one. The median wall time is the headline number; stddev and
// min show the noise. CPU time is kept too: on a machine shared with other work,
// a one-thread run's CPU time is close to what its wall time would be alone.
Timing TimeRuns(void (*run)(void*), void* context, size_t warmup, size_t repeats, double seconds,
                Progress* progress);

}  // namespace attnrt::cli
