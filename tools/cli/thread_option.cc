// The shared --threads option (see thread_option.h).
#include "cli/thread_option.h"

#include <nlohmann/json.hpp>

#include "cli/option_checks.h"
#include "host/cpu_topology.h"

namespace attnrt::cli {
namespace {

std::string DefaultWhy() {
  static const std::string why = ReadThreadDefault().why;
  return why;
}

}  // namespace

void AddThreadsOption(CLI::App& cmd, size_t* threads) {
  cmd.add_option("--threads", *threads,
                 "Worker threads; 0 (default) = one per physical core this process may use "
                 "(SMT siblings share a core's units): " +
                     std::to_string(DefaultWorkerCount()) + " here (" + DefaultWhy() +
                     "). Jobs too small to gain from splitting run on one thread (measured "
                     "at start)")
      ->check(ThreadCount());
}

size_t DefaultWorkerCount() { return DefaultThreadCount(); }

size_t ResolveThreads(size_t threads) { return threads == 0 ? DefaultWorkerCount() : threads; }

std::string DescribeThreads(size_t threads_option) {
  std::string text = "threads: " + std::to_string(ResolveThreads(threads_option)) + " (";
  if (threads_option == 0) return text + "default: " + DefaultWhy() + ")";
  return text + "--threads " + std::to_string(threads_option) + ")";
}

CommandPool::CommandPool(size_t threads, bool calibrate)
    : threads_option(threads), pool(ResolveThreads(threads)) {
  split.workers = pool.workers();
  if (calibrate) split = CalibrateSplit(&pool);
}

void AddThreadsJson(const CommandPool& workers, nlohmann::ordered_json* j) {
  (*j)["threads_chosen"] = workers.threads_option == 0
                               ? "default: " + DefaultWhy()
                               : "--threads " + std::to_string(workers.threads_option);
  const SplitCalibration& s = workers.split;
  (*j)["split"] = {{"dispatch_us", s.dispatch_us},
                   {"gflops", s.gflops},
                   {"gbytes_per_s", s.gbytes_per_s},
                   {"threshold_us", s.threshold_us},
                   {"threshold_flops", s.threshold.flops},
                   {"threshold_bytes", s.threshold.bytes}};
  (*j)["stalls"] = workers.pool.stalls();
}

std::string CommandPool::Describe() const {
  return DescribeThreads(threads_option) + "; " + DescribeSplit(split);
}

}  // namespace attnrt::cli
