// Scratch of the blocked SDPA kernels: region sizes rounded so every region of
// a scratch buffer starts 64-byte aligned, and the scalar fills the drivers do
// (zeroing, packing Q or K into transposed panels). Plain code for every family,
// compiled with default flags (not per ISA or Highway target).
#pragma once

#include <cstddef>

#include "attnrt/kernels/sdpa_kernel.h"

namespace attnrt {

inline size_t RoundUp(size_t n, size_t m) { return (n + m - 1) / m * m; }

// Scratch regions start on this many floats so every region is 64-byte aligned.
constexpr size_t kRegionAlignFloats = kScratchAlignment / sizeof(float);

inline size_t AlignFloats(size_t n) { return RoundUp(n, kRegionAlignFloats); }

inline size_t MinSize(size_t a, size_t b) { return a < b ? a : b; }
inline size_t MaxSize(size_t a, size_t b) { return a > b ? a : b; }

inline void ZeroFloats(float* x, size_t n) {
  for (size_t j = 0; j < n; ++j) x[j] = 0.0f;
}

// A transposed panel of `rows` rows of Q or K (row r at src + r * row_stride):
// panel[e * ld + r] = scale * src[r * row_stride + e] for e < dim, r < rows,
// and zero for rows <= r < ld. Four rows at a time: four forward streams
// through the source, four adjacent floats written per step. (One row at a
// time, the loop is one strided load and store per element, and its speed
// swung by 60% with its code alignment.) Out of line: inlined into a block
// loop, its streams spill registers.
inline __attribute__((noinline)) void PackTransposed(const float* __restrict src,
                                                     size_t row_stride, size_t rows, size_t dim,
                                                     size_t ld, float scale,
                                                     float* __restrict panel) {
  size_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const float* __restrict s0 = src + r * row_stride;
    const float* __restrict s1 = s0 + row_stride;
    const float* __restrict s2 = s1 + row_stride;
    const float* __restrict s3 = s2 + row_stride;
    for (size_t e = 0; e < dim; ++e) {
      float* __restrict dst = panel + e * ld + r;
      dst[0] = s0[e] * scale;
      dst[1] = s1[e] * scale;
      dst[2] = s2[e] * scale;
      dst[3] = s3[e] * scale;
    }
  }
  for (size_t e = 0; e < dim; ++e) {
    float* __restrict dst = panel + e * ld;
    for (size_t t = r; t < rows; ++t) dst[t] = src[t * row_stride + e] * scale;
    for (size_t t = rows; t < ld; ++t) dst[t] = 0.0f;
  }
}

}  // namespace attnrt
