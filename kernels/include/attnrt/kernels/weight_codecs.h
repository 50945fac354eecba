// Scalar codecs of the weight types (weight_types.inc): how one stored value reads as
// f32. One struct per type, <Name>Scalar, with
//   static float Value(const WeightMatrixRef& m, size_t row, size_t k);
// and the functions generated from the list that pick one by type. For the scalar
// oracle (nn_reference.cc) and embedding lookups (one row per token), where a scalar
// loop is plenty; the SIMD kernels have their own codecs (kernels/hwy/codec_*-inl.h).
// The encoders (what the converter writes) are float16.h's rounding and the quantizers of
// weight_q8.h, weight_q4_0.h, weight_q4_K.h and weight_q6_K.h.
//
// Header-only and allocation-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/weight_q4_0.h"
#include "attnrt/kernels/weight_q4_K.h"
#include "attnrt/kernels/weight_q6_K.h"
#include "attnrt/kernels/weight_q8.h"
#include "attnrt/kernels/weight_type.h"

namespace attnrt {

// A stored rows x cols matrix: `values` as laid out by its type, and `scales` the f16
// scale plane of a kF16Plane type (unused otherwise).
struct WeightMatrixRef {
  const void* values;
  const void* scales;
  size_t cols;
};

struct F32Scalar {
  static float Value(const WeightMatrixRef& m, size_t row, size_t k) {
    return static_cast<const float*>(m.values)[row * m.cols + k];
  }
};

struct F16Scalar {
  static float Value(const WeightMatrixRef& m, size_t row, size_t k) {
    return F16ToF32(static_cast<const uint16_t*>(m.values)[row * m.cols + k]);
  }
};

struct BF16Scalar {
  static float Value(const WeightMatrixRef& m, size_t row, size_t k) {
    return BF16ToF32(static_cast<const uint16_t*>(m.values)[row * m.cols + k]);
  }
};

// Exact: an 8-bit integer times an 11-bit f16 mantissa fits f32's 24 bits.
struct Q8Scalar {
  static float Value(const WeightMatrixRef& m, size_t row, size_t k) {
    const uint16_t* scales = static_cast<const uint16_t*>(m.scales) + row * Q8BlocksPerRow(m.cols);
    return F16ToF32(scales[k / kQ8Block]) *
           static_cast<float>(static_cast<const int8_t*>(m.values)[row * m.cols + k]);
  }
};

// Value k of a row of a type stored in self-contained blocks (scales inside): its block,
// then the type's own decode of value k % block (Q4_0Value: a 4-bit integer times an f16
// scale, exact as Q8Scalar; Q4_KValue / Q6_KValue: one f32 rounding of exact products,
// weight_q4_K.h, weight_q6_K.h).
template <WeightType kType, float (*kValue)(const uint8_t*, size_t)>
struct BlockScalar {
  static float Value(const WeightMatrixRef& m, size_t row, size_t k) {
    constexpr const WeightTypeInfo& kInfo = *FindWeightType(kType);
    const uint8_t* block = static_cast<const uint8_t*>(m.values) +
                           (row * WeightBlocksPerRow(kInfo, m.cols) + k / kInfo.block) *
                               kInfo.bytes;
    return kValue(block, k % kInfo.block);
  }
};
using Q4_0Scalar = BlockScalar<WeightType::kQ4_0, Q4_0Value>;
using Q4_KScalar = BlockScalar<WeightType::kQ4_K, Q4_KValue>;
using Q6_KScalar = BlockScalar<WeightType::kQ6_K, Q6_KValue>;

// The f16 fields of a kSuperBlock type's block that scale its values (the reader and the
// GGUF import check them finite): their names and byte offsets in the block. 0 fields for
// another type.
struct BlockF16Field {
  const char* name;
  size_t at;
};
inline size_t SuperBlockF16Fields(WeightType t, const BlockF16Field** fields) {
  static constexpr BlockF16Field kQ4_K[] = {{"d", kQ4_KDAt}, {"dmin", kQ4_KDminAt}};
  static constexpr BlockF16Field kQ6_K[] = {{"d", kQ6_KDAt}};
  switch (t) {
    case WeightType::kQ4_K: *fields = kQ4_K; return 2;
    case WeightType::kQ6_K: *fields = kQ6_K; return 1;
    default: *fields = nullptr; return 0;
  }
}

// Value [row, k] of a matrix of type t; 0 for a type outside the list.
inline float WeightValue(WeightType t, const WeightMatrixRef& m, size_t row, size_t k) {
  switch (t) {
#define ATTNRT_WEIGHT_TYPE(Name, code, name, bits, block, scales, bytes) \
  case WeightType::k##Name:                                       \
    return Name##Scalar::Value(m, row, k);
#include "attnrt/kernels/weight_types.inc"
#undef ATTNRT_WEIGHT_TYPE
  }
  return 0.0f;
}

// Widens row `row` of a stored matrix into out[m.cols].
template <class Codec>
inline void WidenRowWith(const WeightMatrixRef& m, size_t row, float* out) {
  for (size_t k = 0; k < m.cols; ++k) out[k] = Codec::Value(m, row, k);
}
template <>
inline void WidenRowWith<F32Scalar>(const WeightMatrixRef& m, size_t row, float* out) {
  std::memcpy(out, static_cast<const float*>(m.values) + row * m.cols, m.cols * sizeof(float));
}

// `scales`: the scale plane of a kF16Plane type (unused otherwise).
inline void WidenMatrixRow(WeightType t, const void* values, const void* scales, size_t cols,
                           size_t row, float* out) {
  const WeightMatrixRef m{values, scales, cols};
  switch (t) {
#define ATTNRT_WEIGHT_TYPE(Name, code, name, bits, block, scales, bytes) \
  case WeightType::k##Name:                                       \
    return WidenRowWith<Name##Scalar>(m, row, out);
#include "attnrt/kernels/weight_types.inc"
#undef ATTNRT_WEIGHT_TYPE
  }
}

}  // namespace attnrt
