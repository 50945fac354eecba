// Work-item execution over an executor with per-worker arena scratch.
#include "attnrt/runtime/parallel.h"

#include "attnrt/runtime/checked_math.h"

namespace attnrt {
namespace {

struct Job {
  const WorkItems* work;
  float* scratch;
  size_t floats_per_worker;
};

void RunRange(void* context, size_t begin, size_t end, size_t worker) {
  const Job& job = *static_cast<const Job*>(context);
  job.work->run(job.work->params, begin, end, job.scratch + worker * job.floats_per_worker);
}

}  // namespace

Status WorkScratchBytes(size_t scratch_floats, size_t workers, size_t* bytes) {
  size_t per_worker;
  if (!CheckedMul(scratch_floats, sizeof(float), &per_worker) ||
      !CheckedAlignUp(per_worker, kArenaAlignment, &per_worker) ||
      !CheckedMul(per_worker, workers == 0 ? 1 : workers, bytes)) {
    return Status::Error(StatusCode::kOverflow, "scratch of %z floats for %z workers overflows",
                         scratch_floats, workers);
  }
  return Status::Ok();
}

uint64_t PerItem(std::initializer_list<uint64_t> factors, size_t items) {
  const uint64_t n = items == 0 ? 1 : static_cast<uint64_t>(items);
  uint64_t total = 1;
  for (uint64_t f : factors) {
    if (!CheckedMulU64(total, f, &total)) return UINT64_MAX / n;
  }
  return total / n + (total % n != 0 ? 1 : 0);
}

namespace {

// count x per_item < threshold, without overflowing (size_t is 32 bits on armhf).
bool Below(size_t count, uint64_t per_item, uint64_t threshold) {
  if (per_item == 0) return threshold > 0;
  return per_item < threshold && static_cast<uint64_t>(count) <= (threshold - 1) / per_item;
}

}  // namespace

bool RunsInline(const WorkItems& w, size_t workers, const SplitThreshold& t) {
  if (workers <= 1 || w.count <= 1) return true;
  if (w.flops_per_item == 0 && w.bytes_per_item == 0) return false;  // no estimate: split
  return Below(w.count, w.flops_per_item, t.flops) && Below(w.count, w.bytes_per_item, t.bytes);
}

Status RunWorkItems(const WorkItems& w, Arena* arena, Executor* executor) {
  if (w.count == 0) return Status::Ok();
  const size_t workers = executor->workers();
  // Asked on every use: a caller's executor (the C API's) may change after it was checked.
  if (workers == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "executor: workers() returned 0");
  }
  size_t bytes = 0;  // set on success; initialized for -Wmaybe-uninitialized on arm-none-eabi
  ATTNRT_RETURN_IF_ERROR(WorkScratchBytes(w.scratch_floats, workers, &bytes));
  const size_t mark = arena->Mark();
  void* scratch;
  ATTNRT_RETURN_IF_ERROR(arena->Allocate(bytes, kArenaAlignment, &scratch));
  if (!arena->measuring()) {
    if (RunsInline(w, workers, executor->split_threshold())) {
      w.run(w.params, 0, w.count, static_cast<float*>(scratch));  // worker 0's slice
    } else {
      Job job{&w, static_cast<float*>(scratch), bytes / workers / sizeof(float)};
      executor->ParallelFor(w.count, RunRange, &job);
    }
  }
  arena->Reset(mark);
  return Status::Ok();
}

}  // namespace attnrt
