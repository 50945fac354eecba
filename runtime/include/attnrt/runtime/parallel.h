// RunWorkItems: the one place that spreads a kernel's work items over an
// executor's workers, each with its own scratch slice carved from the arena.
// SDPA, Linear and any later kernel family go through it, so the scratch
// planning (bytes = workers x per-worker, 64-byte aligned) is written once.
//
// Work is split only where it pays: a job whose estimated flops and bytes (count x
// per item) are both below the executor's split_threshold() runs on the calling
// thread, as does a job of one item. Scratch is taken for every worker
// either way, so a plan's arena bytes do not depend on which way a job runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/executor.h"
#include "attnrt/runtime/status.h"

namespace attnrt {

struct WorkItems {
  size_t count = 0;           // independent items
  size_t scratch_floats = 0;  // per worker
  // What one item costs, estimated from the shape: flops (a multiply-add counts 2)
  // and bytes it reads and writes (weights, keys and values, activations). Both 0
  // = unknown: the job is split whatever its size.
  uint64_t flops_per_item = 0;
  uint64_t bytes_per_item = 0;
  // Runs items [begin, end) of `params` with a private scratch slice.
  void (*run)(const void* params, size_t begin, size_t end, float* scratch) = nullptr;
  const void* params = nullptr;
};

// Bytes of arena scratch a run of `w` with `workers` workers takes.
Status WorkScratchBytes(size_t scratch_floats, size_t workers, size_t* bytes);

// A per-item cost for a job of `items` items whose total is the product of
// `factors` (e.g. flops {2, rows, in, out} for a Linear), rounded up; saturates at
// UINT64_MAX / items instead of overflowing (the figure is only compared).
uint64_t PerItem(std::initializer_list<uint64_t> factors, size_t items);

// True when `w` runs on the calling thread rather than being handed to `workers`
// workers whose executor has split threshold `t`.
bool RunsInline(const WorkItems& w, size_t workers, const SplitThreshold& t);

// Takes the scratch from `arena`, runs every item (on the calling thread when
// RunsInline, else over the executor), releases the scratch. With a measuring
// arena it only makes the allocation.
Status RunWorkItems(const WorkItems& w, Arena* arena, Executor* executor);

}  // namespace attnrt
