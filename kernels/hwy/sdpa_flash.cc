// hwy-flash: online-softmax attention over key tiles (FlashAttention-style).
//
// One work item = (batch, query head, block of kRows queries). For each key tile
// of kKeys keys: pack K^T and V (tile-local, zero padded), scores for the block
// (kRows x kKeys), per row update the running max m and sum l, rescale the row's
// accumulator by exp(m_old - m_new), then acc += P . V. Scores are never stored
// beyond one tile, so scratch depends only on E, Ev and the tile sizes.
// Traffic per tile: K and V tiles (kKeys * (E + Ev) floats, 32 KiB at E=Ev=64)
// are read from L2 once per query block and reused kRows times from L1/L2.
// Causal: tiles entirely above the diagonal are never touched.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/sdpa_flash.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "kernels/hwy/sdpa_tiles-inl.h"

HWY_BEFORE_NAMESPACE();
namespace attnrt {
namespace HWY_NAMESPACE {

constexpr size_t kFlashRows = 64;  // queries per work item
constexpr size_t kFlashKeys = 64;  // keys per tile

struct FlashLayout {
  size_t ldk, ldv;               // padded tile widths
  size_t kt, vt, s, o, m, l;     // region offsets in floats
  size_t total;
};

FlashLayout MakeFlashLayout(const SdpaParams& p) {
  FlashLayout f;
  f.ldk = RoundUp(kFlashKeys, PanelWidth());
  f.ldv = RoundUp(p.v_dim == 0 ? 1 : p.v_dim, PanelWidth());
  f.kt = 0;
  f.vt = f.kt + AlignFloats(p.qk_dim * f.ldk);
  f.s = f.vt + AlignFloats(kFlashKeys * f.ldv);
  f.o = f.s + AlignFloats(kFlashRows * f.ldk);
  f.m = f.o + AlignFloats(kFlashRows * f.ldv);
  f.l = f.m + AlignFloats(kFlashRows);
  f.total = f.l + AlignFloats(kFlashRows);
  return f;
}

size_t FlashScratchFloats(const SdpaParams& p) { return MakeFlashLayout(p).total; }

size_t FlashWorkItems(const SdpaParams& p) {
  return p.batch * p.q_heads * ((p.q_len + kFlashRows - 1) / kFlashRows);
}

// Online-softmax update of one row for one tile: masks, rescales the row's
// accumulator, turns scores into unnormalized probabilities (0 when the row has
// seen no allowed key yet).
HWY_INLINE void FlashRowUpdate(float* HWY_RESTRICT s, size_t keys, float* m, float* l,
                               float* HWY_RESTRICT o, size_t ldv) {
  const float m_new = HWY_MAX(*m, RowMax(s, keys));
  if (m_new <= kDeadRowThreshold) {
    ZeroFloats(s, keys);
    return;
  }
  if (m_new > *m) {
    const float alpha = hn::GetLane(hn::Exp(DF(), hn::Set(DF(), *m - m_new)));
    *l *= alpha;
    ScaleRow(o, ldv, alpha);
    *m = m_new;
  }
  *l += ExpRowAndSum(s, keys, m_new);
}

void FlashBlock(const SdpaParams& p, size_t b, size_t h, size_t i0, size_t rows,
                const FlashLayout& f, float* HWY_RESTRICT scratch) {
  const size_t g = h / (p.q_heads / p.kv_heads);
  const float* q = p.q + b * p.q_strides.batch + h * p.q_strides.head + i0 * p.q_strides.row;
  const float* k = p.k + b * p.k_strides.batch + g * p.k_strides.head;
  const float* v = p.v + b * p.v_strides.batch + g * p.v_strides.head;
  float* kt = scratch + f.kt;
  float* vt = scratch + f.vt;
  float* s = scratch + f.s;
  float* o = scratch + f.o;
  float* m = scratch + f.m;
  float* l = scratch + f.l;

  ZeroFloats(o, rows * f.ldv);
  for (size_t r = 0; r < rows; ++r) {
    m[r] = kMaskedScore;
    l[r] = 0.0f;
  }
  // Keys the last row of the block may see bound the tiles worth visiting.
  const size_t key_end = CausalVisibleKeys(p, i0 + rows - 1);
  for (size_t j0 = 0; j0 < key_end; j0 += kFlashKeys) {
    const size_t keys = HWY_MIN(kFlashKeys, p.kv_len - j0);
    PackKeysTransposed(k + j0 * p.k_strides.row, p.k_strides.row, keys, p.qk_dim, f.ldk, kt);
    PackValues(v + j0 * p.v_strides.row, p.v_strides.row, keys, p.v_dim, f.ldv, vt);
    QKTile(q, p.q_strides.row, rows, kt, f.ldk, p.qk_dim, p.scale, s, f.ldk);
    // The causal rule cuts this tile for the block's first row, or a mask is set.
    const bool needs_mask = p.mask_kind != MaskKind::kNone || CausalVisibleKeys(p, i0) < j0 + keys;
    for (size_t r = 0; r < rows; ++r) {
      float* srow = s + r * f.ldk;
      if (needs_mask) MaskRow(p, b, h, i0 + r, j0, keys, srow);
      FlashRowUpdate(srow, keys, m + r, l + r, o + r * f.ldv, f.ldv);
    }
    PVTile(s, f.ldk, rows, vt, f.ldv, keys, o, f.ldv);
  }
  float* out = p.out + b * p.out_strides.batch + h * p.out_strides.head + i0 * p.out_strides.row;
  for (size_t r = 0; r < rows; ++r) {
    // A row that never saw an allowed key has l == 0: it stays all zeros.
    const float inv = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
    ScaleCopy(o + r * f.ldv, p.v_dim, inv, out + r * p.out_strides.row);
  }
}

void FlashRun(const SdpaParams& p, size_t begin, size_t end, float* scratch) {
  const FlashLayout f = MakeFlashLayout(p);
  const size_t blocks = (p.q_len + kFlashRows - 1) / kFlashRows;
  for (size_t item = begin; item < end; ++item) {
    const size_t qb = item % blocks;
    const size_t h = (item / blocks) % p.q_heads;
    const size_t b = item / (blocks * p.q_heads);
    const size_t i0 = qb * kFlashRows;
    FlashBlock(p, b, h, i0, HWY_MIN(kFlashRows, p.q_len - i0), f, scratch);
  }
}

const char* FlashIsa() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace attnrt
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/hwy/sdpa_export.h"

namespace attnrt {
ATTNRT_EXPORT_HWY_SDPA_KERNEL(Flash, kSdpaHwyFlash, "hwy-flash", false)
}  // namespace attnrt
#endif  // HWY_ONCE
