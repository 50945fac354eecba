// RunWorkItems: a job below the executor's split threshold runs on the calling
// thread (worker 0's scratch, no ParallelFor), a larger one is handed to the
// executor, and the arena bytes are the same either way, so a plan measured with
// a PlanningExecutor fits both. PerItem and RunsInline never overflow.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/executor.h"
#include "attnrt/runtime/parallel.h"
#include "host/aligned_buffer.h"

namespace attnrt {
namespace {

TEST(Parallel, PerItemRoundsUpAndSaturates) {
  EXPECT_EQ(PerItem({2, 16, 96, 96}, 1), 294912u);
  EXPECT_EQ(PerItem({10}, 3), 4u);
  EXPECT_EQ(PerItem({9}, 3), 3u);
  EXPECT_EQ(PerItem({7}, 0), 7u) << "no items counts as one";
  EXPECT_EQ(PerItem({uint64_t{1} << 40, uint64_t{1} << 40}, 4), UINT64_MAX / 4);
}

WorkItems Job(size_t count, uint64_t flops, uint64_t bytes) {
  WorkItems w;
  w.count = count;
  w.flops_per_item = flops;
  w.bytes_per_item = bytes;
  return w;
}

TEST(Parallel, RunsInlineBelowBothThresholds) {
  const SplitThreshold t{1000, 400};
  EXPECT_TRUE(RunsInline(Job(9, 100, 40), 2, t));    // 900 flops, 360 bytes
  EXPECT_FALSE(RunsInline(Job(10, 100, 40), 2, t));  // 1000 flops: not below
  EXPECT_FALSE(RunsInline(Job(9, 100, 50), 2, t));   // 450 bytes
  EXPECT_TRUE(RunsInline(Job(9, 100, 0), 2, t)) << "no bytes: flops decide";
  EXPECT_FALSE(RunsInline(Job(9, 0, 0), 2, t)) << "no estimate: split as before";
  EXPECT_FALSE(RunsInline(Job(2, 1, 1), 2, SplitThreshold{})) << "no threshold: split";
  EXPECT_TRUE(RunsInline(Job(1, UINT64_MAX, UINT64_MAX), 2, t)) << "one item";
  EXPECT_TRUE(RunsInline(Job(1000, UINT64_MAX, UINT64_MAX), 1, t)) << "one worker";
  // count x per item past 2^64 (and past a 32-bit size_t's count x per item).
  EXPECT_FALSE(RunsInline(Job(size_t{1} << 31, uint64_t{1} << 40, 1), 2,
                          SplitThreshold{UINT64_MAX, UINT64_MAX}));
  EXPECT_TRUE(RunsInline(Job(3, uint64_t{1} << 40, 1), 2, SplitThreshold{UINT64_MAX, 4}));
}

// Records what RunWorkItems asked of it; runs every item on worker 1's slice when it
// is asked, so a test tells the two paths apart by the scratch they used.
class RecordingExecutor final : public Executor {
 public:
  explicit RecordingExecutor(SplitThreshold t) : threshold_(t) {}
  size_t workers() const override { return 2; }
  void ParallelFor(size_t items, WorkFn fn, void* context) override {
    ++calls;
    fn(context, 0, items, 1);
  }
  SplitThreshold split_threshold() const override { return threshold_; }
  int calls = 0;

 private:
  SplitThreshold threshold_;
};

struct Seen {
  std::vector<float*> scratch;
  size_t items = 0;
};

void Record(const void* params, size_t begin, size_t end, float* scratch) {
  auto* seen = static_cast<Seen*>(const_cast<void*>(params));
  seen->scratch.push_back(scratch);
  seen->items += end - begin;
}

TEST(Parallel, SmallJobsRunInlineWithTheSameArenaBytes) {
  AlignedBuffer buffer(1 << 16);
  for (uint64_t flops : {uint64_t{10}, uint64_t{1000}}) {  // 8 items: 80 (inline) or 8000
    RecordingExecutor executor(SplitThreshold{1000, 1000});
    Seen seen;
    WorkItems w = Job(8, flops, 1);
    w.scratch_floats = 100;
    w.run = Record;
    w.params = &seen;
    Arena arena(buffer.data(), buffer.size());
    ASSERT_TRUE(RunWorkItems(w, &arena, &executor).ok());
    EXPECT_EQ(seen.items, 8u);
    const bool inline_run = flops == 10;
    EXPECT_EQ(executor.calls, inline_run ? 0 : 1);
    ASSERT_EQ(seen.scratch.size(), 1u);
    const float* base = reinterpret_cast<const float*>(buffer.data());
    // 100 floats round up to 448 bytes (112 floats) per worker.
    EXPECT_EQ(seen.scratch[0], inline_run ? base : base + 112) << "worker 0's or worker 1's slice";
    EXPECT_EQ(arena.high_water(), 2 * 448u) << "scratch for every worker either way";

    Arena measuring = Arena::Measuring();
    ASSERT_TRUE(RunWorkItems(w, &measuring, &executor).ok());
    EXPECT_EQ(measuring.high_water(), arena.high_water()) << "the plan measures what runs";
  }
}

}  // namespace
}  // namespace attnrt
