// The xsimd SDPA tile operations for x86-64 AVX2 + FMA. Built with -mavx2 -mfma
// (kernels/xsimd/CMakeLists.txt) and reached only when the CPU has both
// (CpuHasAvx2Fma); this file holds nothing but the table, see sdpa_xsimd_ops.h.
#if !defined(__AVX2__) || !defined(__FMA__)
#error "sdpa_xsimd_avx2.cc must be compiled with -mavx2 -mfma"
#endif

#include "kernels/xsimd/sdpa_xsimd_tiles.h"

namespace attnrt {

extern const SdpaTileOps kXsimdSdpaOpsAvx2 =
    xsimd_tiles::SdpaTiles<xsimd::fma3<xsimd::avx2>>::MakeOps("AVX2");

}  // namespace attnrt
