// One row of a register tile (per-target code): kVecs vectors, 2 or 4, held in
// named values v0..v3, for the SDPA micro-kernels (sdpa_tiles-inl.h) and the
// Linear tiles (linear_tiles-inl.h).
//
// Why four named values and not an array: SVE vectors are sizeless, so they can
// be neither array elements nor struct members. A 2-vector row still passes v2
// and v3; these helpers never touch them then, and after inlining they cost
// nothing.

#if defined(ATTNRT_KERNELS_HWY_TILE_ROW_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_TILE_ROW_INL_H_
#undef ATTNRT_KERNELS_HWY_TILE_ROW_INL_H_
#else
#define ATTNRT_KERNELS_HWY_TILE_ROW_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

// The float vectors of the register tiles, SDPA and Linear, and of every scratch
// size planned from them: at most kMaxFloatLanes lanes (512 bits). A full SVE
// vector may hold up to 64 floats (2048 bits), and nothing here gains from more
// than 16:
// - Scratch plans are made from Lanes() (panel widths, padded rows) and an arena
//   planned on one machine must hold on another: `attnrt embed` bakes a plan made
//   on a 512-bit SVE or AVX-512 CPU into firmware, which must still fit, and run,
//   where the vectors are wider. With the cap no vector length plans more than 512
//   bits does.
// - The kernels' fixed sizes are whole numbers of vectors only up to 16 lanes:
//   64-key tiles (materialized, flash) and decode chunks are multiples of the
//   2-vector panel width, and scratch rows padded to 64 bytes (16 floats) are
//   whole vectors. Past 16 lanes they were not, and hwy-decode (1024 and 2048
//   bits) and hwy-materialized (2048 bits) wrote past their rows.
// - Head dims of 48 to 128 and 64-key chunks would leave most of a 64-lane vector
//   idle or to scalar tails.
// On x86 (AVX-512's 16 lanes at most), NEON and the fixed-width SVE_256 and
// SVE2_128 targets this is the same type as ScalableTag<float>; only the
// length-agnostic SVE and SVE2 targets see a cap, which at 512 bits or less
// changes nothing but a min in Lanes() and a whilelt instead of the all-true
// predicate of loads, stores and reductions.
constexpr size_t kMaxFloatLanes = 16;
using DF = hn::CappedTag<float, kMaxFloatLanes>;
using VF = hn::Vec<DF>;

// Where a row starts. Packed tiles and padded accumulator rows are vector aligned
// (Load/Store, which SSE4 can fold into arithmetic); a caller's rows may start
// anywhere (LoadU/StoreU).
enum class RowStart { kAligned, kAnywhere };

template <RowStart kStart>
HWY_INLINE VF LoadVector(const float* p) {
  if constexpr (kStart == RowStart::kAligned) {
    return hn::Load(DF(), p);
  } else {
    return hn::LoadU(DF(), p);
  }
}

template <RowStart kStart>
HWY_INLINE void StoreVector(const VF& v, float* p) {
  if constexpr (kStart == RowStart::kAligned) {
    hn::Store(v, DF(), p);
  } else {
    hn::StoreU(v, DF(), p);
  }
}

// v_i = p[i * N .. (i + 1) * N) for i < kVecs.
template <size_t kVecs, RowStart kStart = RowStart::kAligned>
HWY_INLINE void LoadRow(const float* p, VF& v0, VF& v1, VF& v2, VF& v3) {
  static_assert(kVecs == 2 || kVecs == 4, "tile rows are 2 or 4 vectors");
  const size_t N = hn::Lanes(DF());
  v0 = LoadVector<kStart>(p);
  v1 = LoadVector<kStart>(p + N);
  if constexpr (kVecs == 4) {
    v2 = LoadVector<kStart>(p + 2 * N);
    v3 = LoadVector<kStart>(p + 3 * N);
  }
}

// p[i * N .. (i + 1) * N) = v_i for i < kVecs.
template <size_t kVecs, RowStart kStart = RowStart::kAligned>
HWY_INLINE void StoreRow(const VF& v0, const VF& v1, const VF& v2, const VF& v3, float* p) {
  static_assert(kVecs == 2 || kVecs == 4, "tile rows are 2 or 4 vectors");
  const size_t N = hn::Lanes(DF());
  StoreVector<kStart>(v0, p);
  StoreVector<kStart>(v1, p + N);
  if constexpr (kVecs == 4) {
    StoreVector<kStart>(v2, p + 2 * N);
    StoreVector<kStart>(v3, p + 3 * N);
  }
}

// a_i += x * b_i for i < kVecs: one broadcast, kVecs independent FMA chains.
template <size_t kVecs>
HWY_INLINE void MulAddRow(float x, const VF& b0, const VF& b1, const VF& b2, const VF& b3,
                          VF& a0, VF& a1, VF& a2, VF& a3) {
  const VF vx = hn::Set(DF(), x);
  a0 = hn::MulAdd(vx, b0, a0);
  a1 = hn::MulAdd(vx, b1, a1);
  if constexpr (kVecs == 4) {
    a2 = hn::MulAdd(vx, b2, a2);
    a3 = hn::MulAdd(vx, b3, a3);
  }
}

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_TILE_ROW_INL_H_
