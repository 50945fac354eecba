// The q6_K weight type (weight_types.inc: 6 bits, super-blocks of 256, kSuperBlock): GGUF's
// block_q6_K byte for byte, so a GGUF Q6_K tensor is a q6_K tensor as it stands. Each
// super-block of 256 values along a row is 210 bytes:
//   [0, 128)   ql: the low 4 bits of each value
//   [128, 192) qh: the high 2 bits, four values per byte
//   [192, 208) 16 int8 scales sc[s], one per sub-block of 16 values (s = j / 16)
//   [208, 210) f16 d
// Value j = 128 h + 32 c + l (h the half, c 0..3, l 0..31) has its low bits in the low
// (c < 2) or high (c >= 2) nibble of ql[64 h + 32 (c % 2) + l] and its high bits at bit 2c of
// qh[32 h + l]; with q those 6 bits (0..63) it is (d * sc[j / 16]) * (q - 32): exact in f32
// (at most 11 + 7 + 5 significant bits), whichever code computes it.
//
// Header-only and allocation-free: used by kernels, the runtime's file checks, the
// converter and the tests alike.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/weight_q4_K.h"  // LoadF16Bits, F16AtLeast, SmallestMultipleAtLeast
#include "attnrt/kernels/weight_type.h"

namespace attnrt {

inline constexpr const WeightTypeInfo& kQ6_KInfo = *FindWeightType(WeightType::kQ6_K);
constexpr size_t kQ6_KBlock = kQ6_KInfo.block;
constexpr size_t kQ6_KBlockBytes = kQ6_KInfo.bytes;
constexpr size_t kQ6_KSub = 16;  // values per sub-block (one int8 scale each)
constexpr size_t kQ6_KQlAt = 0, kQ6_KQhAt = 128, kQ6_KScalesAt = 192, kQ6_KDAt = 208;
static_assert(kQ6_KDAt + 2 == kQ6_KBlockBytes, "block_q6_K is 210 bytes");

// The stored 6-bit values q (0..63) of values 128 h + 32 c + l, c = 0..3 (position l of
// each 32-value chunk of half h), into q[c]: two ql bytes (chunk c's nibble: the low ones for
// c < 2) and one qh byte (bit pair 2 c) hold all four (the panel copy's packer; Q6_KQuant
// below reads one).
inline void Q6_KQuants4(const uint8_t* block, size_t h, size_t l, unsigned q[4]) {
  const unsigned low0 = block[kQ6_KQlAt + 64 * h + l], low1 = block[kQ6_KQlAt + 64 * h + 32 + l];
  const unsigned high = block[kQ6_KQhAt + 32 * h + l];
  q[0] = (low0 & 15u) | (high & 3u) << 4;
  q[1] = (low1 & 15u) | (high >> 2 & 3u) << 4;
  q[2] = (low0 >> 4) | (high >> 4 & 3u) << 4;
  q[3] = (low1 >> 4) | (high >> 6) << 4;
}

// The stored 6-bit value q (0..63) of value j (0..255); the value is (q - 32) * step.
// (Q6_KQuants4's layout for one value: through Q6_KQuants4 the portable k-quant path, which
// decodes a value at a time, was 36% slower, linear_bench token q6_K SCALAR 12.2 -> 16.7 ms.)
inline unsigned Q6_KQuant(const uint8_t* block, size_t j) {
  const size_t h = j / 128, c = j % 128 / 32, l = j % 32;
  const uint8_t low = block[kQ6_KQlAt + 64 * h + 32 * (c % 2) + l];
  const uint8_t high = block[kQ6_KQhAt + 32 * h + l];
  return (c < 2 ? low & 15u : low >> 4) | ((high >> (2 * c)) & 3u) << 4;
}

// Sub-block s's step d * sc[s] (exact in f32; negative when sc[s] is).
inline float Q6_KStep(const uint8_t* block, size_t s) {
  return F16ToF32(LoadF16Bits(block + kQ6_KDAt)) *
         static_cast<float>(static_cast<int8_t>(block[kQ6_KScalesAt + s]));
}

// Value j of the super-block at `block` (210 bytes, any alignment).
inline float Q6_KValue(const uint8_t* block, size_t j) {
  return Q6_KStep(block, j / kQ6_KSub) * static_cast<float>(static_cast<int>(Q6_KQuant(block, j)) - 32);
}

// Quantizes one row of `cols` finite floats into WeightBlocksPerRow(cols) super-blocks at dst
// (a short last super-block as if padded with zeros; the file format stores only whole ones).
//
// A plain absmax quantizer (no error search; any encoding within the format is valid, readers
// never recompute), q4_0's choice per sub-block with the step rounded up instead of to
// nearest: per sub-block s, mx the value of largest magnitude (the first on ties) and a = |mx|;
// d is the smallest f16 with 4064 d >= max a (127 scale steps of 32 levels), |sc[s]| the
// smallest integer with 32 d |sc[s]| >= a, its sign opposite to mx's, so mx is stored at a level
// in [-32, 0] and every value of mx's sign within half a step |d sc[s]| of itself; values of the
// other sign beyond 31.5 steps clamp at 31, within a - 31 |d sc[s]| <= one step. The step
// exceeds a / 32 by at most d, and no block that is not all zeros becomes zeros. q = round(x /
// (d sc[s])) halves away from zero, clamped to [-32, 31], plus 32 (32 when the step is 0). A d
// beyond f16's range is stored as inf: the caller refuses the row (max |x| must stay below
// about 2.66e8).
inline void QuantizeQ6_KRow(const float* x, size_t cols, uint8_t* dst) {
  constexpr size_t kSubs = kQ6_KBlock / kQ6_KSub;
  for (size_t b0 = 0; b0 < cols; b0 += kQ6_KBlock, dst += kQ6_KBlockBytes) {
    float v[kQ6_KBlock];
    for (size_t i = 0; i < kQ6_KBlock; ++i) v[i] = b0 + i < cols ? x[b0 + i] : 0.0f;
    float mx[kSubs], max_a = 0.0f;
    for (size_t s = 0; s < kSubs; ++s) {
      float a_max = 0.0f;
      mx[s] = 0.0f;
      for (size_t i = 0; i < kQ6_KSub; ++i) {
        const float e = v[s * kQ6_KSub + i], a = e < 0 ? -e : e;
        if (a > a_max) {
          a_max = a;
          mx[s] = e;
        }
      }
      max_a = a_max > max_a ? a_max : max_a;
    }
    const uint16_t d_bits = F16AtLeast(max_a, 4064.0f);
    const float d = F16ToF32(d_bits);
    dst[kQ6_KDAt] = static_cast<uint8_t>(d_bits);
    dst[kQ6_KDAt + 1] = static_cast<uint8_t>(d_bits >> 8);
    for (size_t s = 0; s < kSubs; ++s) {
      const float a = mx[s] < 0 ? -mx[s] : mx[s];
      const int sc = static_cast<int>(SmallestMultipleAtLeast(32.0f * d, a, 127));
      dst[kQ6_KScalesAt + s] = static_cast<uint8_t>(static_cast<int8_t>(mx[s] > 0 ? -sc : sc));
    }
    for (size_t j = 0; j < kQ6_KBlock / 2; ++j) dst[kQ6_KQlAt + j] = 0;
    for (size_t j = 0; j < kQ6_KBlock / 4; ++j) dst[kQ6_KQhAt + j] = 0;
    for (size_t j = 0; j < kQ6_KBlock; ++j) {
      const float step = Q6_KStep(dst, j / kQ6_KSub);  // what readers will use
      // A NaN step (d past f16's range, which the caller refuses) counts as 0, as no step.
      float r = step > 0.0f || step < 0.0f ? v[j] / step : 0.0f;
      r = r < -32.0f ? -32.0f : (r > 31.0f ? 31.0f : r);
      const unsigned q =
          static_cast<unsigned>(static_cast<int>(r < 0 ? r - 0.5f : r + 0.5f) + 32);
      const size_t h = j / 128, c = j % 128 / 32, l = j % 32;
      dst[kQ6_KQlAt + 64 * h + 32 * (c % 2) + l] |= static_cast<uint8_t>((q & 15u) << (c < 2 ? 0 : 4));
      dst[kQ6_KQhAt + 32 * h + l] |= static_cast<uint8_t>((q >> 4) << (2 * c));
    }
  }
}

}  // namespace attnrt
