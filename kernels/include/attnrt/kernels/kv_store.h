// Writing keys and values into a typed KV cache, and reading one element back.
//
// A decoder keeps K and V of every past token in the arena; storing them as f16 or
// q8 halves or quarters the bytes a decode step streams (the decode kernel is bound
// by that read). The layouts are SdpaParams' (sdpa_params.h):
//   f32  float per element;
//   f16  IEEE binary16 bits (uint16_t) per element, rounded to nearest even;
//   q8   int8_t per element plus ONE f32 scale per row (one token of one kv head):
//        scale = max|x| / 127 (0 for an all-zero row), q = round-to-nearest-even of
//        x / scale, clamped to [-127, 127]; value = scale * q. A row holding a
//        non-finite value gets a NaN scale (it then reads back as NaN rather than
//        silently as something finite).
// No allocation, no exceptions, no printing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/kv_type.h"

namespace attnrt {

// f16's largest finite value. A finite key or value beyond it is stored as +-65504,
// not as infinity (issue 34, item 8: one huge activation made inf - inf = NaN scores
// and NaN logits with exit 0); infinities and NaN that were already there stay.
constexpr float kKvF16Largest = 65504.0f;

// One f16 KV element: x saturated to +-kKvF16Largest when finite and beyond it,
// then rounded to nearest even (F32ToF16). Every StoreKvRows entry stores this.
inline uint16_t F32ToKvF16(float x) {
  const float a = x < 0 ? -x : x;
  const bool beyond = a > kKvF16Largest && a <= 3.4028235e38f;  // finite: NaN and inf fail it
  return F32ToF16(beyond ? (x < 0 ? -kKvF16Largest : kKvF16Largest) : x);
}

// True for the storage types a KV cache may use: kF32, kF16, kQ8 (a KvType may hold
// any code: the C API and tests cast numbers to it).
inline bool IsKvType(KvType t) {
  return t == KvType::kF32 || t == KvType::kF16 || t == KvType::kQ8;
}

// "f32", "f16", "q8" (the CLI's --kv-dtype names); nullptr for any other code.
inline const char* KvTypeName(KvType t) {
  switch (t) {
    case KvType::kF32: return "f32";
    case KvType::kF16: return "f16";
    case KvType::kQ8: return "q8";
  }
  return nullptr;
}

// Bytes of one stored element of a KV type (q8: the int8 value, scales apart).
inline size_t KvElementBytes(KvType t) {
  return t == KvType::kF32 ? 4 : (t == KvType::kF16 ? 2 : 1);
}

// Stores `rows` rows of `cols` floats (row r at src + r * src_row_stride) into a
// typed cache: row r at dst + r * dst_row_stride elements of `type`, and for q8 its
// scale at scales[r * scale_stride] (scales is unused otherwise). Returns false,
// writing nothing, when `type` is not a KV type.
bool StoreKvRows(KvType type, const float* src, size_t src_row_stride, size_t rows,
                 size_t cols, void* dst, size_t dst_row_stride, float* scales,
                 size_t scale_stride);

// Instruction set StoreKvRows uses on this machine.
const char* StoreKvRowsIsa();

// Element `index` of a typed K or V tensor, widened exactly; for q8 the int8 value
// without its row scale. Scalar: for the reference kernel and for tests.
inline float WidenKvElement(KvType type, const void* data, size_t index) {
  switch (type) {
    case KvType::kF16: return F16ToF32(static_cast<const uint16_t*>(data)[index]);
    case KvType::kQ8: return static_cast<float>(static_cast<const int8_t*>(data)[index]);
    default: return static_cast<const float*>(data)[index];
  }
}

}  // namespace attnrt
