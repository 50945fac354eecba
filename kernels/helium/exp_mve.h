// e^x on the 4 float lanes of an MVE (Helium) vector, float-only: no double, no libm.
//
// The softmax of helium-flash runs it once per 4 scores. Method and polynomial:
// ../blocked/exp_polynomial.h; n = round(x * log2(e)) by VCVTN, which rounds to
// nearest, so no magic-number trick is needed. Max relative error 1.6e-7 over
// [-87, 88) on the M55 (sdpa_fw checks it).
// Domain: x <= 88, or NaN. Small inputs are clamped at -88, where n = -127 makes the
// exponent field 0, so 2^n and the result are exactly 0: from x < -87.68 on (true values
// < 9e-39, below FLT_MIN) e^x is 0, which is how -inf (the masked score of the
// kernels, kMaskedScore) and scores far below the max vanish. The clamp is a compare and select, not VMAXNM, so a NaN
// stays NaN (VMAXNM would return -88 for it): PyTorch's softmax makes a row with a NaN
// or +inf score NaN, and exp(NaN) = NaN carries that. There is no upper clamp: the
// softmax only passes x <= 0 (a score minus the running max) or NaN (inf - inf).
#pragma once

#include "attnrt/kernels/helium.h"

#if ATTNRT_HELIUM
#include <arm_mve.h>

#include "kernels/blocked/exp_polynomial.h"

namespace attnrt {
namespace helium {

inline float32x4_t ExpMve(float32x4_t x) {
  using namespace exp_polynomial;
  constexpr float kLower = -88.0f;  // n >= -127: exponent field n + 127 >= 0
  // Written as kLower > x: MVE's float LT and LE hold for unordered operands (they test
  // N != V, as the A32 condition codes do), GT and GE do not, so NaN keeps x.
  const float32x4_t lower = vdupq_n_f32(kLower);
  const float32x4_t xc = vpselq_f32(lower, x, vcmpgtq_f32(lower, x));
  const int32x4_t n = vcvtnq_s32_f32(vmulq_n_f32(xc, kLog2e));  // NaN -> 0; r and p stay NaN
  const float32x4_t nf = vcvtq_f32_s32(n);
  float32x4_t r = vfmaq_n_f32(xc, nf, -kLn2Hi);  // xc - n * kLn2Hi, exact
  r = vfmaq_n_f32(r, nf, -kLn2Lo);
  // Horner with the coefficient as the scalar operand: VFMAS q = q * r + c.
  float32x4_t p = vdupq_n_f32(kC5);
  p = vfmasq_n_f32(p, r, kC4);
  p = vfmasq_n_f32(p, r, kC3);
  p = vfmasq_n_f32(p, r, kC2);
  p = vfmasq_n_f32(p, r, kC1);
  p = vfmasq_n_f32(p, r, kC0);
  const float32x4_t two_to_n = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_n_s32(n, 127), 23));
  return vmulq_f32(p, two_to_n);
}

// e^x of one float through lane 0 (the softmax rescale factor, once per key tile).
inline float ExpMveScalar(float x) { return vgetq_lane_f32(ExpMve(vdupq_n_f32(x)), 0); }

}  // namespace helium
}  // namespace attnrt

#endif  // ATTNRT_HELIUM
