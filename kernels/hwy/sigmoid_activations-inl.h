// The activations of the form x * sigmoid(z(x)), float-only (no double helpers, so the
// SCALAR target on Cortex-M needs nothing beyond single-precision FPU ops); today SiLU,
// z = x.
// The sigmoid comes from e = e^-|z|, which lies in [0, 1] and so stays inside
// ExpSoftmax's range whatever x is: 1 / (1 + e) for z >= 0 and e / (1 + e) for z < 0,
// no cancellation on either side. Below z = -87 e is exactly 0, so the result is
// x * 0 = -0 (true |value| under 2e-36); at x = -inf it is -inf * 0 = NaN and at +inf
// it is +inf, as torch's formula gives; NaN stays NaN (its e is NaN).

#if defined(ATTNRT_KERNELS_HWY_SIGMOID_ACTIVATIONS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_SIGMOID_ACTIVATIONS_INL_H_
#undef ATTNRT_KERNELS_HWY_SIGMOID_ACTIVATIONS_INL_H_
#else
#define ATTNRT_KERNELS_HWY_SIGMOID_ACTIVATIONS_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/hwy/exp-inl.h"

HWY_BEFORE_NAMESPACE();
namespace attnrt {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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

}  // namespace HWY_NAMESPACE
}  // namespace attnrt
HWY_AFTER_NAMESPACE();

#endif  // ATTNRT_KERNELS_HWY_SIGMOID_ACTIVATIONS_INL_H_
