// AlignedBuffer: a host heap buffer aligned for an Arena (tools only; the
// runtime itself never allocates).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

#include "attnrt/runtime/arena.h"

namespace attnrt {

class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t bytes)
      : size_(bytes),
        data_(static_cast<unsigned char*>(
                  std::aligned_alloc(kArenaAlignment, RoundedSize(bytes))),
              &std::free) {}
  unsigned char* data() { return data_.get(); }
  size_t size() const { return size_; }
  bool ok() const { return data_ != nullptr; }

 private:
  // aligned_alloc wants a multiple of the alignment and a non-zero size.
  static size_t RoundedSize(size_t n) {
    return (n / kArenaAlignment + 1) * kArenaAlignment;
  }
  size_t size_;
  std::unique_ptr<unsigned char, decltype(&std::free)> data_;
};

}  // namespace attnrt
