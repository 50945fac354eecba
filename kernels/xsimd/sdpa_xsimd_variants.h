// The two xsimd SDPA drivers, each usable with any ISA's tile table; the
// SdpaKernel entries (sdpa_xsimd_kernels.cc) bind them to a table.
#pragma once

#include <cstddef>

#include "attnrt/kernels/sdpa_params.h"
#include "kernels/xsimd/sdpa_xsimd_ops.h"

namespace attnrt {

// Flash: online softmax over key tiles; scratch independent of L and S.
size_t XsimdFlashScratchFloats(const XsimdSdpaOps& ops, const SdpaParams& p);
size_t XsimdFlashWorkItems(const SdpaParams& p);
void XsimdFlashRun(const XsimdSdpaOps& ops, const SdpaParams& p, size_t begin, size_t end,
                   float* scratch);

// Materialized: a block's full score rows, fused softmax, then P.V; returns weights.
size_t XsimdMaterializedScratchFloats(const XsimdSdpaOps& ops, const SdpaParams& p);
size_t XsimdMaterializedWorkItems(const SdpaParams& p);
void XsimdMaterializedRun(const XsimdSdpaOps& ops, const SdpaParams& p, size_t begin,
                          size_t end, float* scratch);

}  // namespace attnrt
