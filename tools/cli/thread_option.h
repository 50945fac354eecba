// The --threads option every command that runs or plans work shares, and the one
// default they all resolve it to: plan sizes an arena for exactly the worker count
// a default run, sdpa, bench, demo or embed uses.
#pragma once

#include <cstddef>

#include <CLI/CLI.hpp>

namespace attnrt::cli {

// Adds --threads (checked by ThreadCount(): 0 to 1024; 0, the default, means
// DefaultWorkerCount()) to `cmd`, storing the raw value in *threads.
void AddThreadsOption(CLI::App& cmd, size_t* threads);

// The worker count a command uses or plans for when --threads is 0 or unset: all
// hardware threads (DefaultThreadCount in host/thread_pool.h).
size_t DefaultWorkerCount();

// The worker count for a --threads value: the value, or DefaultWorkerCount() for 0.
size_t ResolveThreads(size_t threads);

}  // namespace attnrt::cli
