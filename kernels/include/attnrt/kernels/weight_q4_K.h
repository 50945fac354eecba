// The q4_K weight type (weight_types.inc: 4 bits, super-blocks of 256, kSuperBlock): GGUF's
// block_q4_K byte for byte, so a GGUF Q4_K tensor is a q4_K tensor as it stands. Each
// super-block of 256 values along a row is 144 bytes:
//   [0, 2)    f16 d     scale of the sub-block scales
//   [2, 4)    f16 dmin  scale of the sub-block mins
//   [4, 16)   the 6-bit scale sc[s] and min m[s] of the 8 sub-blocks of 32 (Q4_KScaleMin)
//   [16, 144) 128 bytes of nibbles: 32 bytes per 64 values, the low nibbles the first 32
//             of them, the high nibbles the next 32 (as q4_0 halves its block)
// and value j of sub-block s = j / 32 is (d * sc[s]) * q - (dmin * m[s]), q its nibble
// (0..15). Both products are exact in f32 (11 + 6 + 4 bits), so a value is the f32 rounding
// of one subtraction, whichever code computes it.
//
// Header-only and allocation-free: used by kernels, the runtime's file checks, the
// converter and the tests alike.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/weight_type.h"

namespace attnrt {

inline constexpr const WeightTypeInfo& kQ4_KInfo = *FindWeightType(WeightType::kQ4_K);
constexpr size_t kQ4_KBlock = kQ4_KInfo.block;
constexpr size_t kQ4_KBlockBytes = kQ4_KInfo.bytes;
constexpr size_t kQ4_KSub = 32;  // values per sub-block (one 6-bit scale and min each)
constexpr size_t kQ4_KDAt = 0, kQ4_KDminAt = 2, kQ4_KScalesAt = 4, kQ4_KNibblesAt = 16;
static_assert(kQ4_KNibblesAt + kQ4_KBlock / 2 == kQ4_KBlockBytes, "block_q4_K is 144 bytes");

inline uint16_t LoadF16Bits(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

// The 6-bit scale and min of sub-block s (0..7) from the 12 scale bytes: sub-blocks 0..3 in
// the low 6 bits of bytes s and s + 4; 4..7 in the nibbles of byte s + 4 with their top two
// bits in the spare top bits of bytes s - 4 (scale) and s (min).
inline void Q4_KScaleMin(const uint8_t* block, size_t s, unsigned* sc, unsigned* m) {
  const uint8_t* q = block + kQ4_KScalesAt;
  if (s < 4) {
    *sc = q[s] & 63u;
    *m = q[s + 4] & 63u;
  } else {
    *sc = (q[s + 4] & 15u) | (q[s - 4] >> 6) << 4;
    *m = (q[s + 4] >> 4) | (q[s] >> 6) << 4;
  }
}

// All 8 scales and all 8 mins at once, byte s of *sc and of *m for sub-block s (the same as
// Q4_KScaleMin's, a few word operations instead of 16 byte lookups: kernels decode them once
// per super-block and row).
inline void Q4_KScaleMinBytes(const uint8_t* block, uint64_t* sc, uint64_t* m) {
  const uint8_t* q = block + kQ4_KScalesAt;
  const auto word = [q](size_t at) {
    return uint32_t{q[at]} | uint32_t{q[at + 1]} << 8 | uint32_t{q[at + 2]} << 16 |
           uint32_t{q[at + 3]} << 24;
  };
  const uint32_t w0 = word(0), w1 = word(4), w2 = word(8);
  const uint32_t six = 0x3F3F3F3Fu, four = 0x0F0F0F0Fu, two = 0x03030303u;
  *sc = (w0 & six) | uint64_t{(w2 & four) | ((w0 >> 6) & two) << 4} << 32;
  *m = (w1 & six) | uint64_t{((w2 >> 4) & four) | ((w1 >> 6) & two) << 4} << 32;
}

// The stored nibble of value j (0..255).
inline unsigned Q4_KNibble(const uint8_t* block, size_t j) {
  const uint8_t byte = block[kQ4_KNibblesAt + j / 64 * 32 + j % 32];
  return j % 64 < 32 ? byte & 15u : byte >> 4;
}

// Sub-block s's step d * sc[s] and offset dmin * m[s], both exact in f32.
inline void Q4_KStepOffset(const uint8_t* block, size_t s, float* step, float* offset) {
  unsigned sc, m;
  Q4_KScaleMin(block, s, &sc, &m);
  *step = F16ToF32(LoadF16Bits(block + kQ4_KDAt)) * static_cast<float>(sc);
  *offset = F16ToF32(LoadF16Bits(block + kQ4_KDminAt)) * static_cast<float>(m);
}

// Value j of the super-block at `block` (144 bytes, any alignment).
inline float Q4_KValue(const uint8_t* block, size_t j) {
  float step, offset;
  Q4_KStepOffset(block, j / kQ4_KSub, &step, &offset);
  return step * static_cast<float>(Q4_KNibble(block, j)) - offset;
}

// The smallest non-negative f16 h with h * k >= target (k a small integer, so h * k is exact
// in f32); 0x7C00 (inf) when none is finite. The quantizer's scales never fall short.
inline uint16_t F16AtLeast(float target, float k) {
  if (!(target > 0.0f)) return 0;
  uint16_t bits = F32ToF16(target / k);
  if (bits >= 0x7C00u) return 0x7C00u;
  while (F16ToF32(bits) * k < target) {
    if (++bits >= 0x7C00u) return 0x7C00u;
  }
  return bits;
}

// The smallest n in [0, max] with unit * n >= target (products exact), max when none is.
inline unsigned SmallestMultipleAtLeast(float unit, float target, unsigned max) {
  if (!(target > 0.0f) || !(unit > 0.0f)) return 0;
  const float guess = target / unit;
  unsigned n = guess >= static_cast<float>(max) ? max : static_cast<unsigned>(guess);
  while (n > 0 && unit * static_cast<float>(n - 1) >= target) --n;
  while (n < max && unit * static_cast<float>(n) < target) ++n;
  return n;
}

// Quantizes one row of `cols` finite floats into WeightBlocksPerRow(cols) super-blocks at dst
// (a short last super-block as if padded with zeros; the file format stores only whole ones).
//
// A plain min/max quantizer (no error search; any encoding within the format is valid, readers
// never recompute). Per sub-block s: lo = min(0, min x), hi = max x. The mins first: dmin is the
// smallest f16 with 63 dmin >= max(-lo), m[s] the smallest integer with dmin m[s] >= -lo, so the
// sub-block's lowest level -dmin m[s] is at or below every value. Then the steps: t = hi +
// dmin m[s] is the range the 15 steps above that level must span; d is the smallest f16 with
// 945 d >= max t and sc[s] the smallest integer with 15 d sc[s] >= t. So every value lies in
// the sub-block's 16 levels and is stored within half a step d sc[s] of itself (up to the
// f32 rounding of t), the step exceeds t / 15 by at most d, and no block that is not all
// zeros becomes zeros. Nibble q = round((x + dmin m[s]) / (d sc[s])), halves up, clamped to
// 0..15 (0 when the step is 0). A d or dmin beyond f16's range is stored as inf: the caller
// refuses the row (dmin: a value below 65504 * -63, about -4.1e6; d: a sub-block spanning more
// than about 6.1e7).
inline void QuantizeQ4_KRow(const float* x, size_t cols, uint8_t* dst) {
  constexpr size_t kSubs = kQ4_KBlock / kQ4_KSub;
  for (size_t b0 = 0; b0 < cols; b0 += kQ4_KBlock, dst += kQ4_KBlockBytes) {
    float v[kQ4_KBlock];
    for (size_t i = 0; i < kQ4_KBlock; ++i) v[i] = b0 + i < cols ? x[b0 + i] : 0.0f;
    float lo[kSubs], hi[kSubs], max_mn = 0.0f;
    for (size_t s = 0; s < kSubs; ++s) {
      lo[s] = 0.0f;
      hi[s] = v[s * kQ4_KSub];
      for (size_t i = 0; i < kQ4_KSub; ++i) {
        const float a = v[s * kQ4_KSub + i];
        lo[s] = a < lo[s] ? a : lo[s];
        hi[s] = a > hi[s] ? a : hi[s];
      }
      max_mn = -lo[s] > max_mn ? -lo[s] : max_mn;
    }
    const uint16_t dmin_bits = F16AtLeast(max_mn, 63.0f);
    const float dmin = F16ToF32(dmin_bits);
    unsigned m[kSubs], sc[kSubs];
    float t[kSubs], max_t = 0.0f;
    for (size_t s = 0; s < kSubs; ++s) {
      m[s] = SmallestMultipleAtLeast(dmin, -lo[s], 63);
      t[s] = hi[s] + dmin * static_cast<float>(m[s]);
      max_t = t[s] > max_t ? t[s] : max_t;
    }
    const uint16_t d_bits = F16AtLeast(max_t, 945.0f);
    const float d = F16ToF32(d_bits);
    for (size_t s = 0; s < kSubs; ++s) sc[s] = SmallestMultipleAtLeast(15.0f * d, t[s], 63);
    dst[kQ4_KDAt] = static_cast<uint8_t>(d_bits);
    dst[kQ4_KDAt + 1] = static_cast<uint8_t>(d_bits >> 8);
    dst[kQ4_KDminAt] = static_cast<uint8_t>(dmin_bits);
    dst[kQ4_KDminAt + 1] = static_cast<uint8_t>(dmin_bits >> 8);
    uint8_t* q = dst + kQ4_KScalesAt;  // Q4_KScaleMin's packing, inverted
    for (size_t s = 0; s < 4; ++s) {
      q[s] = static_cast<uint8_t>(sc[s] | (sc[s + 4] >> 4) << 6);
      q[s + 4] = static_cast<uint8_t>(m[s] | (m[s + 4] >> 4) << 6);
      q[s + 8] = static_cast<uint8_t>((sc[s + 4] & 15u) | (m[s + 4] & 15u) << 4);
    }
    uint8_t nibbles[kQ4_KBlock];
    for (size_t s = 0; s < kSubs; ++s) {
      float step, offset;
      Q4_KStepOffset(dst, s, &step, &offset);  // what readers will use
      const float inv = step > 0.0f ? 1.0f / step : 0.0f;
      for (size_t i = 0; i < kQ4_KSub; ++i) {
        float r = (v[s * kQ4_KSub + i] + offset) * inv;
        // NaN (a scale past f16's range, which the caller refuses) becomes 0, not UB below.
        r = r >= 0.0f ? (r > 15.0f ? 15.0f : r) : 0.0f;
        nibbles[s * kQ4_KSub + i] = static_cast<uint8_t>(r + 0.5f);
      }
    }
    for (size_t j = 0; j < kQ4_KBlock / 2; ++j) {
      const size_t first = j / 32 * 64 + j % 32;  // low nibble: value first, high: first + 32
      dst[kQ4_KNibblesAt + j] = static_cast<uint8_t>(nibbles[first] | nibbles[first + 32] << 4);
    }
  }
}

}  // namespace attnrt
