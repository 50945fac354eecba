// ThreadPool: every item of every job runs exactly once, across many short jobs
// back to back (the pattern of a decode step, where workers spin between jobs)
// and after long pauses (where they have gone to sleep on the condition variable).
#include "host/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace attnrt::testing {
namespace {

struct Job {
  std::vector<std::atomic<int>>* hits;
};

void CountItems(void* context, size_t begin, size_t end, size_t) {
  auto& hits = *static_cast<Job*>(context)->hits;
  for (size_t i = begin; i < end; ++i) hits[i].fetch_add(1, std::memory_order_relaxed);
}

void RunJobs(ThreadPool& pool, size_t jobs, bool pause) {
  for (size_t j = 0; j < jobs; ++j) {
    const size_t items = 1 + (j * 7919) % 97;
    std::vector<std::atomic<int>> hits(items);
    Job job{&hits};
    pool.ParallelFor(items, CountItems, &job);
    for (size_t i = 0; i < items; ++i) {
      ASSERT_EQ(hits[i].load(), 1) << "job " << j << " item " << i << " of " << items;
    }
    if (pause) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST(ThreadPool, EveryItemOnceInBackToBackJobs) {
  for (size_t workers : {1, 2, 3, 5}) {
    ThreadPool pool(workers);
    EXPECT_EQ(pool.workers(), workers);
    RunJobs(pool, 1000, false);
  }
}

TEST(ThreadPool, EveryItemOnceAfterWorkersWentToSleep) {
  ThreadPool pool(3);
  RunJobs(pool, 20, true);
}

}  // namespace
}  // namespace attnrt::testing
