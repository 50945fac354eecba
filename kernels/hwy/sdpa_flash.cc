// hwy-flash: online-softmax attention over key tiles (FlashAttention-style).
//
// One work item = (batch, query head, block of up to kFlashRows queries). The
// block's queries are packed once, transposed and pre-scaled (Qt: E x rows), so
// each key tile needs no packing of K at all: scores come out key-major,
//   St[j][r] = k_j . q_r * scale     (QKTile with keys as rows, Qt as panel),
// and every softmax step is a vertical vector op over queries (no horizontal
// reductions). Then O[r] += sum_j St[j][r] * V[j] with the key-major P read
// through a stride. Scores never outlive a tile, so scratch depends only on E,
// Ev and the tile sizes, never on L or S.
// Traffic per tile (E = Ev = 64, 64 x 64): K and V tiles, 32 KiB, stream from
// L2 once per query block; Qt (16 KiB), St (16 KiB) and O (16 KiB) stay in L1/L2;
// 2 * 64 * 64 * 64 FMAs per tile, so about 16 FMAs per byte of K/V streamed.
// Causal: tiles above the diagonal for the whole block are never touched, and
// the diagonal tiles are masked with vector compares.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/sdpa_flash.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "attnrt/kernels/sdpa_blocks.h"
#include "kernels/hwy/sdpa_tiles-inl.h"

HWY_BEFORE_NAMESPACE();
namespace attnrt {
namespace HWY_NAMESPACE {

constexpr size_t kFlashRows = 64;  // queries per work item
constexpr size_t kFlashKeys = 64;  // keys per tile

struct FlashLayout {
  size_t ldq, ldv;                // padded widths: queries (St, Qt rows), values
  size_t qt, vt, st, o, m, l, alpha;  // region offsets in floats
  size_t total;
};

FlashLayout MakeFlashLayout(const SdpaParams& p) {
  FlashLayout f;
  f.ldq = RoundUp(kFlashRows, PanelWidth());
  f.ldv = RoundUp(p.v_dim == 0 ? 1 : p.v_dim, PanelWidth());
  f.qt = 0;
  f.vt = f.qt + AlignFloats(p.qk_dim * f.ldq);
  f.st = f.vt + AlignFloats(kFlashKeys * f.ldv);
  f.o = f.st + AlignFloats(kFlashKeys * f.ldq);
  f.m = f.o + AlignFloats(kFlashRows * f.ldv);
  f.l = f.m + AlignFloats(f.ldq);
  f.alpha = f.l + AlignFloats(f.ldq);
  f.total = f.alpha + AlignFloats(f.ldq);
  return f;
}

size_t FlashScratchFloats(const SdpaParams& p) { return MakeFlashLayout(p).total; }

size_t FlashWorkItems(const SdpaParams& p) { return QueryBlockCount(p, kFlashRows); }

// Explicit masks (and the causal rule with them) on a key-major tile: scalar,
// one ApplyMask per element, like every variant does for masks.
HWY_INLINE void MaskTileScalar(const SdpaParams& p, size_t b, size_t h, size_t i0, size_t rows,
                               size_t j0, size_t keys, float* HWY_RESTRICT st, size_t ldq) {
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* mask_row = MaskRowBytes(p, b, h, i0 + r);
    for (size_t j = 0; j < keys; ++j) {
      st[j * ldq + r] = ApplyMask(p, mask_row, i0 + r, j0 + j, st[j * ldq + r]);
    }
  }
}

// The causal rule alone on a tile the diagonal cuts: key j is hidden from query
// i when i < j - offset; vector compares over the queries of each key row.
HWY_INLINE void MaskTileCausal(const SdpaParams& p, size_t i0, size_t j0, size_t keys,
                               float* HWY_RESTRICT st, size_t ldq) {
  const DF d;
  const hn::RebindToSigned<DF> di;
  const size_t N = hn::Lanes(d);
  const auto masked = hn::Set(d, kMaskedScore);
  const long long offset = CausalOffset(p);
  for (size_t j = 0; j < keys; ++j) {
    const long long first_query = static_cast<long long>(j0 + j) - offset;
    if (first_query <= static_cast<long long>(i0)) continue;  // whole row visible
    const auto limit = hn::Set(di, static_cast<int32_t>(first_query - static_cast<long long>(i0)));
    float* HWY_RESTRICT row = st + j * ldq;
    for (size_t r = 0; r < ldq; r += N) {
      const auto hidden = hn::RebindMask(d, hn::Lt(hn::Iota(di, static_cast<int32_t>(r)), limit));
      hn::Store(hn::IfThenElse(hidden, masked, hn::Load(d, row + r)), d, row + r);
    }
  }
}

// Online-softmax update for every query of the block, vectorized over queries:
// new running max m, rescale factor alpha = exp(m_old - m_new), probabilities
// exp(s - m_new) written back into St, running sum l = l * alpha + sum(p).
// A query that has seen no allowed key keeps m = kMaskedScore and gets p = 0.
HWY_INLINE void SoftmaxColumns(float* HWY_RESTRICT st, size_t keys, size_t ldq,
                               float* HWY_RESTRICT m, float* HWY_RESTRICT l,
                               float* HWY_RESTRICT alpha) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto threshold = hn::Set(d, kDeadRowThreshold);
  for (size_t r = 0; r < ldq; r += N) {
    auto tile_max = hn::Set(d, kMaskedScore);
    for (size_t j = 0; j < keys; ++j) tile_max = hn::Max(tile_max, hn::Load(d, st + j * ldq + r));
    const auto m_old = hn::Load(d, m + r);
    const auto m_new = hn::Max(m_old, tile_max);
    const auto a = ExpSoftmax(d, hn::Sub(m_old, m_new));
    // Subtracting 0 for dead queries turns their kMaskedScore scores into exp(-1e30) = 0.
    const auto m_use = hn::IfThenZeroElse(hn::Le(m_new, threshold), m_new);
    auto sum = hn::Zero(d);
    for (size_t j = 0; j < keys; ++j) {
      float* HWY_RESTRICT s = st + j * ldq + r;
      const auto e = ExpSoftmax(d, hn::Sub(hn::Load(d, s), m_use));
      hn::Store(e, d, s);
      sum = hn::Add(sum, e);
    }
    hn::Store(m_new, d, m + r);
    hn::Store(hn::MulAdd(hn::Load(d, l + r), a, sum), d, l + r);
    hn::Store(a, d, alpha + r);
  }
}

void FlashBlock(const SdpaParams& p, size_t b, size_t h, size_t i0, size_t rows,
                const FlashLayout& f, float* HWY_RESTRICT scratch) {
  const size_t g = h / (p.q_heads / p.kv_heads);
  const float* q = p.q + b * p.q_strides.batch + h * p.q_strides.head + i0 * p.q_strides.row;
  const float* k = p.k + b * p.k_strides.batch + g * p.k_strides.head;
  const float* v = p.v + b * p.v_strides.batch + g * p.v_strides.head;
  float* qt = scratch + f.qt;
  float* vt = scratch + f.vt;
  float* st = scratch + f.st;
  float* o = scratch + f.o;
  float* m = scratch + f.m;
  float* l = scratch + f.l;
  float* alpha = scratch + f.alpha;

  PackQueriesTransposed(q, p.q_strides.row, rows, p.qk_dim, f.ldq, p.scale, qt);
  ZeroFloats(o, rows * f.ldv);
  for (size_t r = 0; r < f.ldq; ++r) {
    m[r] = kMaskedScore;
    l[r] = 0.0f;
  }
  // Keys the last query of the block may see bound the tiles worth visiting.
  const size_t key_end = CausalVisibleKeys(p, i0 + rows - 1);
  for (size_t j0 = 0; j0 < key_end; j0 += kFlashKeys) {
    const size_t keys = HWY_MIN(kFlashKeys, key_end - j0);
    QKTile(k + j0 * p.k_strides.row, p.k_strides.row, keys, qt, f.ldq, p.qk_dim, 1.0f, st,
           f.ldq);
    if (p.mask_kind != MaskKind::kNone) {
      MaskTileScalar(p, b, h, i0, rows, j0, keys, st, f.ldq);
    } else if (CausalVisibleKeys(p, i0) < j0 + keys) {
      MaskTileCausal(p, i0, j0, keys, st, f.ldq);
    }
    SoftmaxColumns(st, keys, f.ldq, m, l, alpha);
    for (size_t r = 0; r < rows; ++r) {
      if (alpha[r] != 1.0f) ScaleRow(o + r * f.ldv, f.ldv, alpha[r]);
    }
    PackValues(v + j0 * p.v_strides.row, p.v_strides.row, keys, p.v_dim, f.ldv, vt);
    PVTile(st, 1, f.ldq, rows, vt, f.ldv, keys, o, f.ldv);
  }
  float* out = p.out + b * p.out_strides.batch + h * p.out_strides.head + i0 * p.out_strides.row;
  for (size_t r = 0; r < rows; ++r) {
    // A query that never saw an allowed key has l == 0: its output stays zero.
    const float inv = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
    ScaleCopy(o + r * f.ldv, p.v_dim, inv, out + r * p.out_strides.row);
  }
}

void FlashRun(const SdpaParams& p, size_t begin, size_t end, float* scratch) {
  const FlashLayout f = MakeFlashLayout(p);
  for (size_t item = begin; item < end; ++item) {
    const QueryBlock qb = QueryBlockAt(p, kFlashRows, item);
    FlashBlock(p, qb.batch, qb.head, qb.first_row, qb.rows, f, scratch);
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
