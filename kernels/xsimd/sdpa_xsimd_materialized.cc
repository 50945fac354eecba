// xsimd-materialized-*: scores for a block of queries against all keys, one
// fused softmax pass per row, then P.V; the algorithm of hwy-materialized
// (kernels/hwy/sdpa_materialized.cc) driving one ISA's xsimd tile table. Returns
// the attention weights.
//
// One work item = (batch, query head, block of kMatRows queries). Scratch holds
// the block's kMatRows x S score rows (kMatRows * S * 4 bytes: 256 KiB at
// S = 2048), so it grows with S; prefer flash when weights are not wanted.
// Causal: key tiles above the diagonal for the whole block are skipped in both
// QK^T and P.V, and each row's softmax runs only over the keys it may see.
#include "attnrt/kernels/sdpa_blocks.h"
#include "kernels/xsimd/sdpa_xsimd_block.h"
#include "kernels/xsimd/sdpa_xsimd_variants.h"

namespace attnrt {
namespace {

using namespace xsimd_sdpa;

constexpr size_t kMatRows = 32;  // queries per work item
constexpr size_t kMatKeys = 64;  // keys per packed tile (a multiple of every panel width)

struct MaterializedLayout {
  size_t ldk, ldv, lds;
  size_t kt, vt, s, o;
  size_t total;
};

MaterializedLayout MakeMaterializedLayout(const XsimdSdpaOps& ops, const SdpaParams& p) {
  MaterializedLayout f;
  f.ldk = RoundUp(kMatKeys, ops.panel_width);
  f.ldv = RoundUp(p.v_dim == 0 ? 1 : p.v_dim, ops.panel_width);
  f.lds = RoundUp(p.kv_len == 0 ? 1 : p.kv_len, f.ldk);
  f.kt = 0;
  f.vt = f.kt + AlignFloats(p.qk_dim * f.ldk);
  f.s = f.vt + AlignFloats(kMatKeys * f.ldv);
  f.o = f.s + AlignFloats(kMatRows * f.lds);
  f.total = f.o + AlignFloats(kMatRows * f.ldv);
  return f;
}

void MaterializedBlock(const XsimdSdpaOps& ops, const SdpaParams& p, const QueryBlock& qb,
                       const MaterializedLayout& f, float* scratch) {
  const size_t b = qb.batch, h = qb.head, i0 = qb.first_row, rows = qb.rows;
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
    const size_t keys = MinSize(kMatKeys, p.kv_len - j0);
    ops.pack_keys_transposed(k + j0 * p.k_strides.row, p.k_strides.row, keys, p.qk_dim, f.ldk,
                             kt);
    ops.qk_tile(q, p.q_strides.row, rows, kt, f.ldk, p.qk_dim, p.scale, s + j0, f.lds);
  }
  for (size_t r = 0; r < rows; ++r) {
    const size_t i = i0 + r;
    const size_t visible = CausalVisibleKeys(p, i);
    float* srow = s + r * f.lds;
    if (p.mask_kind != MaskKind::kNone) MaskRow(p, b, h, i, 0, visible, srow);
    float* w = p.weights == nullptr ? nullptr
                                    : p.weights + b * p.weights_strides.batch +
                                          h * p.weights_strides.head + i * p.weights_strides.row;
    // Keys from `visible` up to `key_end` (what QK^T filled) get probability 0.
    ops.softmax_row(srow, visible, key_end, w, p.kv_len);
  }
  ZeroFloats(o, rows * f.ldv);
  for (size_t j0 = 0; j0 < key_end; j0 += kMatKeys) {
    // Within the block's visible range, rows that see fewer keys have P = 0 there.
    const size_t keys = MinSize(kMatKeys, key_end - j0);
    ops.pack_values(v + j0 * p.v_strides.row, p.v_strides.row, keys, p.v_dim, f.ldv, vt);
    ops.pv_tile(s + j0, f.lds, 1, rows, vt, f.ldv, keys, o, f.ldv);
  }
  float* out = p.out + b * p.out_strides.batch + h * p.out_strides.head + i0 * p.out_strides.row;
  for (size_t r = 0; r < rows; ++r) {
    ops.scale_copy(o + r * f.ldv, p.v_dim, 1.0f, out + r * p.out_strides.row);
  }
}

}  // namespace

size_t XsimdMaterializedScratchFloats(const XsimdSdpaOps& ops, const SdpaParams& p) {
  return MakeMaterializedLayout(ops, p).total;
}

size_t XsimdMaterializedWorkItems(const SdpaParams& p) { return QueryBlockCount(p, kMatRows); }

void XsimdMaterializedRun(const XsimdSdpaOps& ops, const SdpaParams& p, size_t begin,
                          size_t end, float* scratch) {
  const MaterializedLayout f = MakeMaterializedLayout(ops, p);
  for (size_t item = begin; item < end; ++item) {
    MaterializedBlock(ops, p, QueryBlockAt(p, kMatRows, item), f, scratch);
  }
}

}  // namespace attnrt
