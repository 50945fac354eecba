// The SdpaKernel entries of the xsimd family: {materialized, flash} x each ISA
// built for this architecture, named xsimd-<variant>-<isa>, each the shared
// blocked driver (kernels/blocked/) bound to one ISA's tile table. Compiled
// without ISA flags: available() asks the CPU (cpu_features.h) before any ISA
// code runs, and the drivers' inline code is safe on any CPU.
#include "kernels/blocked/sdpa_blocks.h"
#include "attnrt/kernels/sdpa_kernel.h"
#include "kernels/blocked/sdpa_flash_blocks.h"
#include "kernels/blocked/sdpa_materialized_blocks.h"
#include "kernels/xsimd/cpu_features.h"
#include "kernels/xsimd/sdpa_xsimd_ops.h"

namespace attnrt {
namespace {

size_t FlashItems(const SdpaParams& p) { return QueryBlockCount(p, kFlashRows); }

size_t MaterializedItems(const SdpaParams& p) { return QueryBlockCount(p, kMatRows); }

// Plain functions bound to one ISA table, as SdpaKernel's function pointers need.
template <const SdpaTileOps& Ops>
struct BoundTo {
  static const char* Isa() { return Ops.isa; }
  static size_t FlashScratch(const SdpaParams& p) {
    return MakeFlashLayout(Ops.panel_width, p).total;
  }
  static void FlashRun(const SdpaParams& p, size_t begin, size_t end, float* scratch, float*) {
    RunFlashBlocks(Ops, p, begin, end, scratch);
  }
  static size_t MaterializedScratch(const SdpaParams& p) {
    return MakeMaterializedLayout(Ops.panel_width, p).total;
  }
  static void MaterializedRun(const SdpaParams& p, size_t begin, size_t end, float* scratch,
                              float*) {
    RunMaterializedBlocks(Ops, p, begin, end, scratch);
  }
};

template <const SdpaTileOps& Ops>
constexpr SdpaKernel FlashKernel(const char* name, bool (*available)()) {
  return MakeSdpaKernel({name, SdpaAlgorithm::kFlash, SdpaFamily::kXsimd, false, false},
                        {&BoundTo<Ops>::Isa, available, &BoundTo<Ops>::FlashScratch, &FlashItems,
                         &BoundTo<Ops>::FlashRun});
}

template <const SdpaTileOps& Ops>
constexpr SdpaKernel MaterializedKernel(const char* name, bool (*available)()) {
  return MakeSdpaKernel({name, SdpaAlgorithm::kMaterialized, SdpaFamily::kXsimd, true, false},
                        {&BoundTo<Ops>::Isa, available, &BoundTo<Ops>::MaterializedScratch,
                         &MaterializedItems, &BoundTo<Ops>::MaterializedRun});
}

}  // namespace

#if defined(ATTNRT_XSIMD_X86)
extern const SdpaKernel kSdpaXsimdMaterializedAvx2 =
    MaterializedKernel<kXsimdSdpaOpsAvx2>("xsimd-materialized-avx2", CpuHasAvx2Fma);
extern const SdpaKernel kSdpaXsimdFlashAvx2 =
    FlashKernel<kXsimdSdpaOpsAvx2>("xsimd-flash-avx2", CpuHasAvx2Fma);
extern const SdpaKernel kSdpaXsimdMaterializedAvx512 =
    MaterializedKernel<kXsimdSdpaOpsAvx512>("xsimd-materialized-avx512", CpuHasAvx512);
extern const SdpaKernel kSdpaXsimdFlashAvx512 =
    FlashKernel<kXsimdSdpaOpsAvx512>("xsimd-flash-avx512", CpuHasAvx512);
#endif

#if defined(ATTNRT_XSIMD_NEON)
extern const SdpaKernel kSdpaXsimdMaterializedNeon =
    MaterializedKernel<kXsimdSdpaOpsNeon>("xsimd-materialized-neon", CpuHasNeon);
extern const SdpaKernel kSdpaXsimdFlashNeon =
    FlashKernel<kXsimdSdpaOpsNeon>("xsimd-flash-neon", CpuHasNeon);
#endif

}  // namespace attnrt
