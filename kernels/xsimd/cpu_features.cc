// Run-time detection of the xsimd family's instruction sets (see cpu_features.h).
// On x86 GCC's and clang's __builtin_cpu_supports read CPUID and, for AVX and
// AVX-512, check through XGETBV that the OS saves the wider registers.
#include "kernels/xsimd/cpu_features.h"

namespace attnrt {

#if defined(__x86_64__) || defined(__i386__)

bool CpuHasAvx2Fma() {
  __builtin_cpu_init();  // safe to repeat; needed if called before static constructors ran
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

bool CpuHasAvx512() {
  return CpuHasAvx2Fma() && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512dq");
}

bool CpuHasNeon() { return false; }

#elif defined(__aarch64__)

bool CpuHasAvx2Fma() { return false; }
bool CpuHasAvx512() { return false; }
bool CpuHasNeon() { return true; }

#else

bool CpuHasAvx2Fma() { return false; }
bool CpuHasAvx512() { return false; }
bool CpuHasNeon() { return false; }

#endif

}  // namespace attnrt
