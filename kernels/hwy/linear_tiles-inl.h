// Register tiles and panel packing for the hwy Linear kernel (per-target code).
//
// A packed panel holds W^T for `depth` k values and `nr` output columns:
// panel[k * nr + j] = W[n0 + j, k0 + k], nr = kPanelVectors vectors, columns past
// N zero. A tile (Tile6Rows<kPanelVectors>) keeps 6 rows x nr columns of y in
// registers while k runs:
//   per k: kPanelVectors panel loads + 6 broadcasts of x, 6 * kPanelVectors FMAs.
//   6x2: 12 accumulators + 2 + 1 = 15 registers, fits the 16 of SSE4/AVX2/ARMv7;
//   8 loads per 12 FMAs keeps x86 (2 loads/cycle) FMA-bound. On AVX-512 6x4
//   measured no faster (traffic of x and y bounds it first), so x86 keeps the
//   narrower panel, which wastes less on N not a multiple of 64.
//   6x4: 24 + 4 + 1 = 29 of AArch64's 32 registers; 10 loads per 24 FMAs, because
//   NEON cores with fewer load ports would be load-bound with 6x2.
// Accumulators are named values, never arrays or struct members, so the same
// code builds for SVE's sizeless vectors (tile_row-inl.h).

#if defined(ATTNRT_KERNELS_HWY_LINEAR_TILES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_LINEAR_TILES_INL_H_
#undef ATTNRT_KERNELS_HWY_LINEAR_TILES_INL_H_
#else
#define ATTNRT_KERNELS_HWY_LINEAR_TILES_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/tile_row-inl.h"

ATTNRT_HWY_BEGIN
// DF and VF, the float tag and vector, come with tile_row-inl.h.

#if HWY_ARCH_ARM_A64
constexpr size_t kPanelVectors = 4;
#else
constexpr size_t kPanelVectors = 2;
#endif
constexpr size_t kTileRows = 6;

HWY_INLINE size_t PanelCols() { return kPanelVectors * hn::Lanes(DF()); }

// dst[c * ld + r] = src_r[c] for the 4 x 4 block of rows src0..src3, columns 0..3.
HWY_INLINE void Transpose4x4(const float* HWY_RESTRICT src0, const float* HWY_RESTRICT src1,
                             const float* HWY_RESTRICT src2, const float* HWY_RESTRICT src3,
                             size_t ld, float* HWY_RESTRICT dst) {
#if HWY_TARGET == HWY_SCALAR
  for (size_t c = 0; c < 4; ++c) {
    dst[c * ld + 0] = src0[c];
    dst[c * ld + 1] = src1[c];
    dst[c * ld + 2] = src2[c];
    dst[c * ld + 3] = src3[c];
  }
#else
  const hn::CappedTag<float, 4> d4;
  const auto r0 = hn::LoadU(d4, src0), r1 = hn::LoadU(d4, src1);
  const auto r2 = hn::LoadU(d4, src2), r3 = hn::LoadU(d4, src3);
  const auto lo01 = hn::InterleaveLower(d4, r0, r1);  // r0[0] r1[0] r0[1] r1[1]
  const auto lo23 = hn::InterleaveLower(d4, r2, r3);
  const auto hi01 = hn::InterleaveUpper(d4, r0, r1);  // r0[2] r1[2] r0[3] r1[3]
  const auto hi23 = hn::InterleaveUpper(d4, r2, r3);
  hn::StoreU(hn::ConcatLowerLower(d4, lo23, lo01), d4, dst);
  hn::StoreU(hn::ConcatUpperUpper(d4, lo23, lo01), d4, dst + ld);
  hn::StoreU(hn::ConcatLowerLower(d4, hi23, hi01), d4, dst + 2 * ld);
  hn::StoreU(hn::ConcatUpperUpper(d4, hi23, hi01), d4, dst + 3 * ld);
#endif
}

// panel[k * nr + j] = w[j * w_stride + k] for j < cols, k < depth (f32 rows; typed
// weights are widened into such rows first, linear_weights-inl.h). 4 x 4 register
// transposes (8 shuffles per 16 floats); scalar only at the edges.
HWY_INLINE void PackColumns(const float* HWY_RESTRICT w, size_t w_stride, size_t cols,
                            size_t depth, size_t nr, float* HWY_RESTRICT panel) {
  size_t j = 0;
  for (; j + 4 <= cols; j += 4) {
    const float* w0 = w + j * w_stride;
    size_t k = 0;
    for (; k + 4 <= depth; k += 4) {
      Transpose4x4(w0 + k, w0 + w_stride + k, w0 + 2 * w_stride + k, w0 + 3 * w_stride + k, nr,
                   panel + k * nr + j);
    }
    for (; k < depth; ++k) {
      for (size_t i = 0; i < 4; ++i) panel[k * nr + j + i] = w0[i * w_stride + k];
    }
  }
  for (; j < cols; ++j) {
    for (size_t k = 0; k < depth; ++k) panel[k * nr + j] = w[j * w_stride + k];
  }
}

// panel[k * nr + j] = 0 for cols <= j < nr: a partial panel's missing columns.
HWY_INLINE void ZeroColumns(size_t cols, size_t depth, size_t nr, float* HWY_RESTRICT panel) {
  for (size_t j = cols; j < nr; ++j) {
    for (size_t k = 0; k < depth; ++k) panel[k * nr + j] = 0.0f;
  }
}

// y_r[0 .. nr) = (accumulate ? y_r : bias) + sum_k x_r[k] * panel[k] for 6 rows
// (x[r], y[r]) and nr = kVecs vectors. Rows may repeat (tails pass the last real
// row again): every accumulator is loaded before any is stored, so repeated rows
// store equal values.
template <size_t kVecs>
HWY_INLINE void Tile6Rows(const float* const* x, const float* HWY_RESTRICT panel, size_t depth,
                          bool accumulate, const float* HWY_RESTRICT bias, float* const* y) {
  const size_t nr = kVecs * hn::Lanes(DF());
  const float* x0 = x[0];
  const float* x1 = x[1];
  const float* x2 = x[2];
  const float* x3 = x[3];
  const float* x4 = x[4];
  const float* x5 = x[5];
  VF a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23;
  VF a30, a31, a32, a33, a40, a41, a42, a43, a50, a51, a52, a53;
  constexpr RowStart kAny = RowStart::kAnywhere;
  LoadRow<kVecs, kAny>(accumulate ? y[0] : bias, a00, a01, a02, a03);
  LoadRow<kVecs, kAny>(accumulate ? y[1] : bias, a10, a11, a12, a13);
  LoadRow<kVecs, kAny>(accumulate ? y[2] : bias, a20, a21, a22, a23);
  LoadRow<kVecs, kAny>(accumulate ? y[3] : bias, a30, a31, a32, a33);
  LoadRow<kVecs, kAny>(accumulate ? y[4] : bias, a40, a41, a42, a43);
  LoadRow<kVecs, kAny>(accumulate ? y[5] : bias, a50, a51, a52, a53);
  for (size_t k = 0; k < depth; ++k) {
    VF b0, b1, b2, b3;
    LoadRow<kVecs>(panel + k * nr, b0, b1, b2, b3);
    MulAddRow<kVecs>(x0[k], b0, b1, b2, b3, a00, a01, a02, a03);
    MulAddRow<kVecs>(x1[k], b0, b1, b2, b3, a10, a11, a12, a13);
    MulAddRow<kVecs>(x2[k], b0, b1, b2, b3, a20, a21, a22, a23);
    MulAddRow<kVecs>(x3[k], b0, b1, b2, b3, a30, a31, a32, a33);
    MulAddRow<kVecs>(x4[k], b0, b1, b2, b3, a40, a41, a42, a43);
    MulAddRow<kVecs>(x5[k], b0, b1, b2, b3, a50, a51, a52, a53);
  }
  StoreRow<kVecs, kAny>(a00, a01, a02, a03, y[0]);
  StoreRow<kVecs, kAny>(a10, a11, a12, a13, y[1]);
  StoreRow<kVecs, kAny>(a20, a21, a22, a23, y[2]);
  StoreRow<kVecs, kAny>(a30, a31, a32, a33, y[3]);
  StoreRow<kVecs, kAny>(a40, a41, a42, a43, y[4]);
  StoreRow<kVecs, kAny>(a50, a51, a52, a53, y[5]);
}

// The tile for this target's panel width.
HWY_INLINE void Tile(const float* const* x, const float* HWY_RESTRICT panel, size_t depth,
                     bool accumulate, const float* HWY_RESTRICT bias, float* const* y) {
  Tile6Rows<kPanelVectors>(x, panel, depth, accumulate, bias, y);
}

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_LINEAR_TILES_INL_H_
