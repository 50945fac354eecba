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

// The stall guard: a worker that holds a started chunk far longer than the caller's
// pace (as one that lost its core does) is noted, and the jobs right after run on
// the calling thread only.
struct Workers {
  std::atomic<int> other_workers{0};
  bool slow_others = false;
};

// The caller's items take 20 us each (so a worker has time to join); another
// worker's chunk takes 30 ms when slow_others is set.
void NoteWorker(void* context, size_t begin, size_t end, size_t worker) {
  auto& w = *static_cast<Workers*>(context);
  if (worker == 0) {
    const auto until = std::chrono::steady_clock::now() + (end - begin) * std::chrono::microseconds(20);
    while (std::chrono::steady_clock::now() < until) {
    }
    return;
  }
  w.other_workers.fetch_add(1);
  if (w.slow_others) std::this_thread::sleep_for(std::chrono::milliseconds(30));
}

// Runs jobs with a 30 ms chunk on the other worker until `stalls` stalls are noted
// (the worker may be too late to take an item: then the caller ran them all).
void StallUntil(ThreadPool* pool, size_t stalls) {
  Workers slow;
  slow.slow_others = true;
  for (int attempt = 0; attempt < 50 && pool->stalls() < stalls; ++attempt) {
    pool->ParallelFor(64, NoteWorker, &slow);
  }
}

// Jobs of 1.6 ms on the caller right after a stall: how many chunks other workers
// ran, or -1 when the machine descheduled this test past the 20 ms backoff (proves
// nothing).
int OtherWorkersRightAfter(ThreadPool* pool) {
  const auto noted = std::chrono::steady_clock::now();
  Workers after;
  for (int j = 0; j < 5; ++j) pool->ParallelFor(16, NoteWorker, &after);
  if (std::chrono::steady_clock::now() - noted >= std::chrono::milliseconds(18)) return -1;
  return after.other_workers.load();
}

TEST(ThreadPool, AStalledWorkerTwiceKeepsTheNextJobsOnTheCaller) {
  ThreadPool pool(2);
  StallUntil(&pool, 2);  // two 30 ms stalls, each within 50 ms of the one before
  ASSERT_EQ(pool.stalls(), 2u) << "a 30 ms chunk against a caller's microseconds is a stall";
  EXPECT_LE(OtherWorkersRightAfter(&pool), 0) << "jobs right after a repeated stall stay on "
                                                  "the caller";
}

// One stall alone is forgiven (on a virtual machine a vCPU can vanish for a moment with
// no other program running): the jobs right after it are split again, where a backoff
// would keep them on the caller for 20 ms.
TEST(ThreadPool, OneStallAloneKeepsSplitting) {
  ThreadPool pool(2);
  StallUntil(&pool, 1);
  ASSERT_EQ(pool.stalls(), 1u);
  const auto noted = std::chrono::steady_clock::now();
  Workers after;
  size_t jobs = 0;
  while (std::chrono::steady_clock::now() - noted < std::chrono::milliseconds(15)) {
    pool.ParallelFor(16, NoteWorker, &after);
    ++jobs;
  }
  ASSERT_EQ(pool.stalls(), 1u) << "the jobs after the stall must not stall";
  EXPECT_GT(after.other_workers.load(), 0)
      << "none of " << jobs << " jobs in the 15 ms after a single stall was split";
}

}  // namespace
}  // namespace attnrt::testing
