// GGUF's k-quants for the hwy Linear kernel (weight_types.inc): codec_superblock-inl.h's codec
// over a vector unpack of 32 values of a block, one Format per type.
//   q4_K (block_q4_K, weight_q4_K.h): 32 nibbles u8 -> i32 -> f32, then step * q - offset (one
//        FMA; step * q is exact, so fused or not it rounds as Q4_KValue).
//   q6_K (block_q6_K, weight_q6_K.h): the ql nibble and the qh bit pair widened u8 -> i32,
//        joined, minus 32, to f32, times the sub-block's step (exact). Vectors of at most 16
//        lanes, so one never spans two sub-blocks (one scale each).

#if defined(ATTNRT_KERNELS_HWY_CODEC_KQUANT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_CODEC_KQUANT_INL_H_
#undef ATTNRT_KERNELS_HWY_CODEC_KQUANT_INL_H_
#else
#define ATTNRT_KERNELS_HWY_CODEC_KQUANT_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/weight_q4_K.h"
#include "attnrt/kernels/weight_q6_K.h"
#include "hwy/highway.h"
#include "kernels/hwy/codec_superblock-inl.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

struct Q4_KFormat {
  static constexpr WeightType kType = WeightType::kQ4_K;

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

struct Q6_KFormat {
  static constexpr WeightType kType = WeightType::kQ6_K;

  // Chunk c = 4 h + cc: ql bytes 64 h + 32 (cc % 2) .. (low nibbles for cc < 2, else high),
  // qh bytes 32 h .. (bits 2 cc, 2 cc + 1), sub-blocks 2 c and 2 c + 1.
  static HWY_INLINE void Unpack32(const uint8_t* block, size_t c, float* HWY_RESTRICT dst) {
    using D = hn::CappedTag<float, kQ6_KSub>;
    const D d;
    const hn::RebindToSigned<D> di;
    const hn::Rebind<uint8_t, D> du8;
    const size_t N = hn::Lanes(d);
    const size_t h = c / 4, cc = c % 4;
    const uint8_t* ql = block + kQ6_KQlAt + 64 * h + 32 * (cc % 2);
    const uint8_t* qh = block + kQ6_KQhAt + 32 * h;
    const int shift = static_cast<int>(2 * cc);
    const float steps[2] = {Q6_KStep(block, 2 * c), Q6_KStep(block, 2 * c + 1)};
    for (size_t j = 0; j < kSuperChunk; j += N) {
      auto low = hn::PromoteTo(di, hn::LoadU(du8, ql + j));
      if (cc < 2) {
        low = hn::And(low, hn::Set(di, 15));
      } else {
        low = hn::ShiftRight<4>(low);
      }
      const auto high =
          hn::And(hn::ShiftRightSame(hn::PromoteTo(di, hn::LoadU(du8, qh + j)), shift),
                  hn::Set(di, 3));
      const auto q = hn::Sub(hn::Or(low, hn::ShiftLeft<4>(high)), hn::Set(di, 32));
      hn::StoreU(hn::Mul(hn::Set(d, steps[j / kQ6_KSub]), hn::ConvertTo(d, q)), d, dst + j);
    }
  }
};

struct Q6_KCodec : SuperBlockCodec<Q6_KFormat> {};

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_CODEC_KQUANT_INL_H_
