// The xsimd SDPA tile operations for x86-64 AVX-512 (16 floats per vector), with
// xsimd's avx512f architecture, whose 8.1 code also uses AVX512DQ instructions.
// Built with -mavx512f -mavx512dq (kernels/xsimd/CMakeLists.txt) and reached only
// when the CPU and OS support both (CpuHasAvx512); this file holds nothing but
// the table, see sdpa_xsimd_ops.h.
#if !defined(__AVX512F__) || !defined(__AVX512DQ__)
#error "sdpa_xsimd_avx512.cc must be compiled with -mavx512f -mavx512dq"
#endif

#include "kernels/xsimd/sdpa_xsimd_tiles.h"

namespace attnrt {

extern const SdpaTileOps kXsimdSdpaOpsAvx512 =
    xsimd_tiles::SdpaTiles<xsimd::avx512f>::MakeOps("AVX512");

}  // namespace attnrt
