// ThreadPool: every item of every job runs exactly once, across many short jobs
// back to back (the pattern of a decode step, where workers spin between jobs)
// and after long pauses (where they have gone to sleep on the condition variable).
#include "host/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// A late worker (woken after its job finished, or descheduled between reading a
// job and claiming a chunk) must never run a chunk of a finished job: every call
// names the job that is current, and items run exactly once. More workers than
// cores, with items of uneven length, make workers late all the time.
struct CurrentJob {
  size_t id;  // jobs on the stack may share an address: ids tell them apart
  std::atomic<size_t>* current;
  std::vector<std::atomic<int>>* hits;
  std::atomic<int>* stale_calls;
};

void CountItemsOfTheCurrentJob(void* context, size_t begin, size_t end, size_t) {
  auto& job = *static_cast<CurrentJob*>(context);
  if (job.current->load() != job.id) job.stale_calls->fetch_add(1);
  for (size_t i = begin; i < end; ++i) {
    if (i % 13 == 0) std::this_thread::yield();
    (*job.hits)[i].fetch_add(1, std::memory_order_relaxed);
  }
}

TEST(ThreadPool, LateWorkersNeverTouchAFinishedJob) {
  const size_t workers = 3 * std::max<size_t>(1, std::thread::hardware_concurrency());
  ThreadPool pool(workers);
  std::atomic<size_t> current{0};
  std::atomic<int> stale_calls{0};
  for (size_t j = 0; j < 3000; ++j) {
    const size_t items = 1 + (j * 2654435761u) % 61;
    std::vector<std::atomic<int>> hits(items);
    CurrentJob job{j + 1, &current, &hits, &stale_calls};
    current.store(job.id);
    pool.ParallelFor(items, CountItemsOfTheCurrentJob, &job);
    current.store(0);  // from here on, a call for this job is a stale one
    for (size_t i = 0; i < items; ++i) {
      ASSERT_EQ(hits[i].load(), 1) << "job " << j << " item " << i << " of " << items;
    }
  }
  EXPECT_EQ(stale_calls.load(), 0);
}

}  // namespace
}  // namespace attnrt::testing
