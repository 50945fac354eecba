// f32 weights for the hwy Linear kernel (weight_types.inc; codec interface in
// linear_weights-inl.h): plain loads.

#if defined(ATTNRT_KERNELS_HWY_CODEC_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_CODEC_F32_INL_H_
#undef ATTNRT_KERNELS_HWY_CODEC_F32_INL_H_
#else
#define ATTNRT_KERNELS_HWY_CODEC_F32_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/linear_weights-inl.h"

ATTNRT_HWY_BEGIN

struct F32Codec : ElementwiseCodec<F32Codec, float> {
  using T = float;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const float* HWY_RESTRICT p) {
    return hn::LoadU(d, p);
  }
  static HWY_INLINE float Widen(float v) { return v; }
};

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_CODEC_F32_INL_H_
