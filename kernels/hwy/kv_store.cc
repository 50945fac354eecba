// hwy StoreKvRows: narrows f32 key/value rows into an f16 or q8 KV cache
// (layouts in kv_store.h and sdpa_params.h).
//
// Runs once per token per layer (a few KiB), so it is never the bottleneck; what
// matters is that every target stores the same bits. f16 uses the hardware
// conversion (F16C) where Highway has it, which rounds to nearest even as the
// scalar F32ToF16 of float16.h does; Highway 1.0.3's emulated DemoteTo (SSE4,
// SCALAR, ...) truncates the mantissa, so those targets call F32ToF16 per element.
// Finite values beyond f16's range saturate to +-65504 on every target.
// q8: one pass for max|x| (vector max of Abs), then x / scale rounded to nearest
// even (NearestInt), clamped and narrowed; the tail does the same in scalar code
// (a correctly rounded division and nearbyint give the same integer).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/kv_store.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/kv_store.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

using DF = hn::ScalableTag<float>;

void StoreF16Row(const float* HWY_RESTRICT src, size_t cols, uint16_t* HWY_RESTRICT dst) {
  size_t c = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const DF d;
  const hn::Rebind<hwy::float16_t, DF> dh;
  const size_t N = hn::Lanes(d);
  const auto largest = hn::Set(d, kKvF16Largest);
  for (; c + N <= cols; c += N) {
    const auto x = hn::LoadU(d, src + c);
    const auto beyond = hn::And(hn::Gt(hn::Abs(x), largest), hn::IsFinite(x));
    const auto saturated = hn::IfThenElse(beyond, hn::CopySignToAbs(largest, x), x);
    hn::StoreU(hn::DemoteTo(dh, saturated), dh, reinterpret_cast<hwy::float16_t*>(dst + c));
  }
#endif
  for (; c < cols; ++c) dst[c] = F32ToKvF16(src[c]);
}

// Returns the row's scale.
float StoreQ8Row(const float* HWY_RESTRICT src, size_t cols, int8_t* HWY_RESTRICT dst) {
  const DF d;
  const hn::Rebind<int32_t, DF> di;
  const hn::Rebind<int8_t, DF> d8;
  const size_t N = hn::Lanes(d);
  size_t c = 0;
  auto vmax = hn::Zero(d);
  // A NaN anywhere must make the row's scale NaN; Max may drop a NaN, so it is
  // tracked separately (IsNaN: Highway's Ne is an ordered compare, NaN != NaN false).
  auto nan = hn::Zero(d);
  for (; c + N <= cols; c += N) {
    const auto x = hn::LoadU(d, src + c);
    vmax = hn::Max(vmax, hn::Abs(x));
    nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(x)));
  }
  float amax = hn::GetLane(hn::MaxOfLanes(d, vmax));
  bool has_nan = !hn::AllTrue(d, hn::Eq(nan, hn::Zero(d)));
  for (size_t t = c; t < cols; ++t) {
    const float a = std::fabs(src[t]);
    has_nan = has_nan || a != a;
    amax = a > amax ? a : amax;
  }
  if (has_nan || !std::isfinite(amax)) {
    for (size_t t = 0; t < cols; ++t) dst[t] = 0;
    return NAN;
  }
  const float scale = amax / 127.0f;
  if (scale == 0.0f) {  // all zeros (or so tiny that amax / 127 underflows)
    for (size_t t = 0; t < cols; ++t) dst[t] = 0;
    return 0.0f;
  }
  const auto vscale = hn::Set(d, scale);
  const auto lo = hn::Set(di, -127), hi = hn::Set(di, 127);
  for (c = 0; c + N <= cols; c += N) {
    const auto q = hn::NearestInt(hn::Div(hn::LoadU(d, src + c), vscale));
    hn::StoreU(hn::DemoteTo(d8, hn::Min(hn::Max(q, lo), hi)), d8, dst + c);
  }
  for (; c < cols; ++c) {
    float q = std::nearbyint(src[c] / scale);
    q = q < -127.0f ? -127.0f : (q > 127.0f ? 127.0f : q);
    dst[c] = static_cast<int8_t>(q);
  }
  return scale;
}

bool StoreRows(KvType type, const float* src, size_t src_row_stride, size_t rows,
               size_t cols, void* dst, size_t dst_row_stride, float* scales,
               size_t scale_stride) {
  for (size_t r = 0; r < rows; ++r) {
    const float* s = src + r * src_row_stride;
    switch (type) {
      case KvType::kF32: {
        float* out = static_cast<float*>(dst) + r * dst_row_stride;
        for (size_t c = 0; c < cols; ++c) out[c] = s[c];
        break;
      }
      case KvType::kF16:
        StoreF16Row(s, cols, static_cast<uint16_t*>(dst) + r * dst_row_stride);
        break;
      case KvType::kQ8:
        scales[r * scale_stride] = StoreQ8Row(s, cols, static_cast<int8_t*>(dst) + r * dst_row_stride);
        break;
      default:
        return false;
    }
  }
  return true;
}

ATTNRT_HWY_END

#if HWY_ONCE
#include "kernels/hwy/nn_hwy.h"

namespace attnrt {
HWY_EXPORT(StoreRows);

bool HwyStoreKvRows(KvType type, const float* src, size_t src_row_stride, size_t rows,
                    size_t cols, void* dst, size_t dst_row_stride, float* scales,
                    size_t scale_stride) {
  if (!IsKvType(type)) return false;
  return HWY_DYNAMIC_DISPATCH(StoreRows)(type, src, src_row_stride, rows, cols, dst,
                                         dst_row_stride, scales, scale_stride);
}
}  // namespace attnrt
#endif  // HWY_ONCE
