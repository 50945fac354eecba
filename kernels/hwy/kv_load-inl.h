// Reading a typed KV cache (f32, f16, q8; layouts in sdpa_params.h) in the Highway
// per-target code: elements are widened to f32 lanes as they are loaded, so the
// decode kernel streams only the stored bytes; WidenRows turns a tile of typed rows
// into the f32 rows the flash tiles read (once per 64-key tile, shared by up to 64
// queries, so its cost is about 1/64 of the tile's FMAs).

#if defined(ATTNRT_KERNELS_HWY_KV_LOAD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_KV_LOAD_INL_H_
#undef ATTNRT_KERNELS_HWY_KV_LOAD_INL_H_
#else
#define ATTNRT_KERNELS_HWY_KV_LOAD_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/float16.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

// N consecutive elements as stored: float (f32), uint16_t (f16 bits) or int8_t
// (q8, without its row scale), as f32 lanes; any alignment.
template <class D>
HWY_INLINE hn::Vec<D> LoadWide(D d, const float* HWY_RESTRICT x) {
  return hn::LoadU(d, x);
}
template <class D>
HWY_INLINE hn::Vec<D> LoadWide(D d, const uint16_t* HWY_RESTRICT x) {
  const hn::Rebind<hwy::float16_t, D> dh;
  return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(x)));
}
template <class D>
HWY_INLINE hn::Vec<D> LoadWide(D d, const int8_t* HWY_RESTRICT x) {
  const hn::Rebind<int32_t, D> di;
  const hn::Rebind<int8_t, D> d8;
  return hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(d8, x)));
}

// One element, for the tails.
HWY_INLINE float Wide(float x) { return x; }
HWY_INLINE float Wide(uint16_t x) { return F16ToF32(x); }
HWY_INLINE float Wide(int8_t x) { return static_cast<float>(x); }

// dst[r * ld + c] = scale_r * x_r[c] for c < dim and zero for dim <= c < ld, r <
// rows, with x_r the typed row at src + r * row_stride elements and scale_r =
// scales[r * scale_stride] (1 when scales is nullptr).
template <typename T>
HWY_INLINE void WidenRowsTyped(const T* HWY_RESTRICT src, size_t row_stride,
                               const float* HWY_RESTRICT scales, size_t scale_stride,
                               size_t rows, size_t dim, size_t ld, float* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  for (size_t r = 0; r < rows; ++r) {
    const T* HWY_RESTRICT x = src + r * row_stride;
    float* HWY_RESTRICT y = dst + r * ld;
    const float scale = scales == nullptr ? 1.0f : scales[r * scale_stride];
    const auto vs = hn::Set(d, scale);
    size_t c = 0;
    for (; c + N <= dim; c += N) hn::StoreU(hn::Mul(LoadWide(d, x + c), vs), d, y + c);
    for (; c < dim; ++c) y[c] = Wide(x[c]) * scale;
    for (; c < ld; ++c) y[c] = 0.0f;
  }
}

// WidenRowsTyped for a KV type chosen at run time (SdpaTileOps::widen_rows).
HWY_INLINE void WidenRows(KvType type, const void* src, size_t row_stride,
                          const float* scales, size_t scale_stride, size_t rows, size_t dim,
                          size_t ld, float* dst) {
  switch (type) {
    case KvType::kF16:
      WidenRowsTyped(static_cast<const uint16_t*>(src), row_stride, nullptr, 0, rows, dim, ld, dst);
      break;
    case KvType::kQ8:
      WidenRowsTyped(static_cast<const int8_t*>(src), row_stride, scales, scale_stride, rows, dim,
                     ld, dst);
      break;
    default:
      WidenRowsTyped(static_cast<const float*>(src), row_stride, nullptr, 0, rows, dim, ld, dst);
      break;
  }
}

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_KV_LOAD_INL_H_
