// The activations of the form x * sigmoid(z(x)), float-only (no double helpers, so the
// SCALAR target on Cortex-M needs nothing beyond single-precision FPU ops):
//   SiLU                          z = x
//   GELU, approximate='tanh'      z = 2 sqrt(2/pi) (x + 0.044715 x^3), since
//                                 0.5 x (1 + tanh(z / 2)) = x * sigmoid(z)
// The sigmoid comes from e = e^-|z|, which lies in [0, 1] and so stays inside
// ExpSoftmax's range whatever x is: 1 / (1 + e) for z >= 0 and e / (1 + e) for z < 0,
// no cancellation on either side (the literal 1 + tanh cancels for negative x: torch's
// float formula gives -0 from about x = -5.2 down). Below z = -87 e is exactly 0, so
// the result is x * 0 = -0 (true |value| under 2e-36 for either activation); at
// x = -inf it is -inf * 0 = NaN and at +inf it is +inf, as torch's formulas give; NaN
// stays NaN (its e is NaN).

#if defined(ATTNRT_KERNELS_HWY_SIGMOID_ACTIVATIONS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_SIGMOID_ACTIVATIONS_INL_H_
#undef ATTNRT_KERNELS_HWY_SIGMOID_ACTIVATIONS_INL_H_
#else
#define ATTNRT_KERNELS_HWY_SIGMOID_ACTIVATIONS_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/exp-inl.h"
#include "kernels/hwy/float_pair-inl.h"

ATTNRT_HWY_BEGIN

// x * sigmoid(z) from e = e^-|z| and the lanes where z (which has x's sign) is negative.
template <class D, class V, class M>
HWY_INLINE V TimesSigmoid(D d, V x, V e, M z_negative) {
  const V one = hn::Set(d, 1.0f);
  const V r = hn::Div(one, hn::Add(one, e));
  return hn::Mul(x, hn::IfThenElse(z_negative, hn::Mul(e, r), r));
}

// silu(x) = x * sigmoid(x); relative error a few 1e-7. torch's float x / (1 + e^-x)
// gives -0 from -88.7 on, where e^-x overflows.
template <class D, class V>
HWY_INLINE V Silu(D d, V x) {
  return TimesSigmoid(d, x, ExpSoftmax(d, hn::Neg(hn::Abs(x))), hn::Lt(x, hn::Zero(d)));
}

// 2 sqrt(2/pi) and 2 sqrt(2/pi) * 0.044715, each as a float pair hi + lo.
constexpr float kGeluTanhK1Hi = 1.595769167e+00f;
constexpr float kGeluTanhK1Lo = -4.534068054e-08f;
constexpr float kGeluTanhK3Hi = 7.135481387e-02f;
constexpr float kGeluTanhK3Lo = 2.398832466e-09f;
// From |x| = 16 on (z = 318) e is 0 and the sigmoid exactly 0 or 1 in float; clamping
// there keeps x^3 and the float pairs finite.
constexpr float kGeluTanhClamp = 16.0f;

// gelu_tanh(x) = x * sigmoid(z), z = k1 x + k3 x^3. For x < 0 the result is x e / (1 + e)
// with e = e^-|z|, |z| up to 87: a relative error d in z becomes |z| d in the result, so
// z in plain float (rounded 4-5 times) gave 1.2e-5 near x = -9. z is therefore carried
// as a float pair (float_pair-inl.h), and e = e^z_hi * (1 + z_lo). Relative error about
// 4e-7 over every float x whose |result| >= 1e-36 (above the -0 edge at x = -10).
template <class D, class V>
HWY_INLINE V GeluTanh(D d, V x) {
  const V limit = hn::Set(d, kGeluTanhClamp);
  // Compare + select, so NaN passes through (Min/Max differ for NaN between targets).
  V xc = hn::IfThenElse(hn::Gt(x, limit), limit, x);
  xc = hn::IfThenElse(hn::Lt(xc, hn::Neg(limit)), hn::Neg(limit), xc);
  // s = x^2, q = k1 + k3 s, z = x q, each hi + lo; the lo parts' own rounding is
  // 2^-24 of a correction, negligible.
  V s_lo, t_lo, q_lo, z_lo;
  const V s = TwoProduct(d, xc, xc, &s_lo);
  const V k3 = hn::Set(d, kGeluTanhK3Hi);
  const V t = TwoProduct(d, k3, s, &t_lo);
  t_lo = hn::Add(t_lo, hn::MulAdd(k3, s_lo, hn::Mul(hn::Set(d, kGeluTanhK3Lo), s)));
  const V q = TwoSum(hn::Set(d, kGeluTanhK1Hi), t, &q_lo);
  q_lo = hn::Add(q_lo, hn::Add(t_lo, hn::Set(d, kGeluTanhK1Lo)));
  const V z = TwoProduct(d, xc, q, &z_lo);
  z_lo = hn::MulAdd(xc, q_lo, z_lo);
  // -|z| = -|z_hi| - sign(z) z_lo; z has the sign of x.
  const auto negative = hn::Lt(x, hn::Zero(d));
  const V minus_abs_hi = hn::IfThenElse(negative, z, hn::Neg(z));
  const V minus_abs_lo = hn::IfThenElse(negative, z_lo, hn::Neg(z_lo));
  // e^lo = 1 + lo + O(1e-11), |lo| < 2e-5; 1 + lo rounds to 6e-8 of e. Not e + e * lo:
  // below x = -9.2 e * lo is subnormal, and ARMv7 NEON flushes it to zero (1.2e-5 there).
  const V e = hn::Mul(ExpSoftmax(d, minus_abs_hi), hn::Add(hn::Set(d, 1.0f), minus_abs_lo));
  return TimesSigmoid(d, x, e, negative);
}

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_SIGMOID_ACTIVATIONS_INL_H_
