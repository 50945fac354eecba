// q4_0 weights for the hwy Linear kernel (weight_types.inc; GGUF's layout, weight_q4_0.h):
// the codec of linear_weights-inl.h's interface, for the exact path (f32 activations,
// LinearActivations::kF32; `auto` runs q4_0 on the integer kernel, linear_int8.cc). A q4_0
// block is one 32-value chunk, so it is a format of the chunked codec the k-quants use
// (codec_superblock-inl.h): each block of a row is unpacked to 32 floats on the stack (its
// scale widened once, its nibbles in vectors) and summed against x with f32 FMAs, row by row
// (x is L1-resident).

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

  // The block's 32 values (c is always 0): each load of nibble bytes gives values j.. (low
  // nibbles) and 16 + j.. (high), widened in registers, (n - 8) * d as Q4_0Value computes
  // it (exact: a 4-bit integer times an f16 scale). The scale is widened once per block (a
  // software conversion on SCALAR). Vectors of up to 16 lanes: one load is half the block.
  static HWY_INLINE void Unpack32(const uint8_t* block, size_t, float* HWY_RESTRICT dst) {
    const hn::CappedTag<float, kQ4_0Block / 2> df;
    const hn::RebindToSigned<decltype(df)> di;
    const hn::Rebind<uint8_t, decltype(df)> du8;
    const auto d = hn::Set(df, F16ToF32(Q4_0ScaleBits(block)));
    const auto eight = hn::Set(di, 8);
    const uint8_t* nibbles = block + 2;
    for (size_t j = 0; j < kQ4_0Block / 2; j += hn::Lanes(df)) {
      const auto bytes = hn::PromoteTo(di, hn::LoadU(du8, nibbles + j));
      const auto low = hn::Sub(hn::And(bytes, hn::Set(di, 15)), eight);
      const auto high = hn::Sub(hn::ShiftRight<4>(bytes), eight);
      hn::StoreU(hn::Mul(hn::ConvertTo(df, low), d), df, dst + j);
      hn::StoreU(hn::Mul(hn::ConvertTo(df, high), d), df, dst + kQ4_0Block / 2 + j);
    }
  }
};

struct Q4_0Codec : SuperBlockCodec<Q4_0Format> {};

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_CODEC_Q4_0_INL_H_
