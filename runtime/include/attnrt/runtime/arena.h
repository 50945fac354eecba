// Arena: one caller-owned buffer, bump allocation, and a high-water mark.
//
// The runtime never calls malloc: every byte it uses comes from an arena the
// caller sized with a plan (PlanModel in attnrt/models/model.h, PlanLm in
// attnrt/models/language_model.h, SdpaScratchBytes in attnrt/runtime/sdpa.h),
// which runs the same code with a measuring arena. The high-water mark lets
// tests check the plan against what a run really used.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/runtime/status.h"

namespace attnrt {

class Arena {
 public:
  Arena(void* buffer, size_t capacity) : base_(static_cast<uint8_t*>(buffer)), capacity_(capacity) {}

  // An arena without memory that only counts: every code path run with it makes
  // the same allocations as a real run but computes nothing (see measuring()),
  // so its high-water mark is the exact plan. Addresses it hands out are fake
  // and must never be dereferenced.
  static Arena Measuring() { return Arena(nullptr, ~size_t{0}); }
  bool measuring() const { return base_ == nullptr; }

  // Reserves `bytes` aligned to `alignment` (a power of two, at most
  // kArenaAlignment). The buffer itself must be kArenaAlignment-aligned.
  // Fails with "arena too small: need N bytes, have M" and leaves the arena as it was.
  Status Allocate(size_t bytes, size_t alignment, void** out);

  // Everything allocated after Mark() is released by Reset(mark).
  size_t Mark() const { return used_; }
  void Reset(size_t mark) { used_ = mark < used_ ? mark : used_; }

  size_t used() const { return used_; }
  size_t capacity() const { return capacity_; }
  size_t high_water() const { return high_water_; }

 private:
  uint8_t* base_;
  size_t capacity_;
  size_t used_ = 0;
  size_t high_water_ = 0;
};

// Alignment of every region the runtime carves: one cache line, and enough for
// the widest vector loads the kernels issue.
constexpr size_t kArenaAlignment = 64;

}  // namespace attnrt
