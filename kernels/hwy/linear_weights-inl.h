// Typed weight reads for the hwy Linear kernel (per-target code): f32, f16, bf16
// and q8 weights widened to f32 in registers, never through a dequantized copy.
//
// Elementwise types (f32, f16, bf16) are policies with a vector Load and a scalar
// Widen, so one dot-product template serves all three; q8 adds its per-block scale
// (weight_q8.h) and has its own block-structured loops (linear_dot-inl.h).
// Bytes per weight: 4, 2, 2 and 1 + 2/32; for the memory-bound decode GEMV that
// ratio is the speed-up to expect.
//
// WidenRow feeds the packed (prefill) path: it widens a row segment into scratch
// that the f32 packing then transposes, so the register tiles never see the type.

#if defined(ATTNRT_KERNELS_HWY_LINEAR_WEIGHTS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_LINEAR_WEIGHTS_INL_H_
#undef ATTNRT_KERNELS_HWY_LINEAR_WEIGHTS_INL_H_
#else
#define ATTNRT_KERNELS_HWY_LINEAR_WEIGHTS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/weight_q8.h"
#include "attnrt/kernels/linear.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace attnrt {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

struct F32Weights {
  using T = float;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const float* HWY_RESTRICT p) {
    return hn::LoadU(d, p);
  }
  static HWY_INLINE float Widen(float v) { return v; }
};

// F16C's vcvtph2ps on AVX2/AVX3, fcvtl on NEON/SVE; integer bit moves on SSE4/SCALAR.
struct F16Weights {
  using T = uint16_t;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const uint16_t* HWY_RESTRICT p) {
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
  }
  static HWY_INLINE float Widen(uint16_t v) { return F16ToF32(v); }
};

// bf16 is the upper half of an f32: zero-extend to 32 bits and shift, which every
// target has (Highway 1.0.3 lacks a bf16 PromoteTo on some of them).
struct BF16Weights {
  using T = uint16_t;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const uint16_t* HWY_RESTRICT p) {
    const hn::Rebind<uint16_t, D> d16;
    const hn::RebindToUnsigned<D> d32;
    return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(d32, hn::LoadU(d16, p))));
  }
  static HWY_INLINE float Widen(uint16_t v) { return BF16ToF32(v); }
};

// q8 vectors never span two blocks: at most one block of lanes (SVE may be wider
// than 32 floats; Highway's lane counts are powers of two, so they divide 32).
using DQ8 = hn::CappedTag<float, kQ8Block>;

// int8 -> int32 -> f32 (exact: |q| <= 127).
template <class D>
HWY_INLINE hn::Vec<D> LoadQ8(D d, const int8_t* HWY_RESTRICT p) {
  const hn::Rebind<int8_t, D> d8;
  const hn::RebindToSigned<D> d32;
  return hn::ConvertTo(d, hn::PromoteTo(d32, hn::LoadU(d8, p)));
}

// The planes of a q8 N x K matrix (layout in weight_q8.h).
struct Q8Matrix {
  const int8_t* values;    // row n at values + n * K
  const uint16_t* scales;  // f16 bits; row n at scales + n * blocks
  size_t blocks;           // Q8BlocksPerRow(K)
};

HWY_INLINE Q8Matrix Q8Planes(const LinearParams& p) {
  const auto* bytes = static_cast<const uint8_t*>(p.w);
  return {reinterpret_cast<const int8_t*>(bytes),
          LinearScalePlane(p),
          Q8BlocksPerRow(p.in)};
}

template <class W>
HWY_INLINE void WidenElements(const typename W::T* HWY_RESTRICT w, size_t n,
                              float* HWY_RESTRICT dst) {
  const DQ8 d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(W::Load(d, w + i), d, dst + i);
  for (; i < n; ++i) dst[i] = W::Widen(w[i]);
}

// dst[i] = q[k0 + i] * scale of its block, i < depth: the exact dequantized value
// (8-bit integer times an 11-bit f16 mantissa fits f32's 24 bits).
HWY_INLINE void WidenQ8(const int8_t* HWY_RESTRICT q, const uint16_t* HWY_RESTRICT scales,
                        size_t k0, size_t depth, float* HWY_RESTRICT dst) {
  const DQ8 d;
  const size_t N = hn::Lanes(d);
  size_t k = k0;
  const size_t end = k0 + depth;
  while (k < end) {
    const size_t block_end = HWY_MIN(end, (k / kQ8Block + 1) * kQ8Block);
    const float s = F16ToF32(scales[k / kQ8Block]);
    const auto sv = hn::Set(d, s);
    for (; k + N <= block_end; k += N) hn::StoreU(hn::Mul(LoadQ8(d, q + k), sv), d, dst + k - k0);
    for (; k < block_end; ++k) dst[k - k0] = static_cast<float>(q[k]) * s;
  }
}

// dst[i] = W[n, k0 + i] as f32 for i < depth, any stored type.
HWY_INLINE void WidenRow(const LinearParams& p, size_t n, size_t k0, size_t depth,
                         float* HWY_RESTRICT dst) {
  const size_t at = n * p.in + k0;
  switch (p.w_type) {
    case WeightType::kF32:
      WidenElements<F32Weights>(static_cast<const float*>(p.w) + at, depth, dst);
      return;
    case WeightType::kF16:
      WidenElements<F16Weights>(static_cast<const uint16_t*>(p.w) + at, depth, dst);
      return;
    case WeightType::kBF16:
      WidenElements<BF16Weights>(static_cast<const uint16_t*>(p.w) + at, depth, dst);
      return;
    case WeightType::kQ8: {
      const Q8Matrix m = Q8Planes(p);
      WidenQ8(m.values + n * p.in, m.scales + n * m.blocks, k0, depth, dst);
      return;
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace attnrt
HWY_AFTER_NAMESPACE();

#endif  // ATTNRT_KERNELS_HWY_LINEAR_WEIGHTS_INL_H_
