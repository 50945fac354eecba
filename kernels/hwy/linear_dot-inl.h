// Dot products for the hwy Linear kernel's dot path (decode GEMV, per-target code):
// one x row against up to 8 weight rows read in place in their stored type.
//
// Vectors run along k, one x load shared by the 8 rows' FMAs, lanes summed at the
// end. Fewer than 8 real rows repeat the last one (its loads hit the same lines),
// so every output is summed in this one order whichever group it falls in: how
// DotPanel splits columns never changes a bit. With 8 rows, 8 independent FMA
// chains cover the FMA latency and the loop is bound by memory, not arithmetic.
//
// This file: the elementwise types' loop (f32, f16, bf16; a codec's vector Load and
// scalar Widen, linear_weights-inl.h): full vectors, then a scalar tail of k. Block
// types sum per block in their own codec (codec_q8-inl.h), in the same shape.
//
// Prefetch (kPrefetchNext): the 8 rows that follow (the next group, contiguous in
// W), one cache line per row whenever k enters a new 64-byte line of this group's
// rows, so the next group's lines are on their way from DRAM while this one is
// summed: 8 rows of lead (prefetch.h: with which hint, and why). On the EPYC (Zen 5, AVX-512) this took the 32000 x 288
// f32 classifier from about 80% to over 100% of a plain sequential read's
// bandwidth. The caller asks for it on every matrix (linear.cc, DotRows: in a
// decode step none is still in L2 when its turn comes); on an L2-hot matrix the
// extra instructions cost up to a third on the Zen 5, within noise on the Zen 3.

#if defined(ATTNRT_KERNELS_HWY_LINEAR_DOT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_LINEAR_DOT_INL_H_
#undef ATTNRT_KERNELS_HWY_LINEAR_DOT_INL_H_
#else
#define ATTNRT_KERNELS_HWY_LINEAR_DOT_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/prefetch.h"

ATTNRT_HWY_BEGIN

// Eight row pointers of one type; rows past the real ones repeat the last.
template <class T>
struct Rows8 {
  const T* r[8];
};

// The last K % lanes products, one lane at a time through the target's own MulAdd
// (fused where it has FMA): a plain `sum += x * w` is fused or not at the
// compiler's whim, which differed between f32 and widened f16 rows.
template <class W>
HWY_INLINE float DotTail(float sum, const float* HWY_RESTRICT x,
                         const typename W::T* HWY_RESTRICT w, size_t k, size_t K) {
  const hn::CappedTag<float, 1> d1;
  auto s = hn::Set(d1, sum);
  for (; k < K; ++k) s = hn::MulAdd(hn::Set(d1, x[k]), hn::Set(d1, W::Widen(w[k])), s);
  return hn::GetLane(s);
}

// out[i] = sum_k x[k] * w.r[i][k], i < 8. `next`: elements from a row to the same
// k of the row 8 further on (only read when prefetching).
template <class W, bool kPrefetchNext>
HWY_INLINE void Dot8(const float* HWY_RESTRICT x, const Rows8<typename W::T>& w, size_t next,
                     size_t K, float* out) {
  using T = typename W::T;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  constexpr size_t kLine = 64 / sizeof(T);
  const T* HWY_RESTRICT w0 = w.r[0];
  const T* HWY_RESTRICT w1 = w.r[1];
  const T* HWY_RESTRICT w2 = w.r[2];
  const T* HWY_RESTRICT w3 = w.r[3];
  const T* HWY_RESTRICT w4 = w.r[4];
  const T* HWY_RESTRICT w5 = w.r[5];
  const T* HWY_RESTRICT w6 = w.r[6];
  const T* HWY_RESTRICT w7 = w.r[7];
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  auto a4 = hn::Zero(d), a5 = hn::Zero(d), a6 = hn::Zero(d), a7 = hn::Zero(d);
  size_t k = 0;
  for (; k + N <= K; k += N) {
    if (kPrefetchNext && k % kLine < N) {
      PrefetchWeights(w0 + next + k);
      PrefetchWeights(w1 + next + k);
      PrefetchWeights(w2 + next + k);
      PrefetchWeights(w3 + next + k);
      PrefetchWeights(w4 + next + k);
      PrefetchWeights(w5 + next + k);
      PrefetchWeights(w6 + next + k);
      PrefetchWeights(w7 + next + k);
    }
    const auto xv = hn::LoadU(d, x + k);
    a0 = hn::MulAdd(xv, W::Load(d, w0 + k), a0);
    a1 = hn::MulAdd(xv, W::Load(d, w1 + k), a1);
    a2 = hn::MulAdd(xv, W::Load(d, w2 + k), a2);
    a3 = hn::MulAdd(xv, W::Load(d, w3 + k), a3);
    a4 = hn::MulAdd(xv, W::Load(d, w4 + k), a4);
    a5 = hn::MulAdd(xv, W::Load(d, w5 + k), a5);
    a6 = hn::MulAdd(xv, W::Load(d, w6 + k), a6);
    a7 = hn::MulAdd(xv, W::Load(d, w7 + k), a7);
  }
  out[0] = DotTail<W>(hn::GetLane(hn::SumOfLanes(d, a0)), x, w0, k, K);
  out[1] = DotTail<W>(hn::GetLane(hn::SumOfLanes(d, a1)), x, w1, k, K);
  out[2] = DotTail<W>(hn::GetLane(hn::SumOfLanes(d, a2)), x, w2, k, K);
  out[3] = DotTail<W>(hn::GetLane(hn::SumOfLanes(d, a3)), x, w3, k, K);
  out[4] = DotTail<W>(hn::GetLane(hn::SumOfLanes(d, a4)), x, w4, k, K);
  out[5] = DotTail<W>(hn::GetLane(hn::SumOfLanes(d, a5)), x, w5, k, K);
  out[6] = DotTail<W>(hn::GetLane(hn::SumOfLanes(d, a6)), x, w6, k, K);
  out[7] = DotTail<W>(hn::GetLane(hn::SumOfLanes(d, a7)), x, w7, k, K);
}

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_LINEAR_DOT_INL_H_
