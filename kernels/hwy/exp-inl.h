// e^x for the softmax of the Highway SDPA kernels, float-only on every target.
//
// Why not hn::Exp everywhere: on the SCALAR target (Cortex-M firmware, where Highway has
// no vector target) Highway 1.0.3's Exp rounds through ConvertTo(float -> int32), which
// range-checks in double. That puts FP64 instructions in the softmax loop, or soft-float
// __aeabi_f2d/__aeabi_dcmp* calls on cores without an FP64 unit. SCALAR builds therefore
// use the float-only version below; every other target keeps hn::Exp unchanged.
//
// Float-only method: x = n*ln2 + r with n = round(x / ln2) and |r| <= ln2/2; e^r by
// its Taylor series to r^7 (truncation error < 6e-9 relative), 2^n by writing n + 127
// into the exponent bits. n is rounded by adding 1.5 * 2^23, which leaves n in the low
// mantissa bits, so no float -> int conversion is needed at all. Max relative error
// about 2e-7 (a few ulp of float rounding in the Horner steps). Inputs below -87 return
// exactly 0 (their true values, < 1.7e-38, are below FLT_MIN), so the masked scores of
// the kernels (kMaskedScore) vanish as they do with hn::Exp; inputs are clamped to 88.

#if defined(ATTNRT_KERNELS_HWY_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_EXP_INL_H_
#undef ATTNRT_KERNELS_HWY_EXP_INL_H_
#else
#define ATTNRT_KERNELS_HWY_EXP_INL_H_
#endif

#include "hwy/highway.h"
#if HWY_TARGET != HWY_SCALAR
#include "hwy/contrib/math/math-inl.h"
#endif

HWY_BEFORE_NAMESPACE();
namespace attnrt {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class V>
HWY_INLINE V ExpSoftmax(D d, V x) {
#if HWY_TARGET != HWY_SCALAR
  return hn::Exp(d, x);
#else
  const hn::RebindToSigned<D> di;
  const V lower = hn::Set(d, -87.0f);  // n >= -126: 2^n stays a normal float
  const V upper = hn::Set(d, 88.0f);   // n <= 127
  const V xc = hn::Min(hn::Max(x, lower), upper);
  const V round_magic = hn::Set(d, 12582912.0f);  // 1.5 * 2^23
  const V t = hn::MulAdd(xc, hn::Set(d, 1.44269504088896341f), round_magic);
  const V n = hn::Sub(t, round_magic);
  const auto n_int = hn::Sub(hn::BitCast(di, t), hn::BitCast(di, round_magic));
  // Cody-Waite: ln2 = kLn2Hi + kLn2Lo, kLn2Hi with 9 significant bits so n * kLn2Hi is exact.
  V r = hn::NegMulAdd(n, hn::Set(d, 0.693359375f), xc);
  r = hn::NegMulAdd(n, hn::Set(d, -2.12194440e-4f), r);
  V p = hn::Set(d, 1.0f / 5040.0f);
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 720.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 120.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 24.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 6.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.5f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  const V two_to_n = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n_int, hn::Set(di, 127))));
  return hn::IfThenZeroElse(hn::Lt(x, lower), hn::Mul(p, two_to_n));
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace attnrt
HWY_AFTER_NAMESPACE();

#endif  // ATTNRT_KERNELS_HWY_EXP_INL_H_
