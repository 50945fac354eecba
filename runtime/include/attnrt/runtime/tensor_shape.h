// TensorShape: a fixed-capacity shape (rank <= 4), enough for every tensor the
// attention runtime exchanges; no heap, so it works in firmware too.
#pragma once

#include <cstddef>

namespace attnrt {

struct TensorShape {
  static constexpr size_t kMaxRank = 4;
  size_t rank = 0;
  size_t dims[kMaxRank] = {0, 0, 0, 0};

  // Dimension counted from the right: FromRight(0) is the last one. Missing
  // leading dimensions read as 1, which is how broadcasting pads shapes.
  size_t FromRight(size_t i) const { return i < rank ? dims[rank - 1 - i] : 1; }
};

}  // namespace attnrt
