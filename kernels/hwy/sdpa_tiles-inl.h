// Tile building blocks shared by the Highway SDPA variants (per-target code),
// and TileOps(): the table of them the blocked drivers in kernels/blocked/ call.
//
// Layout conventions inside one work item:
//   kt  : a key tile packed transposed (by the drivers, PackTransposed), E rows
//         of `ldk` floats (ldk = tile width rounded up to 2 vectors, padding
//         zero), so the QK^T micro-kernel reads contiguous key lanes for each e;
//   vt  : a value tile packed row-major, `ldv` floats per key (Ev rounded up to
//         2 vectors, padding zero), so P.V reads contiguous value lanes;
//   s   : scores / probabilities, one row per query, `lds` floats per row.
// Both micro-kernels (QKBlock4Rows, PVBlock4Rows) are 4 rows x kVecs vectors.
// 4 x 2 runs on every target: 8 independent accumulators hide the FMA latency,
// and each step issues 6 loads (2 vector + 4 broadcast) for 8 FMAs, so the loop
// is FMA-bound rather than load-bound on 2-load/cycle cores. Targets with the
// registers for 16 accumulators (kWideTiles) run 4 x 4 blocks first and 4 x 2
// only for the rest.
// Accumulators are named values, not arrays, so the same code builds for SVE.

#if defined(ATTNRT_KERNELS_HWY_SDPA_TILES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_SDPA_TILES_INL_H_
#undef ATTNRT_KERNELS_HWY_SDPA_TILES_INL_H_
#else
#define ATTNRT_KERNELS_HWY_SDPA_TILES_INL_H_
#endif

#include <cstddef>

#include "kernels/blocked/sdpa_mask.h"
#include "attnrt/kernels/sdpa_params.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/blocked/block_scratch.h"
#include "kernels/blocked/sdpa_tile_masks.h"
#include "kernels/blocked/sdpa_tile_ops.h"
#include "kernels/hwy/exp-inl.h"
#include "kernels/hwy/kv_load-inl.h"
#include "kernels/hwy/tile_row-inl.h"

ATTNRT_HWY_BEGIN
// DF and VF, the float tag and vector, come with tile_row-inl.h.

// Targets with 32 vector registers afford 4 x 4 accumulator tiles (16 FMA chains,
// 8 loads per 16 FMAs); 16-register targets stay at 4 x 2 to avoid spills.
// SCALAR's vectors are single floats, so its 16 accumulators fit any FPU (32
// on Armv7-M's FPv5; on x86 GCC packs each row into one SSE register). On x86
// its 4 x 2 loop spends as many shuffles, multiplies and adds per key as 4 x 4
// does, for half the products, and its speed swung with code placement.
constexpr bool kWideTiles =
    HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_SCALAR;

// Width the packed tiles are padded to: two vectors (the narrower micro-kernel).
HWY_INLINE size_t PanelWidth() { return 2 * hn::Lanes(DF()); }

// vt[r * ldv + c] = v[r * v_row_stride + c] for c < dim; zero for dim <= c < ldv.
// Vector copies: the padding makes every P.V load a full aligned vector.
HWY_INLINE void PackValues(const float* HWY_RESTRICT v, size_t v_row_stride, size_t rows,
                           size_t dim, size_t ldv, float* HWY_RESTRICT vt) {
  const DF d;
  const size_t N = hn::Lanes(d);
  for (size_t r = 0; r < rows; ++r) {
    float* HWY_RESTRICT dst = vt + r * ldv;
    const float* HWY_RESTRICT src = v + r * v_row_stride;
    size_t c = 0;
    for (; c + N <= dim; c += N) hn::Store(hn::LoadU(d, src + c), d, dst + c);
    for (; c < dim; ++c) dst[c] = src[c];
    for (; c < ldv; ++c) dst[c] = 0.0f;
  }
}

// s_r[c] = scale * q_r . kc[:, c] for the 4 query rows and kVecs vectors of
// key columns c: 4 * kVecs accumulators, 4 + kVecs loads per 4 * kVecs FMAs.
// Rows may repeat (tails): duplicate rows write identical values.
template <size_t kVecs>
HWY_INLINE void QKBlock4Rows(const float* q0, const float* q1, const float* q2, const float* q3,
                             const float* HWY_RESTRICT kc, size_t ldk, size_t dim, float scale,
                             float* s0, float* s1, float* s2, float* s3) {
  const DF d;
  VF a00 = hn::Zero(d), a01 = a00, a02 = a00, a03 = a00, a10 = a00, a11 = a00, a12 = a00;
  VF a13 = a00, a20 = a00, a21 = a00, a22 = a00, a23 = a00, a30 = a00, a31 = a00, a32 = a00;
  VF a33 = a00;
  // A running key pointer rather than kc + e * ldk: with it GCC steps the query
  // pointers with one instruction fewer per e (measurable on SCALAR).
  const float* HWY_RESTRICT ke = kc;
  for (size_t e = 0; e < dim; ++e, ke += ldk) {
    VF k0, k1, k2, k3;
    LoadRow<kVecs>(ke, k0, k1, k2, k3);
    MulAddRow<kVecs>(q0[e], k0, k1, k2, k3, a00, a01, a02, a03);
    MulAddRow<kVecs>(q1[e], k0, k1, k2, k3, a10, a11, a12, a13);
    MulAddRow<kVecs>(q2[e], k0, k1, k2, k3, a20, a21, a22, a23);
    MulAddRow<kVecs>(q3[e], k0, k1, k2, k3, a30, a31, a32, a33);
  }
  const VF vs = hn::Set(d, scale);
  constexpr RowStart kAny = RowStart::kAnywhere;
  StoreRow<kVecs, kAny>(hn::Mul(a00, vs), hn::Mul(a01, vs), hn::Mul(a02, vs), hn::Mul(a03, vs), s0);
  StoreRow<kVecs, kAny>(hn::Mul(a10, vs), hn::Mul(a11, vs), hn::Mul(a12, vs), hn::Mul(a13, vs), s1);
  StoreRow<kVecs, kAny>(hn::Mul(a20, vs), hn::Mul(a21, vs), hn::Mul(a22, vs), hn::Mul(a23, vs), s2);
  StoreRow<kVecs, kAny>(hn::Mul(a30, vs), hn::Mul(a31, vs), hn::Mul(a32, vs), hn::Mul(a33, vs), s3);
}

// s_r[0 .. ldk) = scale * q_r . kt for 4 query rows, in blocks of 4 vectors
// where the target has the registers, then of 2. Callers with fewer rows pass
// the last real row again.
HWY_INLINE void QKRows4(const float* q0, const float* q1, const float* q2, const float* q3,
                        const float* HWY_RESTRICT kt, size_t ldk, size_t dim, float scale,
                        float* s0, float* s1, float* s2, float* s3) {
  const size_t N = hn::Lanes(DF());
  size_t c = 0;
  if constexpr (kWideTiles) {
    for (; c + 4 * N <= ldk; c += 4 * N) {
      QKBlock4Rows<4>(q0, q1, q2, q3, kt + c, ldk, dim, scale, s0 + c, s1 + c, s2 + c, s3 + c);
    }
  }
  for (; c < ldk; c += 2 * N) {
    QKBlock4Rows<2>(q0, q1, q2, q3, kt + c, ldk, dim, scale, s0 + c, s1 + c, s2 + c, s3 + c);
  }
}

// Scores for `rows` query rows (row r at q + r * q_row_stride) against a packed
// key tile: s[r * lds + c] for c < ldk.
HWY_INLINE void QKTile(const float* q, size_t q_row_stride, size_t rows,
                       const float* HWY_RESTRICT kt, size_t ldk, size_t dim, float scale,
                       float* s, size_t lds) {
  for (size_t r = 0; r < rows; r += 4) {
    const RowQuad quad = RowQuadAt(r, rows);
    QKRows4(q + quad.r0 * q_row_stride, q + quad.r1 * q_row_stride, q + quad.r2 * q_row_stride,
            q + quad.r3 * q_row_stride, kt, ldk, dim, scale, s + quad.r0 * lds, s + quad.r1 * lds,
            s + quad.r2 * lds, s + quad.r3 * lds);
  }
}

// o_r[c] += sum_j p_r[j * pstride] * vc[j * ldv + c] for the 4 rows and kVecs
// vectors of value columns c. `pstride` is 1 for row-major probabilities and
// the row count for key-major (transposed) ones. Rows may repeat (tails): every
// accumulator is loaded before any is stored, so repeated rows agree.
template <size_t kVecs>
HWY_INLINE void PVBlock4Rows(const float* p0, const float* p1, const float* p2, const float* p3,
                             size_t pstride, const float* HWY_RESTRICT vc, size_t ldv,
                             size_t keys, float* o0, float* o1, float* o2, float* o3) {
  VF a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23, a30, a31, a32, a33;
  LoadRow<kVecs>(o0, a00, a01, a02, a03);
  LoadRow<kVecs>(o1, a10, a11, a12, a13);
  LoadRow<kVecs>(o2, a20, a21, a22, a23);
  LoadRow<kVecs>(o3, a30, a31, a32, a33);
  for (size_t j = 0; j < keys; ++j) {
    VF v0, v1, v2, v3;
    LoadRow<kVecs>(vc + j * ldv, v0, v1, v2, v3);
    MulAddRow<kVecs>(p0[j * pstride], v0, v1, v2, v3, a00, a01, a02, a03);
    MulAddRow<kVecs>(p1[j * pstride], v0, v1, v2, v3, a10, a11, a12, a13);
    MulAddRow<kVecs>(p2[j * pstride], v0, v1, v2, v3, a20, a21, a22, a23);
    MulAddRow<kVecs>(p3[j * pstride], v0, v1, v2, v3, a30, a31, a32, a33);
  }
  StoreRow<kVecs>(a00, a01, a02, a03, o0);
  StoreRow<kVecs>(a10, a11, a12, a13, o1);
  StoreRow<kVecs>(a20, a21, a22, a23, o2);
  StoreRow<kVecs>(a30, a31, a32, a33, o3);
}

// o_r[0 .. ldv) += sum_j p_r[j * pstride] * vt[j] for 4 rows, in blocks of 4
// vectors where the target has the registers, then of 2.
HWY_INLINE void PVRows4(const float* p0, const float* p1, const float* p2, const float* p3,
                        size_t pstride, const float* HWY_RESTRICT vt, size_t ldv, size_t keys,
                        float* o0, float* o1, float* o2, float* o3) {
  const size_t N = hn::Lanes(DF());
  size_t c = 0;
  if constexpr (kWideTiles) {
    for (; c + 4 * N <= ldv; c += 4 * N) {
      PVBlock4Rows<4>(p0, p1, p2, p3, pstride, vt + c, ldv, keys, o0 + c, o1 + c, o2 + c, o3 + c);
    }
  }
  for (; c < ldv; c += 2 * N) {
    PVBlock4Rows<2>(p0, p1, p2, p3, pstride, vt + c, ldv, keys, o0 + c, o1 + c, o2 + c, o3 + c);
  }
}

// o[r * ldo + c] += sum_{j < keys} P(r, j) * vt[j * ldv + c], where P(r, j) is
// p[r * row_stride + j * key_stride] (row-major: (ldp, 1); key-major: (1, ldp)).
HWY_INLINE void PVTile(const float* p, size_t row_stride, size_t key_stride, size_t rows,
                       const float* HWY_RESTRICT vt, size_t ldv, size_t keys, float* o,
                       size_t ldo) {
  for (size_t r = 0; r < rows; r += 4) {
    const RowQuad quad = RowQuadAt(r, rows);
    PVRows4(p + quad.r0 * row_stride, p + quad.r1 * row_stride, p + quad.r2 * row_stride,
            p + quad.r3 * row_stride, key_stride, vt, ldv, keys, o + quad.r0 * ldo,
            o + quad.r1 * ldo, o + quad.r2 * ldo, o + quad.r3 * ldo);
  }
}

// Max of s[0 .. n); kMaskedScore (-inf) when n == 0. `s` is readable to RoundUp(n, N).
HWY_INLINE float RowMax(const float* HWY_RESTRICT s, size_t n) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto masked = hn::Set(d, kMaskedScore);
  auto m = masked;
  size_t j = 0;
  for (; j + N <= n; j += N) m = hn::Max(m, hn::LoadU(d, s + j));
  if (j < n) m = hn::Max(m, hn::IfThenElse(hn::FirstN(d, n - j), hn::LoadU(d, s + j), masked));
  return hn::GetLane(hn::MaxOfLanes(d, m));
}

// s[j] = exp(s[j] - max) for j < n and 0 for n <= j < RoundUp(n, N); returns
// the sum. Masked scores (-inf) give exactly 0; a dead row's max (-inf) must not
// be passed: callers pass 0 for it or skip the row.
HWY_INLINE float ExpRowAndSum(float* HWY_RESTRICT s, size_t n, float max) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto vmax = hn::Set(d, max);
  auto sum = hn::Zero(d);
  size_t j = 0;
  for (; j + N <= n; j += N) {
    const auto e = ExpSoftmax(d, hn::Sub(hn::LoadU(d, s + j), vmax));
    hn::StoreU(e, d, s + j);
    sum = hn::Add(sum, e);
  }
  if (j < n) {
    const auto e = hn::IfThenElseZero(hn::FirstN(d, n - j),
                                      ExpSoftmax(d, hn::Sub(hn::LoadU(d, s + j), vmax)));
    hn::StoreU(e, d, s + j);
    sum = hn::Add(sum, e);
  }
  return hn::GetLane(hn::SumOfLanes(d, sum));
}

// x[0 .. n) *= f, n a multiple of N (padded rows).
HWY_INLINE void ScaleRow(float* HWY_RESTRICT x, size_t n, float f) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto vf = hn::Set(d, f);
  for (size_t j = 0; j < n; j += N) hn::Store(hn::Mul(hn::Load(d, x + j), vf), d, x + j);
}

// dst[0 .. n) = src[0 .. n) * f for any n and alignment; dst may equal src.
HWY_INLINE void ScaleCopy(const float* src, size_t n, float f, float* dst) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto vf = hn::Set(d, f);
  size_t j = 0;
  for (; j + N <= n; j += N) hn::StoreU(hn::Mul(hn::LoadU(d, src + j), vf), d, dst + j);
  for (; j < n; ++j) dst[j] = src[j] * f;
}

// Online-softmax update for every query of a key-major tile, vectorized over
// queries: new running max m, rescale factor alpha = exp(m_old - m_use),
// probabilities exp(s - m_use) written back into St, running sum
// l = l * alpha + sum(p), where m_use = m_new, or 0 while the query has seen no
// allowed key (m_new = kMaskedScore = -inf): its masked scores then give
// exp(-inf) = 0 rather than exp(-inf - -inf) = NaN, and so does alpha (o and l
// are still 0). Then accumulator rows are rescaled by alpha.
HWY_INLINE void FlashUpdate(float* HWY_RESTRICT st, size_t keys, size_t ldq, size_t rows,
                            float* HWY_RESTRICT m, float* HWY_RESTRICT l,
                            float* HWY_RESTRICT alpha, float* HWY_RESTRICT o, size_t ldv) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto masked = hn::Set(d, kMaskedScore);
  for (size_t r = 0; r < ldq; r += N) {
    auto tile_max = masked;
    for (size_t j = 0; j < keys; ++j) tile_max = hn::Max(tile_max, hn::Load(d, st + j * ldq + r));
    const auto m_old = hn::Load(d, m + r);
    const auto m_new = hn::Max(m_old, tile_max);
    const auto m_use = hn::IfThenZeroElse(hn::Eq(m_new, masked), m_new);
    const auto a = ExpSoftmax(d, hn::Sub(m_old, m_use));
    auto sum = hn::Zero(d);
    for (size_t j = 0; j < keys; ++j) {
      float* HWY_RESTRICT s = st + j * ldq + r;
      const auto e = ExpSoftmax(d, hn::Sub(hn::Load(d, s), m_use));
      hn::Store(e, d, s);
      sum = hn::Add(sum, e);
    }
    hn::Store(m_new, d, m + r);
    hn::Store(hn::MulAdd(hn::Load(d, l + r), a, sum), d, l + r);
    hn::Store(a, d, alpha + r);
  }
  for (size_t r = 0; r < rows; ++r) {
    if (alpha[r] != 1.0f) ScaleRow(o + r * ldv, ldv, alpha[r]);
  }
}

// This target's tile operations for the blocked drivers (kernels/blocked/).
// Built per call: on SVE the panel width is only known at run time.
HWY_INLINE SdpaTileOps TileOps() {
  return {hwy::TargetName(HWY_TARGET), PanelWidth(), &PackValues, &QKTile, &PVTile,
          &FlashUpdate, &RowMax, &ExpRowAndSum, &ScaleCopy, &WidenRows};
}

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_SDPA_TILES_INL_H_
