// hwy-materialized: scores for a block of queries against all keys, one fused
// softmax pass per row, then P.V. The only variant (besides the reference) that
// returns the attention weights.
//
// The algorithm, its blocks, scratch layout, causal limits and masks are the
// shared materialized driver (kernels/blocked/sdpa_materialized_blocks.h); this
// file binds it to Highway's tile operations (sdpa_tiles-inl.h), compiled for
// every target, and dispatches each call to the best target the CPU supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/sdpa_materialized.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "kernels/blocked/sdpa_blocks.h"
#include "kernels/blocked/sdpa_materialized_blocks.h"
#include "kernels/hwy/sdpa_tiles-inl.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

// The driver steps through keys kMatKeys at a time while QK^T fills whole panels
// (ldk = kMatKeys rounded up to the panel width): a panel wider than a tile wrote
// past the last tile of a score row into the next row's scores (2048-bit SVE,
// before DF was capped at kMaxFloatLanes).
static_assert(kMatKeys % (2 * kMaxFloatLanes) == 0, "key tiles are whole panels");

size_t MaterializedScratchFloats(const SdpaParams& p) {
  return MakeMaterializedLayout(PanelWidth(), p).total;
}

size_t MaterializedWorkItems(const SdpaParams& p) { return QueryBlockCount(p, kMatRows); }

void MaterializedRun(const SdpaParams& p, size_t begin, size_t end, float* scratch) {
  RunMaterializedBlocks(TileOps(), p, begin, end, scratch);
}

const char* MaterializedIsa() { return hwy::TargetName(HWY_TARGET); }

ATTNRT_HWY_END

#if HWY_ONCE
#include "kernels/hwy/sdpa_export.h"

namespace attnrt {
ATTNRT_EXPORT_HWY_SDPA_KERNEL(Materialized, kSdpaHwyMaterialized, "hwy-materialized", kMaterialized, true, false)
}  // namespace attnrt
#endif  // HWY_ONCE
