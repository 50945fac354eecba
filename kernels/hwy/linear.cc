// hwy Linear: y = x W^T + bias, W in torch.nn.Linear layout (N x K, row-major).
//
// Work item = (panel of nr output columns, block of kRowsPerItem rows), numbered
// panel-major (the dot path below: a group of 8 output columns): a worker's
// contiguous range of items mostly covers one panel over many rows, so the panel
// is packed once for all of them.
//
// Packed path (M > kDotMaxRows). For each depth block of kc k values: pack
// W^T[kc, panel] into scratch (linear_tiles-inl.h), then sweep the rows with the
// 6 x nr register tile. Traffic per tile, AVX-512 (nr = 32, kc = 256):
//   panel: kc x nr x 4 B = 32 KiB, packed once, then read from L1 by every tile;
//   x: 6 rows x kc x 4 B = 6 KiB per 6 * 32 * 256 MACs (~1500 cycles at two
//   16-lane FMAs per cycle), ~4 B/cycle, easily streamed from L2;
//   y: 6 x 32 floats stored once per depth block (and loaded when K > kc).
// Every target keeps the panel at 32 KiB (kc = 512 on AVX2, 1024 on SSE4).
// Packing moves nr * K floats per panel per call (4x4 register transposes), so its
// share of the work is about 1/rows.
// Dot path (M <= kDotMaxRows, decode-like calls): packing would cost more than
// the math, so each output is a dot product of an x row with a W row read in place,
// 8 W rows at a time (one x load per 8 FMAs). Memory-bound: W is read once per x
// row (from L3 or DRAM in a decode step), so it prefetches the next 8 W rows and
// aims at the bandwidth of a plain sequential read.
//
// Typed weights (f16, bf16, q8, q4_0, q4_K, q6_K; weight_types.inc) are read in their stored type:
// the dot path widens them in registers (each type's codec, codec_<name>-inl.h, over the
// interface of linear_weights-inl.h), so a decode step reads
// 2 bytes per f16/bf16 weight and 1 + 1/16 per q8 weight instead of 4; the packed
// path widens 4 rows of a depth block at a time into scratch (4 * kc floats; 1 row
// on SCALAR) and packs those as f32, so the tiles and their summation order are
// the same for every type. Never a dequantized copy of a whole matrix.
// Measured on the EPYC (Zen 5, AVX-512, one thread, stories15M decode step):
// f16 and bf16 run at the speed of a plain read of their bytes; q8 reads a
// quarter of f32's bytes but is bound by widening (sign-extend, convert, FMA per
// 16 weights), about 2.6x a plain read of its bytes and 0.34x f32's time. Forced
// to AVX2 (8 lanes) the widening shows more: f16 0.68x, bf16 0.86x, q8 0.50x of
// f32's time per token.
// On the Zen 3 EPYC (AVX2, one thread, stories15M in bench lm) the f16 weights
// are mostly L3-resident and the step is bound by memory: decode 1.5x its
// read_ms. q8 is bound by widening: sign-extend, convert and FMA are three FP
// uops per 8 weights, about 1 cycle per 8 even with the data in L1 (measured in
// isolation, the same for f16's vcvtph2ps + FMA), 1.5 cycles per 8 in the whole
// token's calls, while a plain read of q8's L3-resident bytes takes 0.5 cycles per
// 8; so q8 decode stays above 2x its read_ms there with f32 activations.
//
// Every output's summation order depends only on K, the type and the target, never
// on how the items are split, so any split gives bit-identical results.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/linear.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstddef>

#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/linear_kernel.h"
#include "attnrt/kernels/sdpa_kernel.h"  // kScratchAlignment
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/linear_tiles-inl.h"
#include "kernels/hwy/linear_weights-inl.h"
// One codec per weight type of weight_types.inc (DotColumns and PackPanel dispatch on it).
#include "kernels/hwy/codec_bf16-inl.h"
#include "kernels/hwy/codec_f16-inl.h"
#include "kernels/hwy/codec_f32-inl.h"
#include "kernels/hwy/codec_q4_0-inl.h"
#include "kernels/hwy/codec_kquant-inl.h"
#include "kernels/hwy/codec_q8-inl.h"

ATTNRT_HWY_BEGIN

constexpr size_t kRowsPerItem = 8 * kTileRows;
constexpr size_t kPanelBytes = 32 * 1024;  // packed panel: about an L1 data cache
constexpr size_t kDotMaxRows = 4;          // calls with at most this many rows skip packing
constexpr size_t kAlignFloats = kScratchAlignment / sizeof(float);
// Typed weight rows widened per packing step: 4 feed the 4 x 4 transposes; the
// SCALAR target's transposes are plain loops anyway, so it widens one row at a
// time and a Cortex-M's scratch grows by 1 row (4 KiB at K = 1024), not 4.
constexpr size_t kStageRows = HWY_TARGET == HWY_SCALAR ? 1 : 4;

HWY_INLINE size_t DivCeil(size_t a, size_t b) { return (a + b - 1) / b; }
HWY_INLINE size_t AlignFloats(size_t n) { return DivCeil(n, kAlignFloats) * kAlignFloats; }

// k values per packed panel.
HWY_INLINE size_t DepthBlock() {
  return HWY_MAX(size_t{1}, kPanelBytes / (sizeof(float) * PanelCols()));
}

// Scratch regions, in floats from the start of scratch.
struct LinearLayout {
  size_t panel, bias, tile, stage, total;
};

HWY_INLINE LinearLayout MakeLayout(const LinearParams& p) {
  const size_t nr = PanelCols();
  LinearLayout layout;
  layout.panel = 0;
  layout.bias = layout.panel + AlignFloats(HWY_MIN(p.in, DepthBlock()) * nr);
  layout.tile = layout.bias + AlignFloats(nr);
  layout.stage = layout.tile + AlignFloats(kTileRows * nr);
  // Typed weights: kStageRows widened rows of one depth block (f32 packs straight from W).
  const size_t stage =
      p.w_type == WeightType::kF32 ? 0 : kStageRows * HWY_MIN(p.in, DepthBlock());
  layout.total = layout.stage + AlignFloats(stage);
  return layout;
}

// Rows [r0, r1) of the panel at columns [n0, n0 + cols) against the packed depth
// block starting at k0. A partial panel (cols < nr) goes through the tile buffer
// so no element of y outside the panel's real columns is touched.
void PanelRows(const LinearParams& p, size_t r0, size_t r1, size_t n0, size_t cols, size_t k0,
               size_t depth, const float* panel, const float* bias, float* tile) {
  const size_t nr = PanelCols();
  const bool accumulate = k0 > 0;
  const bool full = cols == nr;
  for (size_t m0 = r0; m0 < r1; m0 += kTileRows) {
    size_t row[kTileRows];
    const float* x[kTileRows];
    float* y[kTileRows];
    for (size_t i = 0; i < kTileRows; ++i) {
      row[i] = HWY_MIN(m0 + i, r1 - 1);  // tails repeat the last row
      x[i] = p.x + row[i] * p.x_stride + k0;
      y[i] = full ? p.y + row[i] * p.y_stride + n0 : tile + i * nr;
      if (!full && accumulate) {
        for (size_t j = 0; j < cols; ++j) y[i][j] = p.y[row[i] * p.y_stride + n0 + j];
      }
    }
    Tile(x, panel, depth, accumulate, bias, y);
    if (!full) {
      for (size_t i = 0; i < kTileRows; ++i) {
        for (size_t j = 0; j < cols; ++j) p.y[row[i] * p.y_stride + n0 + j] = y[i][j];
      }
    }
  }
}

// panel[k * nr + j] = W[n0 + j, k0 + k] as f32 for j < cols (ZeroColumns clears the
// rest). Typed rows are widened kStageRows at a time into `stage` (L1-resident) and
// packed from there: one extra L1 round trip per weight, 1/rows of the work.
template <class Codec>
void PackRows(const LinearParams& p, size_t n0, size_t cols, size_t k0, size_t depth,
              float* stage, float* panel) {
  const size_t nr = PanelCols();
  const typename Codec::Matrix w = Codec::Planes(p);
  for (size_t j = 0; j < cols; j += kStageRows) {
    const size_t count = HWY_MIN(kStageRows, cols - j);
    for (size_t i = 0; i < count; ++i) {
      Codec::WidenRow(w, p.in, n0 + j + i, k0, depth, stage + i * depth);
    }
    PackColumns(stage, depth, count, depth, nr, panel + j);
  }
}

// f32 packs straight from W (MakeLayout gives it no stage).
template <>
void PackRows<F32Codec>(const LinearParams& p, size_t n0, size_t cols, size_t k0, size_t depth,
                        float*, float* panel) {
  PackColumns(static_cast<const float*>(p.w) + n0 * p.in + k0, p.in, cols, depth, PanelCols(),
              panel);
}

void PackPanel(const LinearParams& p, size_t n0, size_t cols, size_t k0, size_t depth,
               float* stage, float* panel) {
  switch (p.w_type) {
#define ATTNRT_WEIGHT_TYPE(Name, code, name, bits, block, scales, bytes) \
  case WeightType::k##Name:                                       \
    PackRows<Name##Codec>(p, n0, cols, k0, depth, stage, panel);  \
    break;
#include "attnrt/kernels/weight_types.inc"
#undef ATTNRT_WEIGHT_TYPE
  }
  ZeroColumns(cols, depth, PanelCols(), panel);
}

void PackedPanel(const LinearParams& p, size_t n0, size_t cols, size_t r0, size_t r1,
                 float* scratch) {
  const LinearLayout layout = MakeLayout(p);
  const size_t nr = PanelCols();
  const size_t kc = DepthBlock();
  float* panel = scratch + layout.panel;
  float* bias = scratch + layout.bias;
  for (size_t j = 0; j < nr; ++j) bias[j] = (p.bias != nullptr && j < cols) ? p.bias[n0 + j] : 0.0f;
  size_t k0 = 0;
  do {  // at least once: K == 0 still writes y = bias
    const size_t depth = HWY_MIN(kc, p.in - k0);
    PackPanel(p, n0, cols, k0, depth, scratch + layout.stage, panel);
    PanelRows(p, r0, r1, n0, cols, k0, depth, panel, bias, scratch + layout.tile);
    k0 += depth;
  } while (k0 < p.in);
}

// Each row of x against the panel's weight rows in groups of 8 (a last short group
// repeats its last row; see linear_dot-inl.h). The first row's pass prefetches the
// next group whatever W's size; later rows re-read a panel that the first one just
// brought into cache. `dot(x, first_row, count, prefetch, sums)` sums one group in
// the weight's type.
//
// Why every size: a matrix small enough for L2 is still cold in a decode step,
// because the step walks all of the model's matrices (stories15M: 30 MB of f16)
// before it comes back to this one. Prefetching only matrices of 2 MiB or more
// left the layers' 288 x 288 .. 768 x 288 matrices to the hardware prefetcher,
// which follows 8 interleaved row streams poorly: on the Zen 3 EPYC (AVX2, one
// thread) prefetching them too took f16 decode from 1.6x to 1.35x the plain read
// of its bytes. On a matrix that really is L2-hot the prefetches measured within
// noise there (within +-2% for f16 and q8, linear_bench).
template <class DotGroup>
HWY_INLINE void DotRows(const LinearParams& p, size_t n0, size_t cols, size_t r0, size_t r1,
                        const DotGroup& dot) {
  for (size_t m = r0; m < r1; ++m) {
    const float* x = p.x + m * p.x_stride;
    float* y = p.y + m * p.y_stride + n0;
    float sums[8];
    for (size_t j = 0; j < cols; j += 8) {
      const size_t count = HWY_MIN(size_t{8}, cols - j);
      // Rows n0 + j + 8 .. + 15 exist: the prefetches stay inside W.
      const bool prefetch = m == r0 && count == 8 && n0 + j + 16 <= p.out;
      dot(x, n0 + j, count, prefetch, sums);
      for (size_t i = 0; i < count; ++i) {
        y[j + i] = sums[i] + (p.bias != nullptr ? p.bias[n0 + j + i] : 0.0f);
      }
    }
  }
}

template <class Codec>
void DotPanel(const LinearParams& p, size_t n0, size_t cols, size_t r0, size_t r1) {
  const size_t K = p.in;
  const typename Codec::Matrix w = Codec::Planes(p);
  const auto dot = [&](const float* x, size_t n, size_t count, bool prefetch, float* sums) {
    Codec::DotGroup(w, K, x, n, count, prefetch, sums);
  };
  DotRows(p, n0, cols, r0, r1, dot);
}

void DotColumns(const LinearParams& p, size_t n0, size_t cols, size_t r0, size_t r1) {
  switch (p.w_type) {
#define ATTNRT_WEIGHT_TYPE(Name, code, name, bits, block, scales, bytes) \
  case WeightType::k##Name:                                       \
    return DotPanel<Name##Codec>(p, n0, cols, r0, r1);
#include "attnrt/kernels/weight_types.inc"
#undef ATTNRT_WEIGHT_TYPE
  }
}

size_t LinearScratchFloats(const LinearParams& p) { return MakeLayout(p).total; }

HWY_INLINE size_t RowBlocks(const LinearParams& p) { return DivCeil(p.rows, kRowsPerItem); }

// The dot path's items are groups of kDotGroup output columns (all rows at once):
// finer than a panel, so a decode step's small matrices (N = 288: 36 items, not 9)
// still split evenly over the workers.
constexpr size_t kDotGroup = 8;

size_t LinearWorkItems(const LinearParams& p) {
  // A code outside WeightType has no work: callers check types where they load them.
  if (p.rows == 0 || WeightTypeName(p.w_type) == nullptr) return 0;
  if (p.rows <= kDotMaxRows) return DivCeil(p.out, kDotGroup);
  return DivCeil(p.out, PanelCols()) * RowBlocks(p);
}

void LinearRun(const LinearParams& p, size_t begin, size_t end, float* scratch) {
  const size_t nr = PanelCols();
  const size_t blocks = RowBlocks(p);
  if (blocks == 0 || WeightTypeName(p.w_type) == nullptr) return;  // no items
  if (p.rows <= kDotMaxRows) {
    // One pass over the range's columns: the prefetches run ahead across groups.
    const size_t n0 = begin * kDotGroup;
    const size_t n1 = HWY_MIN(p.out, end * kDotGroup);
    if (n0 < n1) DotColumns(p, n0, n1 - n0, 0, p.rows);
    return;
  }
  size_t item = begin;
  while (item < end) {
    // Consecutive items of one panel merge into one row range (one packing).
    const size_t panel = item / blocks;
    const size_t stop = HWY_MIN(end, (panel + 1) * blocks);
    const size_t r0 = (item % blocks) * kRowsPerItem;
    const size_t r1 = HWY_MIN(p.rows, (stop - panel * blocks) * kRowsPerItem);
    const size_t n0 = panel * nr;
    const size_t cols = HWY_MIN(nr, p.out - n0);
    PackedPanel(p, n0, cols, r0, r1, scratch);
    item = stop;
  }
}

const char* LinearIsa() { return hwy::TargetName(HWY_TARGET); }

ATTNRT_HWY_END

#if HWY_ONCE
namespace attnrt {
namespace {

HWY_EXPORT(LinearScratchFloats);
HWY_EXPORT(LinearWorkItems);
HWY_EXPORT(LinearRun);
HWY_EXPORT(LinearIsa);

size_t HwyScratchFloats(const LinearParams& p) {
  return HWY_DYNAMIC_DISPATCH(LinearScratchFloats)(p);
}
size_t HwyWorkItems(const LinearParams& p) { return HWY_DYNAMIC_DISPATCH(LinearWorkItems)(p); }
void HwyRun(const LinearParams& p, size_t begin, size_t end, float* scratch) {
  HWY_DYNAMIC_DISPATCH(LinearRun)(p, begin, end, scratch);
}
const char* HwyIsa() { return HWY_DYNAMIC_DISPATCH(LinearIsa)(); }
// Every type of the list: DotColumns and PackPanel have a codec for each.
bool HwySupports(WeightType t) { return IsKnownWeightType(static_cast<uint8_t>(t)); }

}  // namespace

// linear_variants.inc. Rank 1: above the reference; the integer kernel outranks it for q8
// and q4_0 unless a call asks for f32 activations, and the Cortex-M55's Helium Linear
// outranks it there (Highway 1.0.3 has no MVE target and would run SCALAR code).
extern const LinearKernel kLinearHwy = {"hwy",        1,      HwySupports, HwyScratchFloats,
                                        HwyWorkItems, HwyRun, HwyIsa, false,
                                        nullptr,      nullptr,
                                        nullptr,      nullptr};

}  // namespace attnrt
#endif  // HWY_ONCE
