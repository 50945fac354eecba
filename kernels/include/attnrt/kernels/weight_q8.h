// The q8 weight type's layout and quantizer (block-quantized int8, our own layout of
// the idea ggml calls q8_0; weight_types.inc: 8 bits, blocks of 32, kF16Plane).
//
// Each row of `cols` values is cut into blocks of kQ8Block consecutive values (the
// last block may be shorter); block b of row r holds int8 q with value = scale[r][b] * q
// and scale[r][b] = max|x| / 127 over the block, stored as f16. A rows x cols q8
// matrix is two planes in one buffer:
//   bytes [0, rows*cols)                            int8 values, row-major;
//   bytes [Q8ScalesOffset, Q8ScalesOffset + 2*rows*Q8BlocksPerRow(cols))
//                                                  f16 scales, row-major,
// with Q8ScalesOffset = rows*cols rounded up to 64 bytes, so SIMD loads of either
// plane need no shuffling and every scale row starts 2-byte aligned.
//
// Header-only and allocation-free: used by kernels, the runtime's file checks and
// the converter alike.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/weight_type.h"

namespace attnrt {

inline constexpr const WeightTypeInfo& kQ8Info = *FindWeightType(WeightType::kQ8);
constexpr size_t kQ8Block = kQ8Info.block;

constexpr size_t Q8BlocksPerRow(size_t cols) { return WeightBlocksPerRow(kQ8Info, cols); }

// Bytes from the start of a q8 matrix to its scale plane. The caller has checked
// that rows * cols does not overflow (the file reader and the planner do).
constexpr size_t Q8ScalesOffset(size_t rows, size_t cols) {
  return ScalePlaneOffset(kQ8Info, rows, cols);
}

// Quantizes one row of `cols` finite floats into q8: values[cols] and
// scales[Q8BlocksPerRow(cols)] (f16 bits). The scale is stored first and the
// values are rounded against the stored (f16) scale, so dequantizing with it is
// the closest the format allows. An all-zero block gets scale 0.
//
// Tiny blocks (issue 34, item 11): below max|x| ~ 1e-3 the scale max|x| / 127 is an
// f16 subnormal, and rounding it to nearest can make it so much smaller than the
// true scale that the largest value, clamped to 127, loses up to a quarter of
// itself; below max|x| = 127 * 2^-25 (~3.8e-6) the scale even flushes to zero and
// the whole block to zeros. The rule: when the rounded scale times 127.5 falls
// short of max|x| (never for a normal f16 scale, whose rounding error is 2^-11),
// the scale goes up one f16 step, so every value is within half a step of its
// stored value and a nonzero block never becomes zeros (the smallest scale is
// 2^-24, so a value is kept to within 2^-25 absolute).
inline void QuantizeQ8Row(const float* x, size_t cols, int8_t* values, uint16_t* scales) {
  for (size_t b0 = 0, blk = 0; b0 < cols; b0 += kQ8Block, ++blk) {
    const size_t n = cols - b0 < kQ8Block ? cols - b0 : kQ8Block;
    float amax = 0.0f;
    for (size_t i = 0; i < n; ++i) {
      const float a = x[b0 + i] < 0 ? -x[b0 + i] : x[b0 + i];
      if (a > amax) amax = a;
    }
    uint16_t scale_bits = F32ToF16(amax / 127.0f);
    if (F16ToF32(scale_bits) * 127.5f < amax) ++scale_bits;  // tiny blocks: see above
    scales[blk] = scale_bits;
    const float scale = F16ToF32(scale_bits);
    const float inv = scale > 0.0f ? 1.0f / scale : 0.0f;
    for (size_t i = 0; i < n; ++i) {
      float q = x[b0 + i] * inv;
      q = q < -127.0f ? -127.0f : (q > 127.0f ? 127.0f : q);
      // Round half away from zero, in range by the clamp above.
      values[b0 + i] = static_cast<int8_t>(q < 0 ? q - 0.5f : q + 0.5f);
    }
  }
}

}  // namespace attnrt
