// f16 weights for the hwy Linear kernel (weight_types.inc; codec interface in
// linear_weights-inl.h): F16C's vcvtph2ps on AVX2/AVX3, fcvtl on NEON/SVE, integer
// bit moves on SSE4/SCALAR.

#if defined(ATTNRT_KERNELS_HWY_CODEC_F16_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_CODEC_F16_INL_H_
#undef ATTNRT_KERNELS_HWY_CODEC_F16_INL_H_
#else
#define ATTNRT_KERNELS_HWY_CODEC_F16_INL_H_
#endif

#include <cstdint>

#include "attnrt/kernels/float16.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/linear_weights-inl.h"

ATTNRT_HWY_BEGIN

struct F16Codec : ElementwiseCodec<F16Codec, uint16_t> {
  using T = uint16_t;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const uint16_t* HWY_RESTRICT p) {
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
  }
  static HWY_INLINE float Widen(uint16_t v) { return F16ToF32(v); }
};

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_CODEC_F16_INL_H_
