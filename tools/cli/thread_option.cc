// The shared --threads option (see thread_option.h).
#include "cli/thread_option.h"

#include "cli/option_checks.h"
#include "host/thread_pool.h"

namespace attnrt::cli {

void AddThreadsOption(CLI::App& cmd, size_t* threads) {
  cmd.add_option("--threads", *threads,
                 "Worker threads; 0 (default) = all hardware threads, " +
                     std::to_string(DefaultWorkerCount()) + " here")
      ->check(ThreadCount());
}

size_t DefaultWorkerCount() { return DefaultThreadCount(); }

size_t ResolveThreads(size_t threads) { return threads == 0 ? DefaultWorkerCount() : threads; }

}  // namespace attnrt::cli
