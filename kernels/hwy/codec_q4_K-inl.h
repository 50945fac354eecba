// q4_K weights for the hwy Linear kernel (weight_types.inc; GGUF's block_q4_K, weight_q4_K.h):
// codec_superblock-inl.h's codec over a vector unpack of 32 nibbles: u8 -> i32 -> f32 and
// step * q - offset (one FMA; step * q is exact, so fused or not it rounds as Q4_KValue).

#if defined(ATTNRT_KERNELS_HWY_CODEC_Q4_K_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_CODEC_Q4_K_INL_H_
#undef ATTNRT_KERNELS_HWY_CODEC_Q4_K_INL_H_
#else
#define ATTNRT_KERNELS_HWY_CODEC_Q4_K_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/weight_q4_K.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/codec_superblock-inl.h"

ATTNRT_HWY_BEGIN

struct Q4_KFormat {
  static HWY_INLINE const WeightTypeInfo& Info() { return kQ4_KInfo; }

  // Chunk c is sub-block c: the low (c even) or high nibbles of 32 bytes.
  static HWY_INLINE void Unpack32(const uint8_t* block, size_t c, float* HWY_RESTRICT dst) {
    const DWiden d;
    const hn::RebindToSigned<DWiden> di;
    const hn::Rebind<uint8_t, DWiden> du8;
    const size_t N = hn::Lanes(d);
    float step, offset;
    Q4_KStepOffset(block, c, &step, &offset);
    const auto vstep = hn::Set(d, step), voffset = hn::Set(d, offset);
    const uint8_t* q = block + kQ4_KNibblesAt + c / 2 * 32;
    for (size_t j = 0; j < kSuperChunk; j += N) {
      auto v = hn::PromoteTo(di, hn::LoadU(du8, q + j));
      if (c % 2 == 0) {
        v = hn::And(v, hn::Set(di, 15));
      } else {
        v = hn::ShiftRight<4>(v);
      }
      hn::StoreU(hn::MulSub(vstep, hn::ConvertTo(d, v), voffset), d, dst + j);
    }
  }
};

struct Q4_KCodec : SuperBlockCodec<Q4_KFormat> {};

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_CODEC_Q4_K_INL_H_
