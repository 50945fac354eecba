// q4_0 weights for the hwy Linear kernel (weight_types.inc; GGUF's layout, weight_q4_0.h):
// the codec of linear_weights-inl.h's interface, for the exact path (f32 activations,
// LinearActivations::kF32; `auto` runs q4_0 on the integer kernel, linear_int8.cc). A q4_0
// block is one 32-value chunk, so it is a format of the chunked codec the k-quants use
// (codec_superblock-inl.h): each block of a row is unpacked to 32 floats on the stack (its
// scale widened once) and summed against x with f32 FMAs, row by row (x is L1-resident).

#if defined(ATTNRT_KERNELS_HWY_CODEC_Q4_0_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_CODEC_Q4_0_INL_H_
#undef ATTNRT_KERNELS_HWY_CODEC_Q4_0_INL_H_
#else
#define ATTNRT_KERNELS_HWY_CODEC_Q4_0_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/weight_q4_0.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/codec_superblock-inl.h"

ATTNRT_HWY_BEGIN

static_assert(kQ4_0Block == kSuperChunk, "a q4_0 block is one chunk of the chunked codec");

struct Q4_0Format {
  static constexpr WeightType kType = WeightType::kQ4_0;

  // The block's 32 values (c is always 0); the scale is widened once per block (a software
  // conversion on SCALAR).
  static HWY_INLINE void Unpack32(const uint8_t* block, size_t, float* HWY_RESTRICT dst) {
    const float d = F16ToF32(Q4_0ScaleBits(block));
    for (size_t j = 0; j < kQ4_0Block; ++j) {
      dst[j] = static_cast<float>(static_cast<int>(Q4_0Nibble(block, j)) - 8) * d;
    }
  }
};

struct Q4_0Codec : SuperBlockCodec<Q4_0Format> {};

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_CODEC_Q4_0_INL_H_
