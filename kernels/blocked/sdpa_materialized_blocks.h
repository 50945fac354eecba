// The materialized algorithm: scores for a block of queries against all keys,
// one fused softmax pass per row, then P.V; the variant that returns the
// attention weights. Written once for every SIMD family: hwy-materialized and
// xsimd-materialized-* are this driver with Highway's or xsimd's tile table
// (SdpaTileOps), called once per tile or row.
//
// One work item = (batch, query head, block of kMatRows queries). Scratch holds
// the block's kMatRows x S score rows (kMatRows * S * 4 bytes: 256 KiB at
// S = 2048), so it grows with S; prefer flash when weights are not wanted.
// Causal and window: key tiles above the diagonal or before the window for the
// whole block are skipped in both QK^T and P.V, and each row's softmax runs only
// over the keys it may see. Weights include every variant (sdpa_params.h).
#pragma once

#include <cmath>
#include <cstddef>

#include "kernels/blocked/sdpa_blocks.h"
#include "attnrt/kernels/sdpa_params.h"
#include "kernels/blocked/block_scratch.h"
#include "kernels/blocked/sdpa_tile_masks.h"
#include "kernels/blocked/sdpa_tile_ops.h"

namespace attnrt {

constexpr size_t kMatRows = 32;  // queries per work item
// Keys per packed tile. A multiple of every panel width (Highway's are capped at
// 32 floats, tile_row-inl.h; xsimd's are at most 32): the tiles step by kMatKeys
// while QK^T writes ldk floats from each tile's first key.
constexpr size_t kMatKeys = 64;

struct MaterializedLayout {
  size_t ldk, ldv, lds;  // padded widths: key tile, values, score rows
  size_t kt, vt, s, o;   // region offsets in floats
  size_t total;
};

inline MaterializedLayout MakeMaterializedLayout(size_t panel_width, const SdpaParams& p) {
  MaterializedLayout f;
  f.ldk = RoundUp(kMatKeys, panel_width);
  f.ldv = RoundUp(p.v_dim == 0 ? 1 : p.v_dim, panel_width);
  f.lds = RoundUp(p.kv_len == 0 ? 1 : p.kv_len, f.ldk);
  f.kt = 0;
  f.vt = f.kt + AlignFloats(p.qk_dim * f.ldk);
  f.s = f.vt + AlignFloats(kMatKeys * f.ldv);
  f.o = f.s + AlignFloats(kMatRows * f.lds);
  f.total = f.o + AlignFloats(kMatRows * f.ldv);
  return f;
}

// Fused max, exp, sum and normalize over one (already scaled and masked) score
// row s[0 .. visible); s[visible .. computed) (what QK^T filled beyond the row's
// causal limit) gets probability 0. A dead row (RowIsDead: max -inf, every score
// masked) becomes all zeros, written directly: its scores are -inf, and neither
// exp(-inf - -inf) nor -inf * 0 may run; a sink does not revive it. A NaN or +inf
// score makes exp(s - max), the sum and so the whole row NaN. A sink logit (nullptr
// = none) joins the denominator as exp(sink - top), top = max(max, sink), which
// keeps every exponential in range.
ATTNRT_SDPA_DRIVER void SoftmaxRow(const SdpaTileOps& ops, float* s, size_t visible,
                                   size_t computed, const float* sink) {
  const float max = ops.row_max(s, visible);
  if (RowIsDead(max, s, visible)) {
    ZeroFloats(s, computed);
    return;
  }
  if (sink == nullptr) {
    ops.scale_copy(s, visible, 1.0f / ops.exp_row_and_sum(s, visible, max), s);
  } else {
    const float top = *sink > max ? *sink : max;
    const float sum = ops.exp_row_and_sum(s, visible, top) + std::exp(*sink - top);
    ops.scale_copy(s, visible, 1.0f / sum, s);
  }
  ZeroFloats(s + visible, computed - visible);
}

// The weights row of a query whose probabilities p cover keys [first, visible)
// (p[0] is key `first`), out of kv_len. Hidden keys get 0, except in a NaN row:
// PyTorch's softmax gives NaN for every key there, masked ones included
// (exp(-inf - NaN)).
inline void WriteWeightsRow(const float* probabilities, size_t first, size_t visible,
                            size_t kv_len, float* weights_row) {
  for (size_t j = first; j < visible; ++j) weights_row[j] = probabilities[j - first];
  const bool nan_row = visible > first && probabilities[0] != probabilities[0];
  const float hidden = nan_row ? probabilities[0] : 0.0f;
  for (size_t j = 0; j < first && j < kv_len; ++j) weights_row[j] = hidden;
  for (size_t j = visible > first ? visible : first; j < kv_len; ++j) weights_row[j] = hidden;
}

// Work item `item`: one block of queries; scratch holds
// MakeMaterializedLayout(...).total floats.
ATTNRT_SDPA_DRIVER void MaterializedBlock(const SdpaTileOps& ops, const SdpaParams& p,
                                          size_t item, float* scratch) {
  const BlockOperands in = BlockOperandsAt(p, kMatRows, item);
  const size_t b = in.block.batch, h = in.block.head, i0 = in.block.first_row;
  const size_t rows = in.block.rows;
  const MaterializedLayout f = MakeMaterializedLayout(ops.panel_width, p);
  float* kt = scratch + f.kt;
  float* s = scratch + f.s;

  // Scores of the block's rows for every key tile some row may see: from the tile
  // of the first row's first visible key (a window hides the ones before it; tiles
  // stay on kMatKeys boundaries so that vector tails stay inside a score row) to the
  // last row's causal limit.
  const size_t key_end = CausalVisibleKeys(p, i0 + rows - 1);
  const size_t key_begin = MinSize(VisibleKeyBegin(p, i0) / kMatKeys * kMatKeys, key_end);
  for (size_t j0 = key_begin; j0 < key_end; j0 += kMatKeys) {
    const size_t keys = MinSize(kMatKeys, p.kv_len - j0);
    PackTransposed(in.k + j0 * p.k_strides.row, p.k_strides.row, keys, p.qk_dim, f.ldk, 1.0f, kt);
    ops.qk_tile(in.q, p.q_strides.row, rows, kt, f.ldk, p.qk_dim, p.scale, s + j0, f.lds);
  }
  const bool fast_transform = FastScoreTransform(p);
  const bool elementwise = NeedsElementwiseScores(p) && !fast_transform;
  const float* sink = SinkOf(p, h);
  for (size_t r = 0; r < rows; ++r) {
    const size_t i = i0 + r;
    const size_t visible = MaxSize(CausalVisibleKeys(p, i), key_begin);
    const size_t first = MinSize(MaxSize(VisibleKeyBegin(p, i), key_begin), visible);
    float* srow = s + r * f.lds;
    // Keys before the row's window (within the computed tiles) weigh 0.
    for (size_t j = key_begin; j < first; ++j) srow[j] = kMaskedScore;
    if (elementwise) MaskRow(p, b, h, i, first, visible - first, srow + first);
    if (fast_transform) TransformRow(p, h, i, first, visible - first, srow + first);
    // Keys from `visible` up to `key_end` (what QK^T filled) get probability 0.
    SoftmaxRow(ops, srow + key_begin, visible - key_begin, key_end - key_begin, sink);
    float* weights_row = WeightsRowAt(p, b, h, i);
    if (weights_row != nullptr) {
      WriteWeightsRow(srow + key_begin, key_begin, visible, p.kv_len, weights_row);
    }
  }
  float* vt = scratch + f.vt;
  float* o = scratch + f.o;
  ZeroFloats(o, rows * f.ldv);
  for (size_t j0 = key_begin; j0 < key_end; j0 += kMatKeys) {
    // Within the block's visible range, rows that see fewer keys have P = 0 there.
    const size_t keys = MinSize(kMatKeys, key_end - j0);
    ops.pack_values(in.v + j0 * p.v_strides.row, p.v_strides.row, keys, p.v_dim, f.ldv, vt);
    ops.pv_tile(s + j0, f.lds, 1, rows, vt, f.ldv, keys, o, f.ldv);
  }
  for (size_t r = 0; r < rows; ++r) {
    ops.scale_copy(o + r * f.ldv, p.v_dim, 1.0f, in.out + r * p.out_strides.row);
  }
}

ATTNRT_SDPA_DRIVER void RunMaterializedBlocks(const SdpaTileOps& ops, const SdpaParams& p,
                                              size_t begin, size_t end, float* scratch) {
  for (size_t item = begin; item < end; ++item) MaterializedBlock(ops, p, item, scratch);
}

}  // namespace attnrt
