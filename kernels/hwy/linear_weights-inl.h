// The weight codec interface of the hwy Linear kernel (per-target code): what
// linear.cc's dot path (decode GEMV) and packed path (prefill) are templated on, so
// every weight type is read in place in its stored type and widened to f32 in
// registers, never through a dequantized copy. Each type of weight_types.inc has one
// codec, <Name>Codec in codec_<name>-inl.h, with
//   Matrix                                  the matrix's pointers, made once per call:
//   static Matrix Planes(const LinearParams& p);
//   // out[i] = W row min(n + i, n + count - 1) . x, i < 8 (linear_dot-inl.h's order);
//   // prefetch: also prefetch the 8 rows after them. The row pointers are set up
//   // once, before the branch to the two instantiations of the loop (as one lambda
//   // did before the codecs: the same code).
//   static void DotGroup(const Matrix& w, size_t K, const float* x, size_t n,
//                        size_t count, bool prefetch, float* out);
//   // dst[i] = W[n, k0 + i] as f32, i < depth: feeds the packed path, which
//   // transposes it as f32, so the register tiles never see the type.
//   static void WidenRow(const Matrix& w, size_t K, size_t n, size_t k0, size_t depth,
//                        float* dst);
// Elementwise types (one value per weight, no scales) derive from ElementwiseCodec
// below, which makes all three from a vector Load and a scalar Widen, so one dot
// template (linear_dot-inl.h) serves them all. Bytes per weight: 4 (f32), 2 (f16,
// bf16), 1 + 2/32 (q8); for the memory-bound decode GEMV that ratio is the speed-up
// to expect.

#if defined(ATTNRT_KERNELS_HWY_LINEAR_WEIGHTS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_LINEAR_WEIGHTS_INL_H_
#undef ATTNRT_KERNELS_HWY_LINEAR_WEIGHTS_INL_H_
#else
#define ATTNRT_KERNELS_HWY_LINEAR_WEIGHTS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/linear.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/linear_dot-inl.h"

ATTNRT_HWY_BEGIN

// Widening vectors of at most 32 lanes (a q8 block; SVE may be wider): a wider
// vector would only lengthen the scalar tail of a short depth block.
using DWiden = hn::CappedTag<float, 32>;

// Elementwise codecs: `Self` stores values of type T and has a vector
// `Load(D, const T*)` and a scalar `Widen(T)`.
template <class Self, typename T>
struct ElementwiseCodec {
  using Matrix = const T*;  // row n at + n * K

  static HWY_INLINE Matrix Planes(const LinearParams& p) { return static_cast<Matrix>(p.w); }

  static HWY_INLINE void DotGroup(Matrix w, size_t K, const float* x, size_t n, size_t count,
                                  bool prefetch, float* out) {
    Rows8<T> rows;
    for (size_t i = 0; i < 8; ++i) rows.r[i] = w + (n + HWY_MIN(i, count - 1)) * K;
    if (prefetch) {
      Dot8<Self, true>(x, rows, 8 * K, K, out);
    } else {
      Dot8<Self, false>(x, rows, 8 * K, K, out);
    }
  }

  static HWY_INLINE void WidenRow(Matrix w, size_t K, size_t n, size_t k0, size_t depth,
                                  float* HWY_RESTRICT dst) {
    const T* HWY_RESTRICT row = w + n * K + k0;
    const DWiden d;
    const size_t N = hn::Lanes(d);
    size_t i = 0;
    for (; i + N <= depth; i += N) hn::StoreU(Self::Load(d, row + i), d, dst + i);
    for (; i < depth; ++i) dst[i] = Self::Widen(row[i]);
  }
};

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_LINEAR_WEIGHTS_INL_H_
