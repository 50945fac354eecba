// Bump allocation over a caller-owned buffer (see arena.h).
#include "attnrt/runtime/arena.h"

#include "attnrt/runtime/checked_math.h"

namespace attnrt {
namespace {
constexpr uintptr_t kMeasuringBase = 1u << 16;
}  // namespace

Status Arena::Allocate(size_t bytes, size_t alignment, void** out) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > kArenaAlignment) {
    return Status::Error(StatusCode::kInvalidArgument, "arena alignment %z is not a power of two <= 64",
                         alignment);
  }
  // Offsets are aligned relative to the base, which must itself be aligned, so
  // the bytes a plan computes do not depend on where the caller's buffer sits.
  if (reinterpret_cast<uintptr_t>(base_) % kArenaAlignment != 0) {
    return Status::Error(StatusCode::kInvalidArgument, "arena buffer is not %z-byte aligned",
                         kArenaAlignment);
  }
  const size_t padding = (alignment - used_ % alignment) % alignment;
  size_t end;
  if (!CheckedAdd(used_, padding, &end) || !CheckedAdd(end, bytes, &end)) {
    return Status::Error(StatusCode::kOverflow, "arena request of %z bytes overflows", bytes);
  }
  if (end > capacity_) {
    return Status::Error(StatusCode::kArenaTooSmall, "arena too small: need %z bytes, have %z", end,
                         capacity_);
  }
  // A measuring arena returns distinct, aligned, non-null fake addresses so that
  // validation code treats them like real buffers.
  *out = measuring() ? reinterpret_cast<void*>(kMeasuringBase + used_ + padding)
                     : static_cast<void*>(base_ + used_ + padding);
  used_ = end;
  if (used_ > high_water_) high_water_ = used_;
  return Status::Ok();
}

}  // namespace attnrt
