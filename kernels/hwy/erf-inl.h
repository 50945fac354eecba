// Vectorized float erf for every Highway target, float-only (no double helpers),
// so the SCALAR target on Cortex-M needs nothing beyond single-precision FPU ops.
//
// erf(x) ~= x * P(x^2) / Q(x^2) with P, Q of degree 5, fitted (weighted least
// squares iterated towards minimax) on [0, 4]; erf is odd and so is this form,
// so negative x need no special case. From |x| = 4 on (erf(4) rounds to 1.0f)
// the result is exactly +-1. Fit error 2.1e-8; evaluated in float (Horner, all
// coefficients positive so nothing cancels) the max abs error over a dense sweep
// is about 3.5e-7, mostly from rounding near erf = 1. NaN stays NaN.

#if defined(ATTNRT_KERNELS_HWY_ERF_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_ERF_INL_H_
#undef ATTNRT_KERNELS_HWY_ERF_INL_H_
#else
#define ATTNRT_KERNELS_HWY_ERF_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

// c5 s^5 + c4 s^4 + ... + c0 in Horner form, highest coefficient first.
template <class D, class V>
HWY_INLINE V HornerDegree5(D d, V s, float c5, float c4, float c3, float c2, float c1, float c0) {
  V r = hn::Set(d, c5);
  r = hn::MulAdd(r, s, hn::Set(d, c4));
  r = hn::MulAdd(r, s, hn::Set(d, c3));
  r = hn::MulAdd(r, s, hn::Set(d, c2));
  r = hn::MulAdd(r, s, hn::Set(d, c1));
  return hn::MulAdd(r, s, hn::Set(d, c0));
}

template <class D, class V>
HWY_INLINE V ErfFloat(D d, V x) {
  const V s = hn::Mul(x, x);
  const V p = HornerDegree5(d, s, 1.97470649e-06f, 0.000288031646f, 0.00400363747f,
                            0.0534674712f, 0.196250111f, 1.12837899f);
  const V q = HornerDegree5(d, s, 3.74790434e-05f, 0.00121633883f, 0.0154444315f,
                            0.116476744f, 0.507253289f, 1.0f);
  const V rational = hn::Div(hn::Mul(x, p), q);
  // Exactly +-1 from 4 on (so GELU gives exactly x and 0 there, even where Div is
  // a refined reciprocal estimate as on ARMv7); also discards the inf/inf of huge x.
  const auto saturated = hn::Ge(hn::Abs(x), hn::Set(d, 4.0f));
  return hn::IfThenElse(saturated, hn::CopySign(hn::Set(d, 1.0f), x), rational);
}

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_ERF_INL_H_
