// xsimd-flash-*: online-softmax attention over key tiles, the algorithm of
// hwy-flash (kernels/hwy/sdpa_flash.cc) driving one ISA's xsimd tile table.
//
// One work item = (batch, query head, block of kFlashRows queries). For each key
// tile of kFlashKeys keys: pack K^T and V (zero padded), scores for the block,
// mask where needed, per row update the running max and sum and rescale the
// accumulator, then acc += P.V. Scratch depends only on E, Ev and the tile sizes.
// Traffic per tile: the K and V tiles (kFlashKeys * (E + Ev) floats, 32 KiB at
// E = Ev = 64) come from L2 once per query block and are reused kFlashRows times.
// Causal: tiles entirely above the diagonal for the block are never touched.
#include "kernels/xsimd/sdpa_xsimd_packing.h"
#include "kernels/xsimd/sdpa_xsimd_variants.h"

namespace attnrt {
namespace {

using namespace xsimd_sdpa;

constexpr size_t kFlashRows = 64;  // queries per work item
constexpr size_t kFlashKeys = 64;  // keys per tile (a multiple of every panel width)

struct FlashLayout {
  size_t ldk, ldv;            // padded tile widths
  size_t kt, vt, s, o, m, l;  // region offsets in floats
  size_t total;
};

FlashLayout MakeFlashLayout(const XsimdSdpaOps& ops, const SdpaParams& p) {
  FlashLayout f;
  f.ldk = RoundUp(kFlashKeys, ops.panel_width);
  f.ldv = RoundUp(p.v_dim == 0 ? 1 : p.v_dim, ops.panel_width);
  f.kt = 0;
  f.vt = f.kt + AlignFloats(p.qk_dim * f.ldk);
  f.s = f.vt + AlignFloats(kFlashKeys * f.ldv);
  f.o = f.s + AlignFloats(kFlashRows * f.ldk);
  f.m = f.o + AlignFloats(kFlashRows * f.ldv);
  f.l = f.m + AlignFloats(kFlashRows);
  f.total = f.l + AlignFloats(kFlashRows);
  return f;
}

void FlashBlock(const XsimdSdpaOps& ops, const SdpaParams& p, const QueryBlock& blk,
                const FlashLayout& f, float* scratch) {
  const size_t b = blk.b, h = blk.h, i0 = blk.i0, rows = blk.rows;
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
    const size_t keys = MinSize(kFlashKeys, p.kv_len - j0);
    PackKeysTransposed(k + j0 * p.k_strides.row, p.k_strides.row, keys, p.qk_dim, f.ldk, kt);
    PackValues(v + j0 * p.v_strides.row, p.v_strides.row, keys, p.v_dim, f.ldv, vt);
    ops.qk_tile(q, p.q_strides.row, rows, kt, f.ldk, p.qk_dim, p.scale, s, f.ldk);
    // The causal rule cuts this tile for the block's first row, or a mask is set.
    if (p.mask_kind != MaskKind::kNone || CausalVisibleKeys(p, i0) < j0 + keys) {
      for (size_t r = 0; r < rows; ++r) MaskRow(p, b, h, i0 + r, j0, keys, s + r * f.ldk);
    }
    ops.flash_update(s, f.ldk, rows, keys, m, l, o, f.ldv);
    ops.pv_tile(s, f.ldk, rows, vt, f.ldv, keys, o, f.ldv);
  }
  float* out = p.out + b * p.out_strides.batch + h * p.out_strides.head + i0 * p.out_strides.row;
  for (size_t r = 0; r < rows; ++r) {
    // A row that never saw an allowed key has l == 0: it stays all zeros.
    const float inv = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
    ops.scale_copy(o + r * f.ldv, p.v_dim, inv, out + r * p.out_strides.row);
  }
}

}  // namespace

size_t XsimdFlashScratchFloats(const XsimdSdpaOps& ops, const SdpaParams& p) {
  return MakeFlashLayout(ops, p).total;
}

size_t XsimdFlashWorkItems(const SdpaParams& p) { return QueryBlockCount(p, kFlashRows); }

void XsimdFlashRun(const XsimdSdpaOps& ops, const SdpaParams& p, size_t begin, size_t end,
                   float* scratch) {
  const FlashLayout f = MakeFlashLayout(ops, p);
  for (size_t item = begin; item < end; ++item) {
    FlashBlock(ops, p, QueryBlockOf(p, item, kFlashRows), f, scratch);
  }
}

}  // namespace attnrt
