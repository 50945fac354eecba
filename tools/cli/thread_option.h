// The --threads option every command that runs or plans work shares, and the one
// default they all resolve it to: plan sizes an arena for exactly the worker count
// a default run, sdpa, bench, demo or embed uses.
#pragma once

#include <cstddef>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>

#include "host/split_calibration.h"
#include "host/thread_pool.h"

namespace attnrt::cli {

// Adds --threads (checked by ThreadCount(): 0 to 1024; 0, the default, means
// DefaultWorkerCount()) to `cmd`, storing the raw value in *threads. Its help
// says what the default is here and why.
void AddThreadsOption(CLI::App& cmd, size_t* threads);

// The worker count a command uses or plans for when --threads is 0 or unset: the
// physical cores this process may run on (DefaultThreadCount, host/cpu_topology.h).
size_t DefaultWorkerCount();

// The worker count for a --threads value: the value, or DefaultWorkerCount() for 0.
size_t ResolveThreads(size_t threads);

// For a run's report line: "threads: 2 (default: physical cores)" or
// "threads: 1 (--threads 1)".
std::string DescribeThreads(size_t threads_option);

// A command's worker pool: --threads resolved, the split threshold measured
// (CalibrateSplit), and both described for the report line and the JSON. A command
// that runs a single job (`sdpa`) passes calibrate = false: measuring would cost
// about what that job does, and its job is then always split over the workers, as
// the parity tests that run it at 2 threads mean to check.
struct CommandPool {
  explicit CommandPool(size_t threads_option, bool calibrate = true);
  // "threads: 2 (default: physical cores); jobs under ... run on the calling thread; ..."
  std::string Describe() const;

  size_t threads_option;
  ThreadPool pool;
  SplitCalibration split;
};

// Adds "threads_chosen" (what DescribeThreads says in parentheses), "split" (the
// calibration's figures) and "stalls" (ThreadPool::stalls so far) to a command's JSON.
void AddThreadsJson(const CommandPool& workers, nlohmann::ordered_json* j);

}  // namespace attnrt::cli
