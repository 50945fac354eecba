// The q4_0 weight type (weight_types.inc: 4 bits, blocks of 32, kF16InBlock): GGUF's
// block_q4_0 byte for byte, so a GGUF Q4_0 tensor is a q4_0 tensor as it stands. Each
// block of 32 values along a row is 18 bytes: an f16 scale d, then 16 bytes qs; value
// j < 16 is ((qs[j] & 15) - 8) * d, value j + 16 is ((qs[j] >> 4) - 8) * d (the low
// nibbles hold the first half of the block, the high nibbles the second, as ggml does).
// A row is ceil(cols / 32) blocks; a short last block is stored as if padded with zeros
// (nibble 8). runtime/FORMAT.md says why the scales sit in the blocks.
//
// Header-only and allocation-free: used by kernels, the runtime's file checks, the
// converter and the tests alike.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/weight_type.h"

namespace attnrt {

inline constexpr const WeightTypeInfo& kQ4_0Info = *FindWeightType(WeightType::kQ4_0);
constexpr size_t kQ4_0Block = kQ4_0Info.block;
constexpr size_t kQ4_0BlockBytes = 2 + kQ4_0Block * kQ4_0Info.bits / 8;

// The block's f16 scale bits (little-endian, any alignment).
inline uint16_t Q4_0ScaleBits(const uint8_t* block) {
  return static_cast<uint16_t>(block[0] | block[1] << 8);
}

// The stored nibble of value j of a block (0..15; the value is (nibble - 8) * d).
inline unsigned Q4_0Nibble(const uint8_t* block, size_t j) {
  return j < kQ4_0Block / 2 ? block[2 + j] & 15u : block[2 + j - kQ4_0Block / 2] >> 4;
}

// Value j of the block at `block` (18 bytes, any alignment). Exact in f32: a 4-bit
// integer times an 11-bit f16 mantissa.
inline float Q4_0Value(const uint8_t* block, size_t j) {
  return static_cast<float>(static_cast<int>(Q4_0Nibble(block, j)) - 8) *
         F16ToF32(Q4_0ScaleBits(block));
}

// Quantizes one row of `cols` finite floats into WeightBlocksPerRow(cols) blocks at dst.
//
// Per block, as ggml's quantize_row_q4_0_ref picks its scale: m is the value of largest
// magnitude (the first, on ties) and d = m / -8, so m itself is stored as -8 * d and the
// 16 levels -8..7 cover [-|m|, |m|] with one level to spare on m's side. Unlike ggml, the
// scale is rounded to f16 first and the values are rounded against the stored scale
// (round(x / d), clamped to [-8, 7], half away from zero), so dequantizing with it is the
// closest the block allows: every value is within half a step |d| of its stored value,
// except values of the sign opposite to m beyond 7.5 steps, which clamp to 7 (an error of
// at most |m| - 7|d|: under 1 + 2^-8 steps for a normal f16 d, the format's own limit).
//
// Tiny blocks (the rule q8 follows, weight_q8.h): below |m| ~ 4.9e-4 the scale is an f16
// subnormal, and rounding it to nearest can shrink it so far that m clamps at -8 with
// more than half a step of error; below |m| ~ 2.4e-7 it even flushes to zero and the block
// to zeros. When the rounded scale times 8.5 falls short of |m| (never for a normal f16
// scale) its magnitude goes up one f16 step: then m is within half a step again, the
// smallest scale is 2^-24, and no block whose largest value reaches 2^-25 becomes zeros.
// Any other rounding that stays within the format is valid; readers never recompute.
inline void QuantizeQ4_0Row(const float* x, size_t cols, uint8_t* dst) {
  for (size_t b0 = 0; b0 < cols; b0 += kQ4_0Block, dst += kQ4_0BlockBytes) {
    const size_t n = cols - b0 < kQ4_0Block ? cols - b0 : kQ4_0Block;
    float m = 0.0f, amax = 0.0f;
    for (size_t i = 0; i < n; ++i) {
      const float a = x[b0 + i] < 0 ? -x[b0 + i] : x[b0 + i];
      if (a > amax) {
        amax = a;
        m = x[b0 + i];
      }
    }
    uint16_t d_bits = F32ToF16(m / -8.0f);
    if (F16ToF32(static_cast<uint16_t>(d_bits & 0x7FFFu)) * 8.5f < amax) ++d_bits;  // tiny
    const float d = F16ToF32(d_bits);
    const float inv = d != 0.0f ? 1.0f / d : 0.0f;
    dst[0] = static_cast<uint8_t>(d_bits);
    dst[1] = static_cast<uint8_t>(d_bits >> 8);
    uint8_t nibbles[kQ4_0Block];
    for (size_t i = 0; i < kQ4_0Block; ++i) {
      if (i >= n) {
        nibbles[i] = 8;  // padding: value 0
        continue;
      }
      float q = x[b0 + i] * inv;
      q = q < -8.0f ? -8.0f : (q > 7.0f ? 7.0f : q);
      // Round half away from zero (in range by the clamp above), then offset by 8.
      nibbles[i] = static_cast<uint8_t>(static_cast<int>(q < 0 ? q - 0.5f : q + 0.5f) + 8);
    }
    for (size_t j = 0; j < kQ4_0Block / 2; ++j) {
      dst[2 + j] = static_cast<uint8_t>(nibbles[j] | nibbles[j + kQ4_0Block / 2] << 4);
    }
  }
}

}  // namespace attnrt
