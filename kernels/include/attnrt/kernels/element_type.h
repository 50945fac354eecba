// Storage types of weights and of the KV cache, and their byte layouts.
//
// Activations, accumulation and softmax are always f32; a kernel reads a stored
// type and widens it in registers. The codes are the weight file's dtype codes
// (runtime/FORMAT.md), so a tensor's type goes from the file to the kernel as is.
//
// q8 (block-quantized int8, our own layout of the idea ggml calls q8_0): each row
// of `cols` values is cut into blocks of kQ8Block consecutive values (the last
// block may be shorter); block b of row r holds int8 q with value = scale[r][b] * q
// and scale[r][b] = max|x| / 127 over the block, stored as f16. A rows x cols q8
// matrix is two planes in one buffer:
//   bytes [0, rows*cols)                            int8 values, row-major;
//   bytes [Q8ScalesOffset, Q8ScalesOffset + 2*rows*Q8BlocksPerRow(cols))
//                                                  f16 scales, row-major,
// with Q8ScalesOffset = rows*cols rounded up to 64 bytes, so SIMD loads of either
// plane need no shuffling and every scale row starts 2-byte aligned.
//
// Header-only and allocation-free: used by kernels, the runtime's file checks and
// the converter alike (one definition of each rounding rule).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "attnrt/kernels/element_type_code.h"

namespace attnrt {


constexpr size_t kQ8Block = 32;

// "f32", "f16", "bf16", "q8"; nullptr for a code that is none of them.
inline const char* ElementTypeName(ElementType t) {
  switch (t) {
    case ElementType::kF32: return "f32";
    case ElementType::kF16: return "f16";
    case ElementType::kBF16: return "bf16";
    case ElementType::kQ8: return "q8";
  }
  return nullptr;
}

inline bool IsKnownElementType(uint8_t code) { return code >= 1 && code <= 4; }

constexpr size_t Q8BlocksPerRow(size_t cols) { return (cols + kQ8Block - 1) / kQ8Block; }

// Bytes from the start of a q8 matrix to its scale plane. The caller has checked
// that rows * cols does not overflow (the file reader and the planner do).
constexpr size_t Q8ScalesOffset(size_t rows, size_t cols) {
  return (rows * cols + 63) / 64 * 64;
}

// Bytes of a rows x cols matrix of type t; false when a product overflows `Size` (size_t
// for buffers; the file reader uses uint64_t, the width of the file's fields).
template <typename Size>
inline bool MatrixBytes(ElementType t, Size rows, Size cols, Size* bytes) {
  const Size max = static_cast<Size>(~Size{0});
  if (cols != 0 && rows > max / cols) return false;
  const Size n = rows * cols;
  switch (t) {
    case ElementType::kF32:
      if (n > max / 4) return false;
      *bytes = n * 4;
      return true;
    case ElementType::kF16:
    case ElementType::kBF16:
      if (n > max / 2) return false;
      *bytes = n * 2;
      return true;
    case ElementType::kQ8: {
      if (n > max - 63) return false;
      const Size blocks = (cols + (kQ8Block - 1)) / kQ8Block;
      if (blocks != 0 && rows > max / 2 / blocks) return false;
      const Size scale_bytes = 2 * rows * blocks;
      const Size offset = (n + 63) / 64 * 64;  // Q8ScalesOffset
      if (offset > max - scale_bytes) return false;
      *bytes = offset + scale_bytes;
      return true;
    }
  }
  return false;
}

// Bytes of one element in a plain (non-block) type; q8 counts its int8 values only.
constexpr size_t ElementValueBytes(ElementType t) {
  return t == ElementType::kF32 ? 4 : (t == ElementType::kQ8 ? 1 : 2);
}

// --- Scalar conversions (round to nearest, ties to even; NaN stays NaN). ---

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

// Quantizes one row of `cols` finite floats into q8: values[cols] and
// scales[Q8BlocksPerRow(cols)] (f16 bits). The scale is stored first and the
// values are rounded against the stored (f16) scale, so dequantizing with it is
// the closest the format allows. An all-zero block gets scale 0.
inline void QuantizeQ8Row(const float* x, size_t cols, int8_t* values, uint16_t* scales) {
  for (size_t b0 = 0, blk = 0; b0 < cols; b0 += kQ8Block, ++blk) {
    const size_t n = cols - b0 < kQ8Block ? cols - b0 : kQ8Block;
    float amax = 0.0f;
    for (size_t i = 0; i < n; ++i) {
      const float a = x[b0 + i] < 0 ? -x[b0 + i] : x[b0 + i];
      if (a > amax) amax = a;
    }
    const uint16_t scale_bits = F32ToF16(amax / 127.0f);
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

// Widens row `row` of a stored matrix with `cols` columns into out[cols]. `q8_scales` is
// the f16 scale plane (q8 only). For embedding lookups (one row per token), where a
// scalar loop is plenty.
inline void WidenMatrixRow(ElementType t, const void* data, const void* q8_scales, size_t cols,
                           size_t row, float* out) {
  const size_t first = row * cols;
  switch (t) {
    case ElementType::kF32:
      std::memcpy(out, static_cast<const float*>(data) + first, cols * sizeof(float));
      return;
    case ElementType::kF16:
    case ElementType::kBF16: {
      const uint16_t* in = static_cast<const uint16_t*>(data) + first;
      for (size_t i = 0; i < cols; ++i) out[i] = t == ElementType::kF16 ? F16ToF32(in[i]) : BF16ToF32(in[i]);
      return;
    }
    case ElementType::kQ8: {
      const int8_t* in = static_cast<const int8_t*>(data) + first;
      const uint16_t* scales = static_cast<const uint16_t*>(q8_scales) + row * Q8BlocksPerRow(cols);
      for (size_t i = 0; i < cols; ++i) out[i] = F16ToF32(scales[i / kQ8Block]) * float(in[i]);
      return;
    }
  }
}

}  // namespace attnrt
