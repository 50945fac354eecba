// Which of the xsimd family's instruction sets this CPU can run, detected at run
// time. Compiled without ISA flags, so it is safe to call on any CPU of the
// architecture the build targets.
#pragma once

namespace attnrt {

// x86-64: AVX2 and FMA (the xsimd fma3<avx2> architecture).
bool CpuHasAvx2Fma();
// x86-64: AVX-512F and DQ (every AVX-512 core since Skylake-SP), with AVX2 and
// FMA, and OS support for the 512-bit state.
bool CpuHasAvx512();
// AArch64: Advanced SIMD, part of the AArch64 baseline.
bool CpuHasNeon();

}  // namespace attnrt
