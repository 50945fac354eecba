// The per-ISA tile tables of the xsimd SDPA family (SdpaTileOps, the contract
// in kernels/blocked/sdpa_tile_ops.h).
//
// Why a table of functions instead of whole kernels per ISA: each ISA's file is
// compiled with that ISA's flags (-mavx2 -mfma, -mavx512f, ...). Any inline
// function with external linkage that such a file emits out of line (a helper
// from sdpa_params.h, sdpa_mask.h or the standard library, especially in debug
// builds) may be the copy the linker keeps for the whole program, and would then
// execute AVX-512 instructions on a CPU without them. So the ISA files contain
// only the tile operations (templates on the xsimd architecture, whose symbols
// are unique per ISA) and export one table; the loops over work items, causal
// limits and masks are the shared blocked drivers (kernels/blocked/), run from
// an ordinary file (sdpa_xsimd_kernels.cc), which call through the table once
// per tile.
#pragma once

#include "kernels/blocked/sdpa_tile_ops.h"

namespace attnrt {

// Defined only where built (see kernels/xsimd/CMakeLists.txt): x86-64 has the
// AVX2 and AVX-512 tables, AArch64 the NEON one.
extern const SdpaTileOps kXsimdSdpaOpsAvx2;
extern const SdpaTileOps kXsimdSdpaOpsAvx512;
extern const SdpaTileOps kXsimdSdpaOpsNeon;

}  // namespace attnrt
