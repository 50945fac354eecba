// Error-free transformations in float (Dekker 1971, Knuth TAOCP 4.2.2): a product or a
// sum of two floats as the rounded result plus its exact rounding error, so a value can
// be carried as a pair hi + lo with about twice float's precision. For the few kernels
// whose result is ill-conditioned in one intermediate (tanh-GELU's e^(-|a|) with |a| up
// to 87 turns a relative error d of a into 87 d of the result), without double
// arithmetic, which Cortex-M's single-precision FPU lacks.
//
// Same results on every target: no fused multiply-add is needed (ARMv7 NEON, SSE4 and
// the SCALAR target have none), and every product below is exact, so a compiler that
// contracts a multiply and an add into an FMA changes nothing. Valid for finite inputs
// whose products neither overflow nor leave the normal range.

#if defined(ATTNRT_KERNELS_HWY_FLOAT_PAIR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_FLOAT_PAIR_INL_H_
#undef ATTNRT_KERNELS_HWY_FLOAT_PAIR_INL_H_
#else
#define ATTNRT_KERNELS_HWY_FLOAT_PAIR_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

// v = *hi + *lo with 12 significant bits in each (the low 12 mantissa bits cleared
// for hi), so a product of two halves fits a float exactly. A bit mask rather than
// Veltkamp's (4097 v) split: no multiply for a compiler to fuse, no overflow.
template <class D, class V>
HWY_INLINE void SplitHalves(D d, V v, V* hi, V* lo) {
  const hn::RebindToUnsigned<D> du;
  *hi = hn::And(v, hn::BitCast(d, hn::Set(du, 0xFFFFF000u)));
  *lo = hn::Sub(v, *hi);  // exact: the bits that hi dropped
}

// a * b = result + *err exactly (Dekker's product).
template <class D, class V>
HWY_INLINE V TwoProduct(D d, V a, V b, V* err) {
  V a_hi, a_lo, b_hi, b_lo;
  SplitHalves(d, a, &a_hi, &a_lo);
  SplitHalves(d, b, &b_hi, &b_lo);
  const V p = hn::Mul(a, b);
  V e = hn::Sub(hn::Mul(a_hi, b_hi), p);
  e = hn::Add(e, hn::Mul(a_hi, b_lo));
  e = hn::Add(e, hn::Mul(a_lo, b_hi));
  *err = hn::Add(e, hn::Mul(a_lo, b_lo));
  return p;
}

// a + b = result + *err exactly, whichever is larger (Knuth's TwoSum).
template <class V>
HWY_INLINE V TwoSum(V a, V b, V* err) {
  const V s = hn::Add(a, b);
  const V b_part = hn::Sub(s, a);
  const V a_part = hn::Sub(s, b_part);
  *err = hn::Add(hn::Sub(a, a_part), hn::Sub(b, b_part));
  return s;
}

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_FLOAT_PAIR_INL_H_
