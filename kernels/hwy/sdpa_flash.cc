// hwy-flash: online-softmax attention over key tiles (FlashAttention-style).
//
// The algorithm, its blocks, scratch layout, causal limits and masks are the
// shared flash driver (kernels/blocked/sdpa_flash_blocks.h); this file binds it
// to Highway's tile operations (sdpa_tiles-inl.h), compiled for every target,
// and dispatches each call to the best target the CPU supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/sdpa_flash.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "kernels/blocked/sdpa_blocks.h"
#include "kernels/blocked/sdpa_flash_blocks.h"
#include "kernels/hwy/sdpa_tiles-inl.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

size_t FlashScratchFloats(const SdpaParams& p) { return MakeFlashLayout(PanelWidth(), p).total; }

size_t FlashWorkItems(const SdpaParams& p) { return QueryBlockCount(p, kFlashRows); }

void FlashRun(const SdpaParams& p, size_t begin, size_t end, float* scratch) {
  RunFlashBlocks(TileOps(), p, begin, end, scratch);
}

const char* FlashIsa() { return hwy::TargetName(HWY_TARGET); }

ATTNRT_HWY_END

#if HWY_ONCE
#include "kernels/hwy/sdpa_export.h"

namespace attnrt {
ATTNRT_EXPORT_HWY_SDPA_KERNEL(Flash, kSdpaHwyFlash, "hwy-flash", kFlash, false, true)
}  // namespace attnrt
#endif  // HWY_ONCE
