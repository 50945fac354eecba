// AlignedBuffer: a host heap buffer aligned for an Arena (tools only; the
// runtime itself never allocates).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/checked_math.h"

namespace attnrt {

class AlignedBuffer {
 public:
  // ok() is false when the memory cannot be had, including a size so close to
  // SIZE_MAX that rounding it up to the alignment would wrap.
  explicit AlignedBuffer(size_t bytes)
      : size_(bytes), data_(Allocate(bytes), &std::free) {}
  unsigned char* data() { return data_.get(); }
  size_t size() const { return size_; }
  bool ok() const { return data_ != nullptr; }

 private:
  // aligned_alloc wants a multiple of the alignment and a non-zero size.
  static unsigned char* Allocate(size_t n) {
    size_t rounded;
    if (!CheckedAdd(n, 1, &rounded) || !CheckedAlignUp(rounded, kArenaAlignment, &rounded)) {
      return nullptr;
    }
    return static_cast<unsigned char*>(std::aligned_alloc(kArenaAlignment, rounded));
  }
  size_t size_;
  std::unique_ptr<unsigned char, decltype(&std::free)> data_;
};

}  // namespace attnrt
