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
// Both micro-kernels are 4 rows x 2 vectors: 8 independent accumulators hide
// the FMA latency, and each step issues 6 loads (2 vector + 4 broadcast) for
// 8 FMAs, so the loop is FMA-bound rather than load-bound on 2-load/cycle cores.
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
#include "kernels/blocked/block_scratch.h"
#include "kernels/blocked/sdpa_tile_masks.h"
#include "kernels/blocked/sdpa_tile_ops.h"
#include "kernels/hwy/exp-inl.h"
#include "kernels/hwy/kv_load-inl.h"

HWY_BEFORE_NAMESPACE();
namespace attnrt {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;

// Targets with 32 vector registers afford 4 x 4 accumulator tiles (16 FMA chains,
// 8 loads per 16 FMAs); 16-register targets stay at 4 x 2 to avoid spills.
constexpr bool kWideTiles = HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL;

// Width the packed tiles are padded to: two vectors (the micro-kernel width).
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

// One 4-row x 4-vector block of QKMicro4x2 below (kWideTiles targets only).
HWY_INLINE void QKBlock4x4(const float* q0, const float* q1, const float* q2, const float* q3,
                           const float* HWY_RESTRICT kc, size_t ldk, size_t dim, float scale,
                           float* s0, float* s1, float* s2, float* s3) {
  const DF d;
  const size_t N = hn::Lanes(d);
  auto a00 = hn::Zero(d), a01 = hn::Zero(d), a02 = hn::Zero(d), a03 = hn::Zero(d);
  auto a10 = hn::Zero(d), a11 = hn::Zero(d), a12 = hn::Zero(d), a13 = hn::Zero(d);
  auto a20 = hn::Zero(d), a21 = hn::Zero(d), a22 = hn::Zero(d), a23 = hn::Zero(d);
  auto a30 = hn::Zero(d), a31 = hn::Zero(d), a32 = hn::Zero(d), a33 = hn::Zero(d);
  for (size_t e = 0; e < dim; ++e) {
    const float* HWY_RESTRICT ke = kc + e * ldk;
    const auto k0 = hn::Load(d, ke), k1 = hn::Load(d, ke + N);
    const auto k2 = hn::Load(d, ke + 2 * N), k3 = hn::Load(d, ke + 3 * N);
    auto b = hn::Set(d, q0[e]);
    a00 = hn::MulAdd(b, k0, a00), a01 = hn::MulAdd(b, k1, a01);
    a02 = hn::MulAdd(b, k2, a02), a03 = hn::MulAdd(b, k3, a03);
    b = hn::Set(d, q1[e]);
    a10 = hn::MulAdd(b, k0, a10), a11 = hn::MulAdd(b, k1, a11);
    a12 = hn::MulAdd(b, k2, a12), a13 = hn::MulAdd(b, k3, a13);
    b = hn::Set(d, q2[e]);
    a20 = hn::MulAdd(b, k0, a20), a21 = hn::MulAdd(b, k1, a21);
    a22 = hn::MulAdd(b, k2, a22), a23 = hn::MulAdd(b, k3, a23);
    b = hn::Set(d, q3[e]);
    a30 = hn::MulAdd(b, k0, a30), a31 = hn::MulAdd(b, k1, a31);
    a32 = hn::MulAdd(b, k2, a32), a33 = hn::MulAdd(b, k3, a33);
  }
  const auto vs = hn::Set(d, scale);
  hn::StoreU(hn::Mul(a00, vs), d, s0), hn::StoreU(hn::Mul(a01, vs), d, s0 + N);
  hn::StoreU(hn::Mul(a02, vs), d, s0 + 2 * N), hn::StoreU(hn::Mul(a03, vs), d, s0 + 3 * N);
  hn::StoreU(hn::Mul(a10, vs), d, s1), hn::StoreU(hn::Mul(a11, vs), d, s1 + N);
  hn::StoreU(hn::Mul(a12, vs), d, s1 + 2 * N), hn::StoreU(hn::Mul(a13, vs), d, s1 + 3 * N);
  hn::StoreU(hn::Mul(a20, vs), d, s2), hn::StoreU(hn::Mul(a21, vs), d, s2 + N);
  hn::StoreU(hn::Mul(a22, vs), d, s2 + 2 * N), hn::StoreU(hn::Mul(a23, vs), d, s2 + 3 * N);
  hn::StoreU(hn::Mul(a30, vs), d, s3), hn::StoreU(hn::Mul(a31, vs), d, s3 + N);
  hn::StoreU(hn::Mul(a32, vs), d, s3 + 2 * N), hn::StoreU(hn::Mul(a33, vs), d, s3 + 3 * N);
}

// s[r][0 .. ldk) = scale * q[r] . kt for 4 query rows. Callers with fewer rows
// pass the last real row again: duplicate rows write identical values.
HWY_INLINE void QKMicro4x2(const float* q0, const float* q1, const float* q2, const float* q3,
                           const float* HWY_RESTRICT kt, size_t ldk, size_t dim, float scale,
                           float* s0, float* s1, float* s2, float* s3) {
  const DF d;
  const size_t N = hn::Lanes(d);
  size_t c = 0;
  if (kWideTiles) {
    for (; c + 4 * N <= ldk; c += 4 * N) {
      QKBlock4x4(q0, q1, q2, q3, kt + c, ldk, dim, scale, s0 + c, s1 + c, s2 + c, s3 + c);
    }
  }
  for (; c < ldk; c += 2 * N) {
    auto a00 = hn::Zero(d), a01 = hn::Zero(d), a10 = hn::Zero(d), a11 = hn::Zero(d);
    auto a20 = hn::Zero(d), a21 = hn::Zero(d), a30 = hn::Zero(d), a31 = hn::Zero(d);
    const float* HWY_RESTRICT kc = kt + c;
    for (size_t e = 0; e < dim; ++e) {
      const auto k0 = hn::Load(d, kc + e * ldk);
      const auto k1 = hn::Load(d, kc + e * ldk + N);
      auto b = hn::Set(d, q0[e]);
      a00 = hn::MulAdd(b, k0, a00);
      a01 = hn::MulAdd(b, k1, a01);
      b = hn::Set(d, q1[e]);
      a10 = hn::MulAdd(b, k0, a10);
      a11 = hn::MulAdd(b, k1, a11);
      b = hn::Set(d, q2[e]);
      a20 = hn::MulAdd(b, k0, a20);
      a21 = hn::MulAdd(b, k1, a21);
      b = hn::Set(d, q3[e]);
      a30 = hn::MulAdd(b, k0, a30);
      a31 = hn::MulAdd(b, k1, a31);
    }
    const auto vs = hn::Set(d, scale);
    hn::StoreU(hn::Mul(a00, vs), d, s0 + c);
    hn::StoreU(hn::Mul(a01, vs), d, s0 + c + N);
    hn::StoreU(hn::Mul(a10, vs), d, s1 + c);
    hn::StoreU(hn::Mul(a11, vs), d, s1 + c + N);
    hn::StoreU(hn::Mul(a20, vs), d, s2 + c);
    hn::StoreU(hn::Mul(a21, vs), d, s2 + c + N);
    hn::StoreU(hn::Mul(a30, vs), d, s3 + c);
    hn::StoreU(hn::Mul(a31, vs), d, s3 + c + N);
  }
}

// Scores for `rows` query rows (row r at q + r * q_row_stride) against a packed
// key tile: s[r * lds + c] for c < ldk.
HWY_INLINE void QKTile(const float* q, size_t q_row_stride, size_t rows,
                       const float* HWY_RESTRICT kt, size_t ldk, size_t dim, float scale,
                       float* s, size_t lds) {
  for (size_t r = 0; r < rows; r += 4) {
    const RowQuad x = RowQuadAt(r, rows);
    QKMicro4x2(q + x.r0 * q_row_stride, q + x.r1 * q_row_stride, q + x.r2 * q_row_stride,
               q + x.r3 * q_row_stride, kt, ldk, dim, scale, s + x.r0 * lds, s + x.r1 * lds,
               s + x.r2 * lds, s + x.r3 * lds);
  }
}

// o[r][0 .. ldv) += sum_j p_r[j * pstride] * vt[j] for 4 rows. `pstride` is 1
// for row-major probabilities and the row count for key-major (transposed) ones.
// Rows may alias (tails): every accumulator is loaded before any is stored, so
// aliasing rows agree.
HWY_INLINE void PVBlock4x4(const float* p0, const float* p1, const float* p2, const float* p3,
                           size_t pstride, const float* HWY_RESTRICT vc, size_t ldv, size_t keys,
                           float* o0, float* o1, float* o2, float* o3) {
  const DF d;
  const size_t N = hn::Lanes(d);
  auto a00 = hn::Load(d, o0), a01 = hn::Load(d, o0 + N);
  auto a02 = hn::Load(d, o0 + 2 * N), a03 = hn::Load(d, o0 + 3 * N);
  auto a10 = hn::Load(d, o1), a11 = hn::Load(d, o1 + N);
  auto a12 = hn::Load(d, o1 + 2 * N), a13 = hn::Load(d, o1 + 3 * N);
  auto a20 = hn::Load(d, o2), a21 = hn::Load(d, o2 + N);
  auto a22 = hn::Load(d, o2 + 2 * N), a23 = hn::Load(d, o2 + 3 * N);
  auto a30 = hn::Load(d, o3), a31 = hn::Load(d, o3 + N);
  auto a32 = hn::Load(d, o3 + 2 * N), a33 = hn::Load(d, o3 + 3 * N);
  for (size_t j = 0; j < keys; ++j) {
    const float* HWY_RESTRICT vj = vc + j * ldv;
    const auto v0 = hn::Load(d, vj), v1 = hn::Load(d, vj + N);
    const auto v2 = hn::Load(d, vj + 2 * N), v3 = hn::Load(d, vj + 3 * N);
    auto b = hn::Set(d, p0[j * pstride]);
    a00 = hn::MulAdd(b, v0, a00), a01 = hn::MulAdd(b, v1, a01);
    a02 = hn::MulAdd(b, v2, a02), a03 = hn::MulAdd(b, v3, a03);
    b = hn::Set(d, p1[j * pstride]);
    a10 = hn::MulAdd(b, v0, a10), a11 = hn::MulAdd(b, v1, a11);
    a12 = hn::MulAdd(b, v2, a12), a13 = hn::MulAdd(b, v3, a13);
    b = hn::Set(d, p2[j * pstride]);
    a20 = hn::MulAdd(b, v0, a20), a21 = hn::MulAdd(b, v1, a21);
    a22 = hn::MulAdd(b, v2, a22), a23 = hn::MulAdd(b, v3, a23);
    b = hn::Set(d, p3[j * pstride]);
    a30 = hn::MulAdd(b, v0, a30), a31 = hn::MulAdd(b, v1, a31);
    a32 = hn::MulAdd(b, v2, a32), a33 = hn::MulAdd(b, v3, a33);
  }
  hn::Store(a00, d, o0), hn::Store(a01, d, o0 + N), hn::Store(a02, d, o0 + 2 * N), hn::Store(a03, d, o0 + 3 * N);
  hn::Store(a10, d, o1), hn::Store(a11, d, o1 + N), hn::Store(a12, d, o1 + 2 * N), hn::Store(a13, d, o1 + 3 * N);
  hn::Store(a20, d, o2), hn::Store(a21, d, o2 + N), hn::Store(a22, d, o2 + 2 * N), hn::Store(a23, d, o2 + 3 * N);
  hn::Store(a30, d, o3), hn::Store(a31, d, o3 + N), hn::Store(a32, d, o3 + 2 * N), hn::Store(a33, d, o3 + 3 * N);
}

HWY_INLINE void PVMicro4x2(const float* p0, const float* p1, const float* p2, const float* p3,
                           size_t pstride, const float* HWY_RESTRICT vt, size_t ldv, size_t keys,
                           float* o0, float* o1, float* o2, float* o3) {
  const DF d;
  const size_t N = hn::Lanes(d);
  size_t c = 0;
  if (kWideTiles) {
    for (; c + 4 * N <= ldv; c += 4 * N) {
      PVBlock4x4(p0, p1, p2, p3, pstride, vt + c, ldv, keys, o0 + c, o1 + c, o2 + c, o3 + c);
    }
  }
  for (; c < ldv; c += 2 * N) {
    auto a00 = hn::Load(d, o0 + c), a01 = hn::Load(d, o0 + c + N);
    auto a10 = hn::Load(d, o1 + c), a11 = hn::Load(d, o1 + c + N);
    auto a20 = hn::Load(d, o2 + c), a21 = hn::Load(d, o2 + c + N);
    auto a30 = hn::Load(d, o3 + c), a31 = hn::Load(d, o3 + c + N);
    const float* HWY_RESTRICT vc = vt + c;
    for (size_t j = 0; j < keys; ++j) {
      const auto v0 = hn::Load(d, vc + j * ldv);
      const auto v1 = hn::Load(d, vc + j * ldv + N);
      auto b = hn::Set(d, p0[j * pstride]);
      a00 = hn::MulAdd(b, v0, a00);
      a01 = hn::MulAdd(b, v1, a01);
      b = hn::Set(d, p1[j * pstride]);
      a10 = hn::MulAdd(b, v0, a10);
      a11 = hn::MulAdd(b, v1, a11);
      b = hn::Set(d, p2[j * pstride]);
      a20 = hn::MulAdd(b, v0, a20);
      a21 = hn::MulAdd(b, v1, a21);
      b = hn::Set(d, p3[j * pstride]);
      a30 = hn::MulAdd(b, v0, a30);
      a31 = hn::MulAdd(b, v1, a31);
    }
    hn::Store(a00, d, o0 + c);
    hn::Store(a01, d, o0 + c + N);
    hn::Store(a10, d, o1 + c);
    hn::Store(a11, d, o1 + c + N);
    hn::Store(a20, d, o2 + c);
    hn::Store(a21, d, o2 + c + N);
    hn::Store(a30, d, o3 + c);
    hn::Store(a31, d, o3 + c + N);
  }
}

// o[r * ldo + c] += sum_{j < keys} P(r, j) * vt[j * ldv + c], where P(r, j) is
// p[r * row_stride + j * key_stride] (row-major: (ldp, 1); key-major: (1, ldp)).
HWY_INLINE void PVTile(const float* p, size_t row_stride, size_t key_stride, size_t rows,
                       const float* HWY_RESTRICT vt, size_t ldv, size_t keys, float* o,
                       size_t ldo) {
  for (size_t r = 0; r < rows; r += 4) {
    const RowQuad x = RowQuadAt(r, rows);
    PVMicro4x2(p + x.r0 * row_stride, p + x.r1 * row_stride, p + x.r2 * row_stride,
               p + x.r3 * row_stride, key_stride, vt, ldv, keys, o + x.r0 * ldo, o + x.r1 * ldo,
               o + x.r2 * ldo, o + x.r3 * ldo);
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

}  // namespace HWY_NAMESPACE
}  // namespace attnrt
HWY_AFTER_NAMESPACE();

#endif  // ATTNRT_KERNELS_HWY_SDPA_TILES_INL_H_
