// e^x for the softmax of the Highway SDPA kernels: float-only, NaN-propagating, the
// same code on every target.
//
// Why not hn::Exp: (1) on the SCALAR target (Cortex-M firmware) Highway 1.0.3's Exp
// rounds through ConvertTo(float -> int32), which range-checks in double: FP64
// instructions in the softmax loop, or soft-float calls on cores without an FP64 unit.
// (2) Its clamp is a Max(x, lower bound), and x86's max returns the bound for a NaN x, so
// a NaN score came out as a tiny positive weight. PyTorch's softmax turns a NaN or +inf
// score into a NaN row, so the kernels need exp(NaN) = NaN (and exp(inf - inf) is NaN).
//
// Method and polynomial: ../blocked/exp_polynomial.h (shared with Helium's ExpMve).
// n is rounded by adding 1.5 * 2^23, which leaves n in the low mantissa bits, so no
// float -> int conversion is needed at all; 2^n by writing n + 127 into the exponent
// bits. Max relative error about 1.6e-7. Inputs below -87 return exactly 0 (their true
// values, < 1.7e-38, are below FLT_MIN), so the kernels' masked scores (kMaskedScore,
// -inf) vanish. Valid up to x = 88 (2^127); the softmax only passes x <= 0 (a score
// minus its row max) or NaN, so there is no upper clamp (one would cost the
// materialized kernel about a sixth of its time). The lower clamp is a compare + select,
// which keeps a NaN, unlike Min/Max, whose NaN handling differs between x86, Arm and
// scalar code.

#if defined(ATTNRT_KERNELS_HWY_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_EXP_INL_H_
#undef ATTNRT_KERNELS_HWY_EXP_INL_H_
#else
#define ATTNRT_KERNELS_HWY_EXP_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/blocked/exp_polynomial.h"

ATTNRT_HWY_BEGIN

template <class D, class V>
HWY_INLINE V ExpSoftmax(D d, V x) {
  using namespace exp_polynomial;
  const hn::RebindToSigned<D> di;
  const V lower = hn::Set(d, kUnderflowBelow);
  const auto underflows = hn::Lt(x, lower);  // false for NaN
  const V xc = hn::IfThenElse(underflows, lower, x);
  const V round_magic = hn::Set(d, kRoundMagic);
  const V t = hn::MulAdd(xc, hn::Set(d, kLog2e), round_magic);
  const V n = hn::Sub(t, round_magic);
  const auto n_int = hn::Sub(hn::BitCast(di, t), hn::BitCast(di, round_magic));
  V r = hn::NegMulAdd(n, hn::Set(d, kLn2Hi), xc);  // exact
  r = hn::NegMulAdd(n, hn::Set(d, kLn2Lo), r);
  V p = hn::Set(d, kC5);
  p = hn::MulAdd(p, r, hn::Set(d, kC4));
  p = hn::MulAdd(p, r, hn::Set(d, kC3));
  p = hn::MulAdd(p, r, hn::Set(d, kC2));
  p = hn::MulAdd(p, r, hn::Set(d, kC1));
  p = hn::MulAdd(p, r, hn::Set(d, kC0));
  // A NaN x gives a NaN r and p; its n_int is garbage, but NaN * 2^n stays NaN.
  const V two_to_n = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n_int, hn::Set(di, 127))));
  return hn::IfThenZeroElse(underflows, hn::Mul(p, two_to_n));
}

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_EXP_INL_H_
