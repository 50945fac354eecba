// The constants of the float-only e^x that the vectorized softmaxes share
// (Highway's ExpSoftmax in ../hwy/exp-inl.h, Helium's ExpMve in ../helium/exp_mve.h).
//
// e^x = 2^n * e^r with n = round(x * log2(e)) and r = x - n*ln2, |r| <= ln2/2, where
// ln2 = kLn2Hi + kLn2Lo (Cody-Waite: kLn2Hi has 9 significant bits, so n * kLn2Hi is
// exact for every n the softmax meets). e^r is the degree-5 polynomial below, fitted
// for minimum relative error on [-ln2/2, ln2/2] (Lawson's iteratively reweighted least
// squares): 9.5e-8 before float rounding, about 1.6e-7 after, against 2.5e-7 for a
// degree-6 Taylor series with one multiply-add more. Each family keeps its own clamp
// and rounding, which depend on its instructions.
#pragma once

namespace attnrt {
namespace exp_polynomial {

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;

// For the families that round n by a float addition (Highway, xsimd): t = x * log2(e)
// + kRoundMagic leaves round(x * log2(e)) in the low mantissa bits of t, so n needs no
// float -> int conversion. Inputs below kUnderflowBelow (n < -126, where 2^n would
// not be a normal float) return exactly 0: their true values are below FLT_MIN.
constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23
constexpr float kUnderflowBelow = -87.0f;

// e^r ~ ((((kC5 r + kC4) r + kC3) r + kC2) r + kC1) r + kC0, evaluated by Horner.
constexpr float kC5 = 8.290302940e-03f;
constexpr float kC4 = 4.189792275e-02f;
constexpr float kC3 = 1.666763574e-01f;
constexpr float kC2 = 4.999915063e-01f;
constexpr float kC1 = 9.999997020e-01f;
constexpr float kC0 = 1.0f;

}  // namespace exp_polynomial
}  // namespace attnrt
