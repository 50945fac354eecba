// bf16 weights for the hwy Linear kernel (weight_types.inc; codec interface in
// linear_weights-inl.h). bf16 is the upper half of an f32: zero-extend to 32 bits and
// shift, which every target has (Highway 1.0.3 lacks a bf16 PromoteTo on some of them).

#if defined(ATTNRT_KERNELS_HWY_CODEC_BF16_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_CODEC_BF16_INL_H_
#undef ATTNRT_KERNELS_HWY_CODEC_BF16_INL_H_
#else
#define ATTNRT_KERNELS_HWY_CODEC_BF16_INL_H_
#endif

#include <cstdint>

#include "attnrt/kernels/float16.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/linear_weights-inl.h"

ATTNRT_HWY_BEGIN

struct BF16Codec : ElementwiseCodec<BF16Codec, uint16_t> {
  using T = uint16_t;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const uint16_t* HWY_RESTRICT p) {
    const hn::Rebind<uint16_t, D> d16;
    const hn::RebindToUnsigned<D> d32;
    return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(d32, hn::LoadU(d16, p))));
  }
  static HWY_INLINE float Widen(uint16_t v) { return BF16ToF32(v); }
};

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_CODEC_BF16_INL_H_
