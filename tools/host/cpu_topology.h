// The default worker count: one per physical core this process may run on.
//
// SMT siblings share a core's FMA units and caches, so a second thread on a
// sibling adds little to compute-bound kernels and a job split across siblings
// pays the pool's dispatch for nothing. The count is read from sysfs
// (cpu*/topology/core_cpus_list, or thread_siblings_list on older kernels) for
// the CPUs in the process's affinity mask (sched_getaffinity: taskset, cgroup
// cpusets); where either is missing it falls back to hardware_concurrency().
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attnrt {

struct ThreadDefault {
  size_t count = 1;
  // Why `count`, for --help and a run's report line: "physical cores",
  // "physical cores, 4 SMT threads", "affinity mask: 2 of 8 cores",
  // "hardware threads, core topology unknown".
  std::string why;
};

// Parses a sysfs CPU list ("0-3,8,10-11", whitespace and a trailing newline
// allowed) into ascending CPU numbers. False (and *cpus untouched) for text that
// is not a list: empty, a range that runs backwards, a number past 65535.
bool ParseCpuList(const std::string& text, std::vector<size_t>* cpus);

// The choice from what sysfs and the affinity mask say. `allowed`: the CPUs this
// process may run on; `siblings[i]`: the content of allowed[i]'s core_cpus_list
// (empty where it could not be read); `online`: hardware_concurrency(). Counts
// the distinct cores among the allowed CPUs; unreadable or unparsable sibling
// text falls back to one core per allowed CPU (said in `why`), no allowed CPUs
// to `online`.
ThreadDefault ChooseThreadDefault(const std::vector<size_t>& allowed,
                                  const std::vector<std::string>& siblings, size_t online);

// Reads this machine: the affinity mask and <sysfs_cpu>/cpuN/topology files.
ThreadDefault ReadThreadDefault(const std::string& sysfs_cpu = "/sys/devices/system/cpu");

}  // namespace attnrt
