// RunWorkItems: the one place that spreads a kernel's work items over an
// executor's workers, each with its own scratch slice carved from the arena.
// SDPA, Linear and any later kernel family go through it, so the scratch
// planning (bytes = workers x per-worker, 64-byte aligned) is written once.
#pragma once

#include <cstddef>

#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/executor.h"
#include "attnrt/runtime/status.h"

namespace attnrt {

struct WorkItems {
  size_t count = 0;           // independent items
  size_t scratch_floats = 0;  // per worker
  // Runs items [begin, end) of `params` with a private scratch slice.
  void (*run)(const void* params, size_t begin, size_t end, float* scratch) = nullptr;
  const void* params = nullptr;
};

// Bytes of arena scratch a run of `w` with `workers` workers takes.
Status WorkScratchBytes(size_t scratch_floats, size_t workers, size_t* bytes);

// Takes the scratch from `arena`, runs every item, releases the scratch. With a
// measuring arena it only makes the allocation.
Status RunWorkItems(const WorkItems& w, Arena* arena, Executor* executor);

}  // namespace attnrt
