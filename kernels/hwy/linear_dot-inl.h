// Dot products for the hwy Linear kernel's dot path (decode GEMV, per-target code):
// one x row against up to 8 weight rows read in place in their stored type.
//
// Vectors run along k, one x load shared by the 8 rows' FMAs, lanes summed at the
// end. Fewer than 8 real rows repeat the last one (its loads hit the same lines),
// so every output is summed in this one order whichever group it falls in: how
// DotPanel splits columns never changes a bit. With 8 rows, 8 independent FMA
// chains cover the FMA latency and the loop is bound by memory, not arithmetic.
//
// Elementwise types (f32, f16, bf16): full vectors, then a scalar tail of k.
// q8: per 32-value block, 8 partial sums of x * q (int8 widened to f32), then each
// is scaled once: acc += partial * scale. One FMA per row per block instead of one
// multiply per weight vector. A shorter last block (K % 32 != 0, K < 32) is copied
// into zero-padded buffers and summed as a full one (0 * 0 adds nothing).
//
// Prefetch (kPrefetchNext): the 8 rows that follow (the next group, contiguous in
// W), one cache line per row whenever k enters a new 64-byte line of this group's
// rows, so the next group's lines are on their way from DRAM while this one is
// summed: 8 rows of lead. On the EPYC (Zen 5, AVX-512) this took the 32000 x 288
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

#include "attnrt/kernels/weight_q8.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/hwy/linear_weights-inl.h"

HWY_BEFORE_NAMESPACE();
namespace attnrt {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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
      hwy::Prefetch(w0 + next + k);
      hwy::Prefetch(w1 + next + k);
      hwy::Prefetch(w2 + next + k);
      hwy::Prefetch(w3 + next + k);
      hwy::Prefetch(w4 + next + k);
      hwy::Prefetch(w5 + next + k);
      hwy::Prefetch(w6 + next + k);
      hwy::Prefetch(w7 + next + k);
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

// Scales of up to kQ8ScaleChunk blocks of one row widened to f32 ahead of the
// blocks that use them (dst, a small stack array): per block each row's scale is
// then one broadcast from L1 folded into its FMA, not a load, widen and broadcast
// per block and row. Only the vectors that cover the n scales are widened (a short
// row has few blocks; on SCALAR every extra value is a software f16 conversion).
// Their last one may read past the row's last block (into the next row's scales:
// the plane is contiguous) unless that would pass `end`, the plane's end, or the
// vectors would not fit dst (lanes beyond kQ8ScaleChunk on a wide SVE); then the
// values are widened one at a time.
constexpr size_t kQ8ScaleChunk = 16;

HWY_INLINE void Q8Scales(const uint16_t* HWY_RESTRICT s, size_t n, const uint16_t* end,
                         float* HWY_RESTRICT dst) {
  const DQ8 d;
  const size_t N = hn::Lanes(d);
  const hn::Rebind<hwy::float16_t, DQ8> dh;
  const size_t covered = (n + N - 1) / N * N;
  if (covered <= kQ8ScaleChunk && covered <= static_cast<size_t>(end - s)) {
    for (size_t j = 0; j < covered; j += N) {
      hn::StoreU(hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(s + j))),
                 d, dst + j);
    }
  } else {
    for (size_t j = 0; j < n; ++j) dst[j] = F16ToF32(s[j]);
  }
}

// One block of kQ8Block values of 8 rows: a_i += (sum_k xb[k] * q_i[k]) * sc[i].
// The first product is a plain multiply (the same value as an FMA onto zero).
HWY_INLINE void Q8Block8(const float* HWY_RESTRICT xb, const int8_t* HWY_RESTRICT q0,
                         const int8_t* HWY_RESTRICT q1, const int8_t* HWY_RESTRICT q2,
                         const int8_t* HWY_RESTRICT q3, const int8_t* HWY_RESTRICT q4,
                         const int8_t* HWY_RESTRICT q5, const int8_t* HWY_RESTRICT q6,
                         const int8_t* HWY_RESTRICT q7, const float (*sc)[kQ8ScaleChunk],
                         size_t j, hn::Vec<DQ8>& a0, hn::Vec<DQ8>& a1, hn::Vec<DQ8>& a2,
                         hn::Vec<DQ8>& a3, hn::Vec<DQ8>& a4, hn::Vec<DQ8>& a5,
                         hn::Vec<DQ8>& a6, hn::Vec<DQ8>& a7) {
  const DQ8 d;
  const size_t N = hn::Lanes(d);
  const auto x0 = hn::LoadU(d, xb);
  auto p0 = hn::Mul(x0, LoadQ8(d, q0));
  auto p1 = hn::Mul(x0, LoadQ8(d, q1));
  auto p2 = hn::Mul(x0, LoadQ8(d, q2));
  auto p3 = hn::Mul(x0, LoadQ8(d, q3));
  auto p4 = hn::Mul(x0, LoadQ8(d, q4));
  auto p5 = hn::Mul(x0, LoadQ8(d, q5));
  auto p6 = hn::Mul(x0, LoadQ8(d, q6));
  auto p7 = hn::Mul(x0, LoadQ8(d, q7));
  for (size_t i = N; i < kQ8Block; i += N) {
    const auto xv = hn::LoadU(d, xb + i);
    p0 = hn::MulAdd(xv, LoadQ8(d, q0 + i), p0);
    p1 = hn::MulAdd(xv, LoadQ8(d, q1 + i), p1);
    p2 = hn::MulAdd(xv, LoadQ8(d, q2 + i), p2);
    p3 = hn::MulAdd(xv, LoadQ8(d, q3 + i), p3);
    p4 = hn::MulAdd(xv, LoadQ8(d, q4 + i), p4);
    p5 = hn::MulAdd(xv, LoadQ8(d, q5 + i), p5);
    p6 = hn::MulAdd(xv, LoadQ8(d, q6 + i), p6);
    p7 = hn::MulAdd(xv, LoadQ8(d, q7 + i), p7);
  }
  a0 = hn::MulAdd(p0, hn::Set(d, sc[0][j]), a0);
  a1 = hn::MulAdd(p1, hn::Set(d, sc[1][j]), a1);
  a2 = hn::MulAdd(p2, hn::Set(d, sc[2][j]), a2);
  a3 = hn::MulAdd(p3, hn::Set(d, sc[3][j]), a3);
  a4 = hn::MulAdd(p4, hn::Set(d, sc[4][j]), a4);
  a5 = hn::MulAdd(p5, hn::Set(d, sc[5][j]), a5);
  a6 = hn::MulAdd(p6, hn::Set(d, sc[6][j]), a6);
  a7 = hn::MulAdd(p7, hn::Set(d, sc[7][j]), a7);
}

// out[i] = sum_k x[k] * q.r[i][k] * scale of k's block (s.r[i]), i < 8. `next`:
// bytes from a row's values to the row 8 further on (only read when prefetching).
// `s_end`: the end of the scale plane.
template <bool kPrefetchNext>
HWY_INLINE void Dot8Q8(const float* HWY_RESTRICT x, const Rows8<int8_t>& q,
                       const Rows8<uint16_t>& s, const uint16_t* s_end, size_t next, size_t K,
                       float* out) {
  const DQ8 d;
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  auto a4 = hn::Zero(d), a5 = hn::Zero(d), a6 = hn::Zero(d), a7 = hn::Zero(d);
  const size_t full = K / kQ8Block;
  const size_t blocks = (K + kQ8Block - 1) / kQ8Block;
  HWY_ALIGN float sc[8][kQ8ScaleChunk];
  for (size_t b0 = 0; b0 < blocks; b0 += kQ8ScaleChunk) {
    const size_t nb = HWY_MIN(kQ8ScaleChunk, blocks - b0);
    for (size_t i = 0; i < 8; ++i) Q8Scales(s.r[i] + b0, nb, s_end, sc[i]);
    const size_t b_full = HWY_MIN(b0 + nb, full);
    for (size_t b = b0; b < b_full; ++b) {
      const size_t k = b * kQ8Block;
      if (kPrefetchNext && k % 64 == 0) {
        for (size_t i = 0; i < 8; ++i) hwy::Prefetch(q.r[i] + next + k);
      }
      Q8Block8(x + k, q.r[0] + k, q.r[1] + k, q.r[2] + k, q.r[3] + k, q.r[4] + k, q.r[5] + k,
               q.r[6] + k, q.r[7] + k, sc, b - b0, a0, a1, a2, a3, a4, a5, a6, a7);
    }
  }
  const size_t k = full * kQ8Block;
  if (k < K) {
    // The last chunk's scales (full % kQ8ScaleChunk = the short block's index in it)
    // are still in sc.
    const size_t n = K - k;
    HWY_ALIGN float xt[kQ8Block] = {};
    HWY_ALIGN int8_t qt[8][kQ8Block] = {};
    for (size_t j = 0; j < n; ++j) xt[j] = x[k + j];
    for (size_t i = 0; i < 8; ++i) {
      for (size_t j = 0; j < n; ++j) qt[i][j] = q.r[i][k + j];
    }
    Q8Block8(xt, qt[0], qt[1], qt[2], qt[3], qt[4], qt[5], qt[6], qt[7], sc,
             full % kQ8ScaleChunk, a0, a1, a2, a3, a4, a5, a6, a7);
  }
  out[0] = hn::GetLane(hn::SumOfLanes(d, a0));
  out[1] = hn::GetLane(hn::SumOfLanes(d, a1));
  out[2] = hn::GetLane(hn::SumOfLanes(d, a2));
  out[3] = hn::GetLane(hn::SumOfLanes(d, a3));
  out[4] = hn::GetLane(hn::SumOfLanes(d, a4));
  out[5] = hn::GetLane(hn::SumOfLanes(d, a5));
  out[6] = hn::GetLane(hn::SumOfLanes(d, a6));
  out[7] = hn::GetLane(hn::SumOfLanes(d, a7));
}

}  // namespace HWY_NAMESPACE
}  // namespace attnrt
HWY_AFTER_NAMESPACE();

#endif  // ATTNRT_KERNELS_HWY_LINEAR_DOT_INL_H_
