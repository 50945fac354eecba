// Scratch arithmetic of the blocked SDPA kernels: region sizes rounded so every
// region of a scratch buffer starts 64-byte aligned, and the scalar fills the
// drivers do. Plain code for every family (not per ISA or Highway target).
#pragma once

#include <cstddef>

#include "attnrt/kernels/sdpa_kernel.h"

namespace attnrt {

inline size_t RoundUp(size_t n, size_t m) { return (n + m - 1) / m * m; }

// Scratch regions start on this many floats so every region is 64-byte aligned.
constexpr size_t kRegionAlignFloats = kScratchAlignment / sizeof(float);

inline size_t AlignFloats(size_t n) { return RoundUp(n, kRegionAlignFloats); }

inline size_t MinSize(size_t a, size_t b) { return a < b ? a : b; }

inline void ZeroFloats(float* x, size_t n) {
  for (size_t j = 0; j < n; ++j) x[j] = 0.0f;
}

}  // namespace attnrt
