// Scalar f16 and bf16 conversions (round to nearest, ties to even; NaN stays NaN):
// the one definition of each rounding rule, for weights (weight_codecs.h), the KV
// cache (kv_store.h), the converter and the tests.
//
// Header-only and allocation-free.
#pragma once

#include <cstdint>
#include <cstring>

namespace attnrt {

inline uint32_t F32Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float F32FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float F16ToF32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t man = h & 0x3FFu;
  if (exp == 0x1F) return F32FromBits(sign | 0x7F800000u | (man << 13));  // inf / NaN
  if (exp != 0) return F32FromBits(sign | ((exp + 112) << 23) | (man << 13));
  // Subnormal (or zero): man * 2^-24, exact in f32.
  const float magnitude = static_cast<float>(man) * (1.0f / 16777216.0f);
  return F32FromBits(sign | F32Bits(magnitude));
}

inline uint16_t F32ToF16(float f) {
  const uint32_t u = F32Bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x3FFu));
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds past 65504
  if (abs < 0x38800000u) {
    // Result is subnormal in f16 (or zero): round abs / 2^-24 to an integer, ties to even.
    const float scaled = F32FromBits(abs) * 16777216.0f;  // exact: a power-of-two scale
    const uint32_t whole = static_cast<uint32_t>(scaled);
    const float frac = scaled - static_cast<float>(whole);
    uint32_t r = whole;
    if (frac > 0.5f || (frac == 0.5f && (whole & 1u) != 0)) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  // Normal: rebias the exponent and round the 13 dropped mantissa bits.
  const uint32_t rebased = abs - (112u << 23);
  const uint32_t lsb = (rebased >> 13) & 1u;
  return static_cast<uint16_t>(sign | ((rebased + 0xFFFu + lsb) >> 13));
}

inline float BF16ToF32(uint16_t b) { return F32FromBits(uint32_t(b) << 16); }

inline uint16_t F32ToBF16(float f) {
  const uint32_t u = F32Bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  const uint32_t lsb = (u >> 16) & 1u;
  return static_cast<uint16_t>((u + 0x7FFFu + lsb) >> 16);
}

}  // namespace attnrt
