// hwy-materialized: scores for a block of queries against all keys, one fused
// softmax pass per row, then P.V. The only variant (besides the reference) that
// returns the attention weights.
//
// One work item = (batch, query head, block of kRows queries). Scratch holds the
// block's kRows x S score rows (kRows * S * 4 bytes: 256 KiB at S = 2048), so
// it grows with S; prefer hwy-flash when weights are not wanted.
// Causal: key tiles above the diagonal for the whole block are skipped in both
// QK^T and P.V, and each row's softmax runs only over the keys it may see.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/sdpa_materialized.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "attnrt/kernels/sdpa_blocks.h"
#include "kernels/hwy/sdpa_tiles-inl.h"

HWY_BEFORE_NAMESPACE();
namespace attnrt {
namespace HWY_NAMESPACE {

constexpr size_t kMatRows = 32;  // queries per work item
constexpr size_t kMatKeys = 64;  // keys per packed tile (a multiple of every PanelWidth)

struct MaterializedLayout {
  size_t ldk, ldv, lds;
  size_t kt, vt, s, o;
  size_t total;
};

MaterializedLayout MakeMaterializedLayout(const SdpaParams& p) {
  MaterializedLayout f;
  f.ldk = RoundUp(kMatKeys, PanelWidth());
  f.ldv = RoundUp(p.v_dim == 0 ? 1 : p.v_dim, PanelWidth());
  f.lds = RoundUp(p.kv_len == 0 ? 1 : p.kv_len, f.ldk);
  f.kt = 0;
  f.vt = f.kt + AlignFloats(p.qk_dim * f.ldk);
  f.s = f.vt + AlignFloats(kMatKeys * f.ldv);
  f.o = f.s + AlignFloats(kMatRows * f.lds);
  f.total = f.o + AlignFloats(kMatRows * f.ldv);
  return f;
}

size_t MaterializedScratchFloats(const SdpaParams& p) { return MakeMaterializedLayout(p).total; }

size_t MaterializedWorkItems(const SdpaParams& p) { return QueryBlockCount(p, kMatRows); }

// Fused mask, max, exp, sum and normalize over one (already scaled) score row;
// writes the weights row when asked. Keys from `visible` (the causal limit) up
// to `computed` (what QK^T filled for the block) get probability 0.
HWY_INLINE void SoftmaxRow(const SdpaParams& p, size_t b, size_t h, size_t i, size_t visible,
                           size_t computed, float* HWY_RESTRICT s, float* weights_row) {
  if (p.mask_kind != MaskKind::kNone) MaskRow(p, b, h, i, 0, visible, s);
  const float max = RowMax(s, visible);
  const bool dead = max <= kDeadRowThreshold;
  const float sum = dead ? 0.0f : ExpRowAndSum(s, visible, max);
  const float inv = dead ? 0.0f : 1.0f / sum;
  ScaleCopy(s, visible, inv, s);
  ZeroFloats(s + visible, computed - visible);
  if (weights_row != nullptr) {
    ScaleCopy(s, visible, 1.0f, weights_row);
    ZeroFloats(weights_row + visible, p.kv_len - visible);
  }
}

void MaterializedBlock(const SdpaParams& p, size_t b, size_t h, size_t i0, size_t rows,
                       const MaterializedLayout& f, float* HWY_RESTRICT scratch) {
  const size_t g = h / (p.q_heads / p.kv_heads);
  const float* q = p.q + b * p.q_strides.batch + h * p.q_strides.head + i0 * p.q_strides.row;
  const float* k = p.k + b * p.k_strides.batch + g * p.k_strides.head;
  const float* v = p.v + b * p.v_strides.batch + g * p.v_strides.head;
  float* kt = scratch + f.kt;
  float* vt = scratch + f.vt;
  float* s = scratch + f.s;
  float* o = scratch + f.o;

  const size_t key_end = CausalVisibleKeys(p, i0 + rows - 1);
  for (size_t j0 = 0; j0 < key_end; j0 += kMatKeys) {
    const size_t keys = HWY_MIN(kMatKeys, p.kv_len - j0);
    PackKeysTransposed(k + j0 * p.k_strides.row, p.k_strides.row, keys, p.qk_dim, f.ldk, kt);
    QKTile(q, p.q_strides.row, rows, kt, f.ldk, p.qk_dim, p.scale, s + j0, f.lds);
  }
  for (size_t r = 0; r < rows; ++r) {
    float* w = p.weights == nullptr ? nullptr
                                    : p.weights + b * p.weights_strides.batch +
                                          h * p.weights_strides.head +
                                          (i0 + r) * p.weights_strides.row;
    SoftmaxRow(p, b, h, i0 + r, CausalVisibleKeys(p, i0 + r), key_end, s + r * f.lds, w);
  }
  ZeroFloats(o, rows * f.ldv);
  for (size_t j0 = 0; j0 < key_end; j0 += kMatKeys) {
    // Within the block's visible range, rows that see fewer keys have P = 0 there.
    const size_t keys = HWY_MIN(kMatKeys, key_end - j0);
    PackValues(v + j0 * p.v_strides.row, p.v_strides.row, keys, p.v_dim, f.ldv, vt);
    PVTile(s + j0, f.lds, 1, rows, vt, f.ldv, keys, o, f.ldv);
  }
  float* out = p.out + b * p.out_strides.batch + h * p.out_strides.head + i0 * p.out_strides.row;
  for (size_t r = 0; r < rows; ++r) {
    ScaleCopy(o + r * f.ldv, p.v_dim, 1.0f, out + r * p.out_strides.row);
  }
}

void MaterializedRun(const SdpaParams& p, size_t begin, size_t end, float* scratch) {
  const MaterializedLayout f = MakeMaterializedLayout(p);
  for (size_t item = begin; item < end; ++item) {
    const QueryBlock qb = QueryBlockAt(p, kMatRows, item);
    MaterializedBlock(p, qb.batch, qb.head, qb.first_row, qb.rows, f, scratch);
  }
}

const char* MaterializedIsa() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace attnrt
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/hwy/sdpa_export.h"

namespace attnrt {
ATTNRT_EXPORT_HWY_SDPA_KERNEL(Materialized, kSdpaHwyMaterialized, "hwy-materialized", true)
}  // namespace attnrt
#endif  // HWY_ONCE
