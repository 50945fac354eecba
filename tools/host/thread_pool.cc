// Fixed thread pool with dynamic chunking (see thread_pool.h). Chunks are claimed
// from one atomic word, so uneven items (causal rows) balance themselves and a
// worker that is not running costs the job nothing.
#include "host/thread_pool.h"

#include "host/cpu_topology.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <system_error>

namespace attnrt {
namespace {

using Clock = std::chrono::steady_clock;

// About 50 microseconds of polling: longer than the gap between the jobs of one
// decode step, far shorter than anything a person notices on an idle pool.
constexpr auto kSpinTime = std::chrono::microseconds(50);

// The stall guard (thread_pool.h): how long the caller keeps jobs to itself after a
// stall, at first and at most, and how many clean split jobs forgive the stalls.
constexpr auto kFirstBackoff = std::chrono::milliseconds(20);
constexpr auto kMaxBackoff = std::chrono::milliseconds(1000);
constexpr size_t kCleanJobsToForgive = 64;
// A wait longer than this many chunks at the caller's own pace (plus the spin
// time), and than kStallFloor, is a stall, not a chunk that was simply still running.
constexpr int kStallChunks = 4;
// A worker that lost its core to another program makes the caller wait about a
// scheduler time slice (0.75 ms and up). Shorter waits happen on an idle machine too,
// a virtual CPU waking late (100-300 us seen on a 2-vCPU VM), and cost only themselves.
constexpr auto kStallFloor = std::chrono::microseconds(500);
// One stall can be a hiccup (the hypervisor took the vCPU for a moment): the caller
// backs off when another follows within this window, as it does job after job on a
// machine whose other programs hold the cores. On an idle 2-vCPU VM, single stalls
// came a few per second and serializing after each lost 10-15% of two threads' speed.
constexpr auto kStallWindow = std::chrono::milliseconds(50);

// Jobs hold at most this many items (the claim word keeps the next item in 32
// bits); a larger one runs on the calling thread. Work items are rows, panels or
// key chunks: nowhere near it.
constexpr size_t kMaxJobItems = 0xFFFFFFFFu;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield");
#endif
}

// Polls `ready` for up to kSpinTime; false when it never became true. Between
// rounds it yields, so on a machine with more runnable threads than cores the
// spinner hands its core to whoever it is waiting for.
template <typename Ready>
bool SpinUntil(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (ready()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return ready();
    std::this_thread::yield();
  }
}

constexpr uint32_t GenerationOf(uint64_t claim) { return static_cast<uint32_t>(claim >> 32); }
constexpr size_t NextOf(uint64_t claim) { return static_cast<size_t>(claim & 0xFFFFFFFFu); }
constexpr uint64_t Claim(uint32_t generation, size_t next) {
  return (static_cast<uint64_t>(generation) << 32) | static_cast<uint64_t>(next);
}

}  // namespace

size_t DefaultThreadCount() {
  static const size_t count = ReadThreadDefault().count;  // the machine does not change
  return count;
}

ThreadPool::ThreadPool(size_t workers) {
  size_t w = 1;
  try {
    for (; w < workers; ++w) threads_.emplace_back([this, w] { WorkerLoop(w); });
  } catch (const std::system_error& e) {
    // The destructor does not run for a constructor that throws, and a joinable
    // std::thread destroyed unjoined terminates the program: stop those that started.
    StopWorkers();
    throw std::system_error(e.code(), "cannot start worker thread " + std::to_string(w) + " of " +
                                          std::to_string(workers) + " (try fewer --threads)");
  }
}

ThreadPool::~ThreadPool() { StopWorkers(); }

void ThreadPool::StopWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_release);
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

size_t ThreadPool::Drain(uint32_t generation, size_t worker) {
  const JobSlot& slot = slots_[generation & 1];
  size_t ran = 0;
  uint64_t claim = claim_.load(std::memory_order_acquire);
  for (;;) {
    if (GenerationOf(claim) != generation) return ran;  // the job is finished and gone
    // Read before claiming; a failed claim below discards whatever was read.
    const size_t items = slot.items.load(std::memory_order_relaxed);
    const size_t chunk = slot.chunk.load(std::memory_order_relaxed);
    const WorkFn fn = slot.fn.load(std::memory_order_relaxed);
    void* const context = slot.context.load(std::memory_order_relaxed);
    const size_t begin = NextOf(claim);
    if (begin >= items) return ran;  // all claimed: what is left is others' running chunks
    const size_t end = items - begin > chunk ? begin + chunk : items;
    if (!claim_.compare_exchange_weak(claim, Claim(generation, end), std::memory_order_acquire,
                                      std::memory_order_acquire)) {
      continue;  // `claim` now holds the current word
    }
    fn(context, begin, end, worker);
    ran += end - begin;
    // seq_cst here and on the caller's side: either the caller sees the count or
    // this worker sees that the caller sleeps (a store-load pair in both threads).
    const size_t done = finished_.fetch_add(end - begin) + (end - begin);
    if (done == items && worker != 0 && caller_sleeps_.load()) {
      std::lock_guard<std::mutex> lock(mutex_);  // the caller may be between its check and its wait
      done_.notify_one();
    }
    claim = claim_.load(std::memory_order_acquire);
  }
}

void ThreadPool::WorkerLoop(size_t worker) {
  uint32_t seen = 0;
  const auto job = [&] {
    return stop_.load(std::memory_order_acquire) ||
           GenerationOf(claim_.load(std::memory_order_acquire)) != seen;
  };
  for (;;) {
    if (!SpinUntil(job)) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, job);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = GenerationOf(claim_.load(std::memory_order_acquire));
    Drain(seen, worker);
  }
}

void ThreadPool::ParallelFor(size_t items, WorkFn fn, void* context) {
  if (items == 0) return;
  // One item, or no other worker: nothing to share, and waking a worker costs. After
  // a stall, every job stays on this thread for a while.
  if (threads_.empty() || items == 1 || items > kMaxJobItems ||
      (backoff_.count() != 0 && Clock::now() < serial_until_)) {
    fn(context, 0, items, 0);
    return;
  }
  // The previous job is finished (every claimed chunk ran), so no worker writes
  // finished_ or reads this slot for it any more (thread_pool.h, JobSlot).
  const uint32_t generation = ++generation_;
  JobSlot& slot = slots_[generation & 1];
  slot.fn.store(fn, std::memory_order_relaxed);
  slot.context.store(context, std::memory_order_relaxed);
  slot.items.store(items, std::memory_order_relaxed);
  // About 8 chunks per worker: enough to balance, few enough to stay cheap.
  const size_t per = items / (workers() * 8);
  const size_t chunk = per == 0 ? 1 : per;
  slot.chunk.store(chunk, std::memory_order_relaxed);
  finished_.store(0, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);  // sleepers check the word under it
    claim_.store(Claim(generation, 0), std::memory_order_release);  // publishes the slot
  }
  start_.notify_all();
  const Clock::time_point start = Clock::now();
  const size_t mine = Drain(generation, 0);
  // Every item is claimed; wait only for chunks that other workers are running.
  const auto finished = [&] { return finished_.load() == items; };
  if (finished()) {
    NoteWait(Clock::duration{}, mine, chunk, Clock::duration{}, Clock::time_point{});
    return;
  }
  const Clock::time_point drained = Clock::now();
  if (!SpinUntil(finished)) {
    std::unique_lock<std::mutex> lock(mutex_);
    caller_sleeps_.store(true);
    done_.wait(lock, finished);
    caller_sleeps_.store(false, std::memory_order_relaxed);
  }
  const Clock::time_point now = Clock::now();
  NoteWait(drained - start, mine, chunk, now - drained, now);
}

void ThreadPool::NoteWait(Clock::duration own, size_t mine, size_t chunk, Clock::duration wait,
                          Clock::time_point now) {
  // The caller's pace per item; with no item of its own there is nothing to compare.
  const bool stalled = mine > 0 && wait >= kStallFloor &&
                       wait > own / static_cast<Clock::rep>(mine) *
                                      static_cast<Clock::rep>(kStallChunks * chunk) +
                                  kSpinTime;
  if (!stalled) {
    if (backoff_.count() != 0 && ++clean_jobs_ >= kCleanJobsToForgive) backoff_ = {};
    return;
  }
  ++stalls_;
  clean_jobs_ = 0;
  const bool repeated = stalls_ > 1 && now - last_stall_ <= kStallWindow;
  last_stall_ = now;
  if (!repeated) return;
  backoff_ = backoff_.count() == 0 ? Clock::duration(kFirstBackoff)
                                   : std::min<Clock::duration>(2 * backoff_, kMaxBackoff);
  serial_until_ = now + backoff_;
}

}  // namespace attnrt
