// f16 -> f32 on the 4 lanes of an MVE (Helium) vector without VCVTB/VCVTT.
//
// Why not VCVTB.F32.F16: the GNU assembler of Debian 12's arm-none-eabi toolchain
// (binutils 2.40, with GCC 12.2) encodes it wrongly for some register pairs (bit 4 set:
// objdump itself shows "UNDEFINED" and QEMU's M55 raises a UsageFault), and where the
// encoding looked valid the f16 Linear was wrong under QEMU. Integer steps instead, and
// no float arithmetic on subnormals (QEMU's MVE flushes them to zero, as the standard FP
// status of Advanced SIMD does):
//   em = |h| bits; normal: (em << 13) + (112 << 23), rebiasing the exponent;
//   inf, NaN (em >= 0x7C00): once more + (112 << 23), so the exponent field is 255 (the
//   NaN payload stays); subnormal, zero (em < 0x400): em * 2^-24 by VCVT.F32.U32 with
//   24 fraction bits (exact: em < 2^10); the sign: bit 31 of h sign-extended (VLDRH.S32).
// Ten vector instructions per 4 values. Exact for all 65536 inputs (tests/firmware/
// linear_fw checks every one against F16ToF32).
#pragma once

#include "attnrt/kernels/helium.h"

#if ATTNRT_HELIUM
#include <arm_mve.h>

#include <cstdint>

namespace attnrt {
namespace helium {

// `h`: f16 bit patterns sign-extended to 32 bits (VLDRH.S32).
inline float32x4_t F16ToF32Mve(int32x4_t h) {
  const uint32x4_t hu = vreinterpretq_u32_s32(h);
  const uint32x4_t em = vandq_u32(hu, vdupq_n_u32(0x7FFFu));
  uint32x4_t normal = vaddq_n_u32(vshlq_n_u32(em, 13), 112u << 23);
  normal = vaddq_m_n_u32(normal, normal, 112u << 23, vcmpcsq_n_u32(em, 0x7C00u));
  const uint32x4_t subnormal = vreinterpretq_u32_f32(vcvtq_n_f32_u32(em, 24));
  const uint32x4_t magnitude = vpselq_u32(normal, subnormal, vcmpcsq_n_u32(em, 0x400u));
  return vreinterpretq_f32_u32(vorrq_u32(magnitude, vandq_u32(hu, vdupq_n_u32(0x80000000u))));
}

}  // namespace helium
}  // namespace attnrt

#endif  // ATTNRT_HELIUM
