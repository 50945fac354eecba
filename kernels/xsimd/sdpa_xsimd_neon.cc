// The xsimd SDPA tile operations for AArch64 NEON (Advanced SIMD, 4 floats per
// vector), which every AArch64 Linux CPU has, so no extra flags are needed; see
// sdpa_xsimd_ops.h.
#if !defined(__aarch64__)
#error "sdpa_xsimd_neon.cc is for AArch64 only"
#endif

#include "kernels/xsimd/sdpa_xsimd_tiles.h"

namespace attnrt {

extern const SdpaTileOps kXsimdSdpaOpsNeon =
    xsimd_tiles::SdpaTiles<xsimd::neon64>::MakeOps("NEON");

}  // namespace attnrt
