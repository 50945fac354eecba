// The xsimd SDPA tile operations, written once as templates on the xsimd
// architecture and instantiated by one file per ISA (sdpa_xsimd_avx2.cc, ...),
// each compiled with that ISA's flags. See kernels/blocked/sdpa_tile_ops.h for
// the contract and sdpa_xsimd_ops.h for why nothing else lives in those files.
//
// Micro-kernels are 4 rows x 2 vectors, as in the Highway family: 8
// independent accumulators hide the FMA latency, and each step issues 6 loads
// (2 vectors + 4 broadcasts) for 8 FMAs, so the loop is FMA-bound on cores with
// two loads per cycle. Packed panels (K^T, Q^T, V), flash's key-major score
// tiles and accumulator rows are 64-byte aligned with widths that are multiples
// of two vectors, so their loads are aligned; materialized score rows are
// accessed unaligned (a tile's scores start at key j0 of the row).
//
// Exp is the polynomial the Highway and Helium softmaxes use
// (../blocked/exp_polynomial.h) written with xsimd: exactly 0 below -87, so the
// masked score kMaskedScore (-inf) minus any finite row max gives 0, and NaN
// stays NaN. (xsimd::exp, Cephes-style with range checks, cost flash 4% on AVX2.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <xsimd/xsimd.hpp>

// Only the constant kMaskedScore is used here; the
// header's inline functions must not be called from ISA files (sdpa_xsimd_ops.h).
#include "kernels/blocked/sdpa_mask.h"
#include "kernels/blocked/exp_polynomial.h"
#include "kernels/xsimd/sdpa_xsimd_ops.h"

namespace attnrt {
namespace xsimd_tiles {

// Lane j holds j; compared with a count it selects the first lanes of a tail.
alignas(64) inline constexpr float kLaneIndex[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                     8, 9, 10, 11, 12, 13, 14, 15};

template <class Arch>
struct SdpaTiles {
  using Batch = xsimd::batch<float, Arch>;
  static constexpr size_t N = Batch::size;
  static_assert(N <= sizeof(kLaneIndex) / sizeof(kLaneIndex[0]), "lane index table too short");

  static constexpr SdpaTileOps MakeOps(const char* isa) {
    // No widen_rows: the xsimd kernels read f32 keys and values only.
    return {isa, 2 * N, &PackValues, &QKTile, &PVTile, &FlashUpdate, &RowMax, &ExpRowAndSum,
            &ScaleCopy, nullptr};
  }

  // ---- lane helpers (xsimd 8.1 has hadd but no max reduction) ----

  // v in lanes [0, n), `fill` in lanes [n, N).
  static Batch KeepFirst(const Batch& v, size_t n, const Batch& fill) {
    const auto keep = Batch::load_aligned(kLaneIndex) < Batch(static_cast<float>(n));
    return xsimd::select(keep, v, fill);
  }

  static float MaxOfLanes(const Batch& v) {
    alignas(64) float lanes[N];
    v.store_aligned(lanes);
    float m = lanes[0];
    for (size_t i = 1; i < N; ++i) m = lanes[i] > m ? lanes[i] : m;
    return m;
  }

  // ---- packing V (a plain loop: the compiler vectorizes it for this ISA) ----

  static void PackValues(const float* __restrict v, size_t v_row_stride, size_t rows, size_t dim,
                         size_t ldv, float* __restrict vt) {
    for (size_t r = 0; r < rows; ++r) {
      float* __restrict dst = vt + r * ldv;
      const float* __restrict src = v + r * v_row_stride;
      for (size_t c = 0; c < dim; ++c) dst[c] = src[c];
      for (size_t c = dim; c < ldv; ++c) dst[c] = 0.0f;
    }
  }

  // ---- one row of a 4 x 2 register tile: two vectors ----

  // v0, v1 = p[0 .. 2N); p aligned.
  static void LoadRow(const float* p, Batch& v0, Batch& v1) {
    v0 = Batch::load_aligned(p);
    v1 = Batch::load_aligned(p + N);
  }

  // a_i += x * b_i: one broadcast, two independent FMA chains.
  static void MulAddRow(float x, const Batch& b0, const Batch& b1, Batch& a0, Batch& a1) {
    const Batch vx(x);
    a0 = xsimd::fma(vx, b0, a0);
    a1 = xsimd::fma(vx, b1, a1);
  }

  // p[0 .. 2N) = (a0, a1) * vs; p anywhere (score rows).
  static void StoreScaledRow(const Batch& a0, const Batch& a1, const Batch& vs, float* p) {
    (a0 * vs).store_unaligned(p);
    (a1 * vs).store_unaligned(p + N);
  }

  // p[0 .. 2N) = (v0, v1); p aligned (accumulator rows).
  static void StoreRow(const Batch& v0, const Batch& v1, float* p) {
    v0.store_aligned(p);
    v1.store_aligned(p + N);
  }

  // ---- QK^T ----

  // s_r[c] = scale * q_r . kc[:, c] for the 4 query rows and 2 vectors of key
  // columns c. Rows may repeat (tails): duplicate rows write identical values.
  static void QKBlock4Rows(const float* q0, const float* q1, const float* q2, const float* q3,
                           const float* kc, size_t ldk, size_t dim, float scale, float* s0,
                           float* s1, float* s2, float* s3) {
    Batch a00(0.0f), a01(0.0f), a10(0.0f), a11(0.0f);
    Batch a20(0.0f), a21(0.0f), a30(0.0f), a31(0.0f);
    for (size_t e = 0; e < dim; ++e) {
      Batch k0, k1;
      LoadRow(kc + e * ldk, k0, k1);
      MulAddRow(q0[e], k0, k1, a00, a01);
      MulAddRow(q1[e], k0, k1, a10, a11);
      MulAddRow(q2[e], k0, k1, a20, a21);
      MulAddRow(q3[e], k0, k1, a30, a31);
    }
    const Batch vs(scale);
    StoreScaledRow(a00, a01, vs, s0);
    StoreScaledRow(a10, a11, vs, s1);
    StoreScaledRow(a20, a21, vs, s2);
    StoreScaledRow(a30, a31, vs, s3);
  }

  // s_r[0 .. ldk) = scale * q_r . kt for 4 query rows. Callers with fewer rows
  // pass the last real row again.
  static void QKRows4(const float* q0, const float* q1, const float* q2, const float* q3,
                      const float* kt, size_t ldk, size_t dim, float scale, float* s0, float* s1,
                      float* s2, float* s3) {
    for (size_t c = 0; c < ldk; c += 2 * N) {
      QKBlock4Rows(q0, q1, q2, q3, kt + c, ldk, dim, scale, s0 + c, s1 + c, s2 + c, s3 + c);
    }
  }

  static void QKTile(const float* q, size_t q_row_stride, size_t rows, const float* kt,
                     size_t ldk, size_t dim, float scale, float* s, size_t lds) {
    for (size_t r = 0; r < rows; r += 4) {
      const RowQuad x = RowQuadAt(r, rows);
      QKRows4(q + x.r0 * q_row_stride, q + x.r1 * q_row_stride, q + x.r2 * q_row_stride,
              q + x.r3 * q_row_stride, kt, ldk, dim, scale, s + x.r0 * lds, s + x.r1 * lds,
              s + x.r2 * lds, s + x.r3 * lds);
    }
  }

  // ---- P.V ----

  // o_r[c] += sum_j p_r[j * pstride] * vc[j * ldv + c] for the 4 rows and 2
  // vectors of value columns c. `pstride` is 1 for row-major probabilities and
  // the row count for key-major ones. Rows may repeat (tails): every accumulator
  // is loaded before any is stored, so repeated rows agree.
  static void PVBlock4Rows(const float* p0, const float* p1, const float* p2, const float* p3,
                           size_t pstride, const float* vc, size_t ldv, size_t keys, float* o0,
                           float* o1, float* o2, float* o3) {
    Batch a00, a01, a10, a11, a20, a21, a30, a31;
    LoadRow(o0, a00, a01);
    LoadRow(o1, a10, a11);
    LoadRow(o2, a20, a21);
    LoadRow(o3, a30, a31);
    for (size_t j = 0; j < keys; ++j) {
      Batch v0, v1;
      LoadRow(vc + j * ldv, v0, v1);
      MulAddRow(p0[j * pstride], v0, v1, a00, a01);
      MulAddRow(p1[j * pstride], v0, v1, a10, a11);
      MulAddRow(p2[j * pstride], v0, v1, a20, a21);
      MulAddRow(p3[j * pstride], v0, v1, a30, a31);
    }
    StoreRow(a00, a01, o0);
    StoreRow(a10, a11, o1);
    StoreRow(a20, a21, o2);
    StoreRow(a30, a31, o3);
  }

  // o_r[0 .. ldv) += sum_j p_r[j * pstride] * vt[j] for 4 rows.
  static void PVRows4(const float* p0, const float* p1, const float* p2, const float* p3,
                      size_t pstride, const float* vt, size_t ldv, size_t keys, float* o0,
                      float* o1, float* o2, float* o3) {
    for (size_t c = 0; c < ldv; c += 2 * N) {
      PVBlock4Rows(p0, p1, p2, p3, pstride, vt + c, ldv, keys, o0 + c, o1 + c, o2 + c, o3 + c);
    }
  }

  static void PVTile(const float* p, size_t row_stride, size_t key_stride, size_t rows,
                     const float* vt, size_t ldv, size_t keys, float* o, size_t ldo) {
    for (size_t r = 0; r < rows; r += 4) {
      const RowQuad x = RowQuadAt(r, rows);
      PVRows4(p + x.r0 * row_stride, p + x.r1 * row_stride, p + x.r2 * row_stride,
              p + x.r3 * row_stride, key_stride, vt, ldv, keys, o + x.r0 * ldo, o + x.r1 * ldo,
              o + x.r2 * ldo, o + x.r3 * ldo);
    }
  }

  // ---- softmax pieces; score rows are readable and writable up to a multiple of N ----

  // e^x for x <= 88 or NaN, as Highway's ExpSoftmax (../hwy/exp-inl.h): n rounded
  // by adding kRoundMagic, 2^n written into the exponent bits, a compare + select
  // as the lower clamp so a NaN passes through.
  static Batch Exp(const Batch& x) {
    using namespace exp_polynomial;
    using IntBatch = xsimd::batch<int32_t, Arch>;
    const Batch lower(kUnderflowBelow);
    const auto underflows = x < lower;  // false for NaN
    const Batch xc = xsimd::select(underflows, lower, x);
    const Batch round_magic(kRoundMagic);
    const Batch t = xsimd::fma(xc, Batch(kLog2e), round_magic);
    const Batch n = t - round_magic;
    IntBatch biased = xsimd::bitwise_cast<IntBatch>(t) - xsimd::bitwise_cast<IntBatch>(round_magic);
    biased += IntBatch(127);
    biased <<= 23;
    Batch r = xsimd::fnma(n, Batch(kLn2Hi), xc);  // exact
    r = xsimd::fnma(n, Batch(kLn2Lo), r);
    Batch p(kC5);
    p = xsimd::fma(p, r, Batch(kC4));
    p = xsimd::fma(p, r, Batch(kC3));
    p = xsimd::fma(p, r, Batch(kC2));
    p = xsimd::fma(p, r, Batch(kC1));
    p = xsimd::fma(p, r, Batch(kC0));
    return xsimd::select(underflows, Batch(0.0f), p * xsimd::bitwise_cast<Batch>(biased));
  }

  // Max of s[0 .. n); kMaskedScore (-inf) when n == 0.
  static float RowMax(const float* s, size_t n) {
    const Batch masked(kMaskedScore);
    Batch m = masked;
    size_t j = 0;
    for (; j + N <= n; j += N) m = xsimd::max(m, Batch::load_unaligned(s + j));
    if (j < n) m = xsimd::max(m, KeepFirst(Batch::load_unaligned(s + j), n - j, masked));
    return MaxOfLanes(m);
  }

  // s[j] = exp(s[j] - max) for j < n, 0 in the rest of the last vector; returns
  // the sum. Masked scores (-inf) give exactly 0; never called with a dead row's
  // max (-inf): SoftmaxRow skips such rows.
  static float ExpRowAndSum(float* s, size_t n, float max) {
    const Batch vmax(max);
    Batch sum0(0.0f), sum1(0.0f);  // two chains: the adds do not wait on each other
    size_t j = 0;
    for (; j + 2 * N <= n; j += 2 * N) {
      const Batch e0 = Exp(Batch::load_unaligned(s + j) - vmax);
      const Batch e1 = Exp(Batch::load_unaligned(s + j + N) - vmax);
      e0.store_unaligned(s + j);
      e1.store_unaligned(s + j + N);
      sum0 += e0;
      sum1 += e1;
    }
    for (; j < n; j += N) {
      Batch e = Exp(Batch::load_unaligned(s + j) - vmax);
      if (n - j < N) e = KeepFirst(e, n - j, Batch(0.0f));
      e.store_unaligned(s + j);
      sum0 += e;
    }
    return xsimd::hadd(sum0 + sum1);
  }

  // x[0 .. n) *= f; x aligned, n a multiple of N (accumulator rows).
  static void ScaleAligned(float* x, size_t n, float f) {
    const Batch vf(f);
    for (size_t j = 0; j < n; j += N) (Batch::load_aligned(x + j) * vf).store_aligned(x + j);
  }

  static void ScaleCopy(const float* src, size_t n, float f, float* dst) {
    const Batch vf(f);
    size_t j = 0;
    for (; j + N <= n; j += N) (Batch::load_unaligned(src + j) * vf).store_unaligned(dst + j);
    for (; j < n; ++j) dst[j] = src[j] * f;
  }

  // ---- the online softmax ----

  // Vertical online softmax (see SdpaTileOps::flash_update): one vector of queries at a
  // time, looping over the tile's keys, so no horizontal reduction is needed.
  static void FlashUpdate(float* st, size_t keys, size_t ldq, size_t rows, float* m, float* l,
                          float* alpha, float* o, size_t ldv) {
    const Batch masked(kMaskedScore);
    for (size_t r = 0; r < ldq; r += N) {
      Batch tile_max = masked;
      for (size_t j = 0; j < keys; ++j) {
        tile_max = xsimd::max(tile_max, Batch::load_aligned(st + j * ldq + r));
      }
      const Batch m_old = Batch::load_aligned(m + r);
      const Batch m_new = xsimd::max(m_old, tile_max);
      // 0 for queries that have seen no allowed key (m_new = -inf): their masked
      // scores and alpha become exp(-inf) = 0, never exp(-inf - -inf) = NaN.
      const Batch m_use = xsimd::select(m_new == masked, Batch(0.0f), m_new);
      const Batch a = Exp(m_old - m_use);
      Batch sum(0.0f);
      for (size_t j = 0; j < keys; ++j) {
        float* s = st + j * ldq + r;
        const Batch e = Exp(Batch::load_aligned(s) - m_use);
        e.store_aligned(s);
        sum += e;
      }
      m_new.store_aligned(m + r);
      xsimd::fma(Batch::load_aligned(l + r), a, sum).store_aligned(l + r);
      a.store_aligned(alpha + r);
    }
    for (size_t r = 0; r < rows; ++r) {
      if (alpha[r] != 1.0f) ScaleAligned(o + r * ldv, ldv, alpha[r]);
    }
  }
};

}  // namespace xsimd_tiles
}  // namespace attnrt
