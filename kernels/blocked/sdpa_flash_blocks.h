// The flash algorithm: online-softmax attention over key tiles
// (FlashAttention-style), written once for every SIMD family. hwy-flash and
// xsimd-flash-* are this driver with Highway's or xsimd's tile table
// (SdpaTileOps); the table is called once per tile.
//
// One work item = (batch, query head, block of up to kFlashRows queries). The
// block's queries are packed once, transposed and pre-scaled (Qt: E x ldq), so
// key tiles need no packing of K at all: scores come out key-major,
//   St[j][r] = k_j . q_r * scale     (qk_tile with keys as rows, Qt as panel),
// and every softmax step is a vertical vector op over queries (no horizontal
// reductions). Then O[r] += sum_j St[j][r] * V[j] with the key-major P read
// through a stride. Scores never outlive a tile, so scratch depends only on E,
// Ev and the tile sizes, never on L or S.
// Traffic per tile (E = Ev = 64, 64 x 64): K and V tiles, 32 KiB, stream from
// L2 once per query block; Qt (16 KiB), St (16 KiB) and O (16 KiB) stay in L1/L2;
// 2 * 64 * 64 * 64 FMAs per tile, so about 16 FMAs per byte of K/V streamed.
// Causal and window: tiles above the diagonal or before the window for the whole
// block are never touched, and only the tiles the diagonal or the window's edge
// cut are masked (every tile when a mask, ALiBi or softcap needs each score). A
// sink only changes the final normalization (OutputScale).
// Typed KV cache (f16 / q8): each K tile is widened (ops.widen_rows, q8 scales
// applied) into a keys x E f32 tile `kw` and V straight into vt, once per tile;
// the tile's 2 * rows * 64 * (E + Ev) FMAs then run as for f32. The widening is
// about 1/rows of that work, and K/V stream at their stored size.
#pragma once

#include <cstddef>

#include "kernels/blocked/sdpa_blocks.h"
#include "kernels/blocked/sdpa_mask.h"
#include "attnrt/kernels/sdpa_params.h"
#include "kernels/blocked/block_scratch.h"
#include "kernels/blocked/sdpa_tile_masks.h"
#include "kernels/blocked/sdpa_tile_ops.h"

namespace attnrt {

constexpr size_t kFlashRows = 64;  // queries per work item
constexpr size_t kFlashKeys = 64;  // keys per tile
constexpr size_t kPrefetchLineFloats = 64 / sizeof(float);

struct FlashLayout {
  size_t ldq, ldv;                    // padded widths: queries (St, Qt rows), values
  size_t ldk;                         // typed KV: width of a widened key row
  size_t qt, vt, st, o, m, l, alpha, kw;  // region offsets in floats (kw: typed KV only)
  size_t qh;    // causal: Qt's two halves of queries, each E x ldq / 2 (0 floats without)
  bool halves;  // the causal call packs qh (ldq / 2 a multiple of the panel width)
  size_t total;
};

inline FlashLayout MakeFlashLayout(size_t panel_width, const SdpaParams& p) {
  FlashLayout f;
  f.ldq = RoundUp(kFlashRows, panel_width);
  f.ldv = RoundUp(p.v_dim == 0 ? 1 : p.v_dim, panel_width);
  f.qt = 0;
  f.vt = f.qt + AlignFloats(p.qk_dim * f.ldq);
  f.st = f.vt + AlignFloats(kFlashKeys * f.ldv);
  f.o = f.st + AlignFloats(kFlashKeys * f.ldq);
  f.m = f.o + AlignFloats(kFlashRows * f.ldv);
  f.l = f.m + AlignFloats(f.ldq);
  f.alpha = f.l + AlignFloats(f.ldq);
  f.kw = f.alpha + AlignFloats(f.ldq);
  // An f32 call needs no widened key tile (and keeps its scratch size).
  f.ldk = p.kv_type == KvType::kF32 ? 0 : AlignFloats(p.qk_dim);
  f.qh = f.kw + AlignFloats(kFlashKeys * f.ldk);
  // Only a causal call has tiles the diagonal or the window cuts (see FlashBlock), but
  // the scratch size must not depend on the causal rule: a model plans its attention
  // before a run says whether it is causal (ModelInput::causal), so the halves are
  // sized whenever the block geometry allows them.
  const bool halves_fit = f.ldq == kFlashRows && (f.ldq / 2) % panel_width == 0;
  f.halves = p.causal != CausalKind::kNone && halves_fit;
  f.total = f.qh + (halves_fit ? p.qk_dim * f.ldq : 0);
  return f;
}

// Work item `item`: one block of queries; scratch holds MakeFlashLayout(...).total floats.
ATTNRT_SDPA_DRIVER void FlashBlock(const SdpaTileOps& ops, const SdpaParams& p, size_t item,
                                   float* scratch) {
  const BlockOperands in = BlockOperandsAt(p, kFlashRows, item);
  const size_t i0 = in.block.first_row, rows = in.block.rows;
  const FlashLayout f = MakeFlashLayout(ops.panel_width, p);
  float* qt = scratch + f.qt;
  float* vt = scratch + f.vt;
  float* st = scratch + f.st;
  float* o = scratch + f.o;
  float* m = scratch + f.m;
  float* l = scratch + f.l;
  float* alpha = scratch + f.alpha;

  PackTransposed(in.q, p.q_strides.row, rows, p.qk_dim, f.ldq, p.scale, qt);
  // Cut tiles: keys that only the first or only the last half of a full block's
  // queries may see get their scores from that half of Qt alone (qh: the first
  // half's E x half panel, then the second's); the mask then hides the other half.
  const size_t half = f.ldq / 2;
  const bool halves = f.halves && rows == f.ldq;
  float* qh = scratch + f.qh;
  if (halves) {
    for (size_t e = 0; e < p.qk_dim; ++e) {
      for (size_t c = 0; c < half; ++c) {
        qh[e * half + c] = qt[e * f.ldq + c];
        qh[(p.qk_dim + e) * half + c] = qt[e * f.ldq + half + c];
      }
    }
  }
  ZeroFloats(o, rows * f.ldv);
  for (size_t r = 0; r < f.ldq; ++r) {
    m[r] = kMaskedScore;
    l[r] = 0.0f;
  }
  // Keys the first query may see from and the last query may see up to bound the
  // tiles worth visiting: a window hides every tile before the block's first
  // visible key, so windowed attention visits O(L * W) scores.
  const size_t key_begin = VisibleKeyBegin(p, i0);
  const size_t key_end = CausalVisibleKeys(p, i0 + rows - 1);
  // Tiles no row's causal limit or window cuts skip any masking unless a mask or a
  // score transform needs every score; decided once per call.
  const bool fast_transform = FastScoreTransform(p);
  const bool elementwise = NeedsElementwiseScores(p) && !fast_transform;
  const size_t first_row_end = CausalVisibleKeys(p, i0);
  const size_t last_row_begin = VisibleKeyBegin(p, i0 + rows - 1);
  // The next block's query rows stream from memory once per block; with few tiles
  // per block (a window) their misses cost about as much as a tile. Their lines are
  // prefetched during this block's tiles, a share per tile.
  const float* next_q = nullptr;
  size_t next_lines = 0;
  if (item + 1 < QueryBlockCount(p, kFlashRows) && p.q_strides.row == p.qk_dim) {
    const BlockOperands next = BlockOperandsAt(p, kFlashRows, item + 1);
    next_q = next.q;
    next_lines = next.block.rows * p.qk_dim / kPrefetchLineFloats;
  }
  const size_t tiles = key_end > key_begin ? (key_end - key_begin + kFlashKeys - 1) / kFlashKeys : 1;
  const size_t share = (next_lines + tiles - 1) / tiles;
  size_t prefetched = 0;
  // Typed KV: key 0 of (b, g) in bytes, and q8's scales of key 0.
  const bool typed = p.kv_type != KvType::kF32;
  const size_t elem = p.kv_type == KvType::kF16 ? 2 : 1;
  const size_t k_row = p.k_strides.row, v_row = p.v_strides.row;
  const size_t k_scale_row = p.k_scale_strides.row, v_scale_row = p.v_scale_strides.row;
  float* kw = scratch + f.kw;
  const char* k_data = nullptr;
  const char* v_data = nullptr;
  const float* k_scales = nullptr;
  const float* v_scales = nullptr;
  if (typed && key_begin < key_end) {  // the pointers may be null when nothing is read
    k_data = static_cast<const char*>(p.k_data) + in.k_offset * elem;
    v_data = static_cast<const char*>(p.v_data) + in.v_offset * elem;
    if (p.kv_type == KvType::kQ8) {
      const size_t b = in.block.batch, g = in.kv_head;
      k_scales = p.k_scales + b * p.k_scale_strides.batch + g * p.k_scale_strides.head;
      v_scales = p.v_scales + b * p.v_scale_strides.batch + g * p.v_scale_strides.head;
    }
  }
  for (size_t j0 = key_begin; j0 < key_end; j0 += kFlashKeys) {
    const size_t keys = MinSize(kFlashKeys, key_end - j0);
    for (const size_t stop = MinSize(prefetched + share, next_lines); prefetched < stop; ++prefetched) {
      __builtin_prefetch(next_q + prefetched * kPrefetchLineFloats);
    }
    const float* kp = kw;  // the tile's key rows
    size_t ldk = f.ldk;
    if (!typed) {
      kp = in.k + j0 * k_row;
      ldk = k_row;
    } else {
      ops.widen_rows(p.kv_type, k_data + j0 * k_row * elem, k_row,
                     k_scales == nullptr ? nullptr : k_scales + j0 * k_scale_row, k_scale_row,
                     keys, p.qk_dim, f.ldk, kw);
    }
    // A tile the diagonal or the window's edge cuts: some queries see only part of it.
    const bool cut = first_row_end < j0 + keys || last_row_begin > j0;
    if (!(cut && halves)) {
      ops.qk_tile(kp, ldk, keys, qt, f.ldq, p.qk_dim, 1.0f, st, f.ldq);
    } else {
      // 16 keys at a time: the rows [r_lo, r_hi) that may see any of keys [a, b).
      const long long top = DiagonalKey(p, i0);
      // A window this wide hides nothing from a block (and stays far from overflow).
      const long long w = static_cast<long long>(
          p.window == 0 ? p.q_len + p.kv_len + kFlashRows
                        : MinSize(p.window, p.q_len + p.kv_len + kFlashRows));
      for (size_t a = 0; a < keys; a += 16) {
        const size_t b = MinSize(a + 16, keys);
        const long long r_lo = static_cast<long long>(j0 + a) - top;
        const long long r_hi = static_cast<long long>(j0 + b - 1) - top + w;
        if (r_hi <= 0 || r_lo >= static_cast<long long>(rows)) continue;  // all hidden
        if (r_hi <= static_cast<long long>(half)) {
          ops.qk_tile(kp + a * ldk, ldk, b - a, qh, half, p.qk_dim, 1.0f, st + a * f.ldq, f.ldq);
        } else if (r_lo >= static_cast<long long>(half)) {
          ops.qk_tile(kp + a * ldk, ldk, b - a, qh + p.qk_dim * half, half, p.qk_dim, 1.0f,
                      st + a * f.ldq + half, f.ldq);
        } else {
          ops.qk_tile(kp + a * ldk, ldk, b - a, qt, f.ldq, p.qk_dim, 1.0f, st + a * f.ldq, f.ldq);
        }
      }
    }
    if (elementwise) {
      MaskKeyMajorTile(p, in.block.batch, in.block.head, i0, rows, j0, keys, st, f.ldq);
    } else {
      if (fast_transform) TransformKeyMajorTile(p, in.block.head, i0, rows, j0, keys, st, f.ldq);
      if (cut) MaskKeyMajorTileBand(p, i0, j0, keys, st, f.ldq);
    }
    ops.flash_update(st, keys, f.ldq, rows, m, l, alpha, o, f.ldv);
    if (typed) {
      ops.widen_rows(p.kv_type, v_data + j0 * v_row * elem, v_row,
                     v_scales == nullptr ? nullptr : v_scales + j0 * v_scale_row, v_scale_row,
                     keys, p.v_dim, f.ldv, vt);
    } else {
      ops.pack_values(in.v + j0 * p.v_strides.row, p.v_strides.row, keys, p.v_dim, f.ldv, vt);
    }
    if (!cut) {
      ops.pv_tile(st, 1, f.ldq, rows, vt, f.ldv, keys, o, f.ldv);
      continue;
    }
    // A cut tile: each group of 4 queries accumulates only the keys the causal rule
    // and the window leave any of them (the others' probabilities are exactly 0),
    // about half the tile on the diagonal and at the window's start.
    for (size_t r = 0; r < rows; r += 4) {
      const size_t n = MinSize(4, rows - r);
      const size_t lo = MaxSize(VisibleKeyBegin(p, i0 + r), j0);
      const size_t hi = MinSize(CausalVisibleKeys(p, i0 + r + n - 1), j0 + keys);
      if (lo >= hi) continue;
      ops.pv_tile(st + (lo - j0) * f.ldq + r, 1, f.ldq, n, vt + (lo - j0) * f.ldv, f.ldv,
                  hi - lo, o + r * f.ldv, f.ldv);
    }
  }
  const float* sink = SinkOf(p, in.block.head);
  for (size_t r = 0; r < rows; ++r) {
    // A query that never saw an allowed key has l == 0: its output stays zero.
    const float inv = OutputScale(m[r], l[r], sink);
    ops.scale_copy(o + r * f.ldv, p.v_dim, inv, in.out + r * p.out_strides.row);
  }
}

ATTNRT_SDPA_DRIVER void RunFlashBlocks(const SdpaTileOps& ops, const SdpaParams& p,
                                       size_t begin, size_t end, float* scratch) {
  for (size_t item = begin; item < end; ++item) FlashBlock(ops, p, item, scratch);
}

}  // namespace attnrt
