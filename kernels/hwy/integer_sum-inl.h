// The sum of a vector's 32-bit integer lanes, exact in 64 bits, correct (and
// clean under UBSan) on every Highway target. Use it for every integer reduction
// (checksums, integer dot products), never hn::SumOfLanes on 32-bit integers.
//
// Why: Highway 1.0.3's SumOfLanes for 32-bit lanes on AVX3 is GCC's
// _mm512_reduce_add_epi32, which adds the lanes as signed `int` vectors; a sum
// past INT32_MAX is undefined behaviour and UBSan stops the program. The same
// call on AVX2, SSE4, NEON or SCALAR is wrap-around vector adds, so a suite green
// on an AVX2-only CPU can fail on an AVX-512 one (issue 28: the plain-read
// checksum of tools/host/memory_read.cc). Widening first makes the sum exact:
// each 64-bit lane holds the sum of two 32-bit lanes (< 2^33 in magnitude), and
// even 64 of those (2048-bit SVE) stay far below 2^63, so no target's reduction
// can overflow, signed or not. Callers that want arithmetic modulo 2^32 (a
// checksum) truncate the result.
//
// Cost: a shift pair, an add and a 64-bit reduction, once per reduced vector (a
// row end, a chunk end), never inside a loop over data.

#if defined(ATTNRT_KERNELS_HWY_INTEGER_SUM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_INTEGER_SUM_INL_H_
#undef ATTNRT_KERNELS_HWY_INTEGER_SUM_INL_H_
#else
#define ATTNRT_KERNELS_HWY_INTEGER_SUM_INL_H_
#endif

#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

// int32 lanes -> int64_t, uint32 lanes -> uint64_t: the exact sum of all lanes.
template <class D>
HWY_INLINE std::conditional_t<hwy::IsSigned<hn::TFromD<D>>(), int64_t, uint64_t>
SumOfLanesExact(D d, hn::Vec<D> v) {
  using T = hn::TFromD<D>;
  static_assert(sizeof(T) == 4 && !hwy::IsFloat<T>(), "32-bit integer lanes only");
  using Wide = std::conditional_t<hwy::IsSigned<T>(), int64_t, uint64_t>;
  if constexpr (hn::MaxLanes(d) == 1) {
    return static_cast<Wide>(hn::GetLane(v));  // SCALAR, or a one-lane tag
  } else {
    // Reinterpret each pair of lanes as one 64-bit lane and split it into its two
    // halves, sign- or zero-extended by the shifts (arithmetic for signed lanes).
    const hn::Repartition<Wide, D> dw;
    const auto pairs = hn::BitCast(dw, v);
    const auto low = hn::ShiftRight<32>(hn::ShiftLeft<32>(pairs));
    const auto high = hn::ShiftRight<32>(pairs);
    return hn::GetLane(hn::SumOfLanes(dw, hn::Add(low, high)));
  }
}

ATTNRT_HWY_END

#endif  // include guard
