// q8 weights for the hwy Linear kernel (weight_types.inc: int8 in blocks of 32 with
// an f16 scale each, two planes; weight_q8.h): the codec of linear_weights-inl.h's
// interface and its block-structured loops.
//
// Dot path: per 32-value block, 8 partial sums of x * q (int8 widened to f32), then
// each is scaled once: acc += partial * scale. One FMA per row per block instead of
// one multiply per weight vector. A shorter last block (K % 32 != 0, K < 32) is copied
// into zero-padded buffers and summed as a full one (0 * 0 adds nothing). Rows,
// prefetch and summation order as linear_dot-inl.h describes.

#if defined(ATTNRT_KERNELS_HWY_CODEC_Q8_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_CODEC_Q8_INL_H_
#undef ATTNRT_KERNELS_HWY_CODEC_Q8_INL_H_
#else
#define ATTNRT_KERNELS_HWY_CODEC_Q8_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/weight_q8.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/linear_dot-inl.h"
#include "kernels/hwy/prefetch.h"

ATTNRT_HWY_BEGIN

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
        for (size_t i = 0; i < 8; ++i) PrefetchWeights(q.r[i] + next + k);
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

// The codec (linear_weights-inl.h's interface) over the functions above.
struct Q8Codec {
  // The planes of a q8 N x K matrix (layout in weight_q8.h).
  struct Matrix {
    const int8_t* values;        // row n at values + n * K
    const uint16_t* scales;      // f16 bits; row n at scales + n * blocks
    const uint16_t* scales_end;  // the end of the scale plane (Q8Scales reads up to it)
    size_t blocks;               // Q8BlocksPerRow(K)
  };

  static HWY_INLINE Matrix Planes(const LinearParams& p) {
    const uint16_t* scales = LinearScalePlane(p);
    const size_t blocks = Q8BlocksPerRow(p.in);
    return {static_cast<const int8_t*>(p.w), scales, scales + p.out * blocks, blocks};
  }

  static HWY_INLINE void DotGroup(const Matrix& w, size_t K, const float* x, size_t n,
                                  size_t count, bool prefetch, float* out) {
    Rows8<int8_t> q;
    Rows8<uint16_t> s;
    for (size_t i = 0; i < 8; ++i) {
      const size_t row = n + HWY_MIN(i, count - 1);
      q.r[i] = w.values + row * K;
      s.r[i] = w.scales + row * w.blocks;
    }
    if (prefetch) {
      Dot8Q8<true>(x, q, s, w.scales_end, 8 * K, K, out);
    } else {
      Dot8Q8<false>(x, q, s, w.scales_end, 8 * K, K, out);
    }
  }

  static HWY_INLINE void WidenRow(const Matrix& w, size_t K, size_t n, size_t k0, size_t depth,
                                  float* HWY_RESTRICT dst) {
    WidenQ8(w.values + n * K, w.scales + n * w.blocks, k0, depth, dst);
  }
};

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_CODEC_Q8_INL_H_
