// The integer Linear's target-independent half (kernels/hwy/linear_int8.cc): which types it
// reads, how a call is cut into work items and how a worker's scratch is laid out. The
// per-target code reads the same functions, so every target cuts and lays out alike.
// Kernel-internal; no allocation, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/activation_blocks.h"
#include "attnrt/kernels/helium.h"  // ATTNRT_HELIUM
#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/sdpa_kernel.h"  // kScratchAlignment

namespace attnrt {
namespace int8_linear {

// The block types whose weights are integers times block scales: q8 in [-127, 127], q4_0 in
// [-8, 7], and GGUF's k-quant super-blocks, q4_K (0..15 per sub-block scale, minus a
// sub-block offset) and q6_K (-32..31 per 16-value sub-block scale).
constexpr bool ReadsWeightType(WeightType t) {
  return t == WeightType::kQ8 || t == WeightType::kQ4_0 || t == WeightType::kQ4_K ||
         t == WeightType::kQ6_K;
}

// x rows quantized together: one item's rows. 8 on hosts (AVX-512's q4_0 panels transpose
// each block once per chunk: SmolLM2-135M prefill 84 -> 68 ms against 4 on the Zen 4), 4 on
// microcontrollers, whose arenas hold the chunk's activation blocks.
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
constexpr size_t kChunkRows = 4;
#else
constexpr size_t kChunkRows = 8;
#endif
constexpr size_t kGroupRows = 16;  // weight rows (output columns) of one item: whole
                                   // q4_0 panels (int8_panel_q4_0-inl.h)
constexpr size_t kTileRows = 4;   // weight rows summed together against one x row

inline size_t DivCeil(size_t a, size_t b) { return (a + b - 1) / b; }

// Items: chunks of kChunkRows x rows times groups of kGroupRows output columns, numbered
// chunk-major, so that a worker's contiguous range quantizes each chunk it touches once.
inline size_t Groups(const LinearParams& p) { return DivCeil(p.out, kGroupRows); }
inline size_t WorkItems(const LinearParams& p) {
  if (p.rows == 0 || p.out == 0 || !ReadsWeightType(p.w_type)) return 0;
  return DivCeil(p.rows, kChunkRows) * Groups(p);
}

// A worker's scratch, in floats from its start (each region kScratchAlignment-aligned):
//   q      kChunkRows rows of `blocks` activation blocks (int8, 32 per block);
//   d      kChunkRows rows of `blocks` activation scales;
//   o      kChunkRows rows of `blocks` int32 (x86 builds only; empty elsewhere): -8 * the sum
//          of each activation block (q4_0 as nibbles, int8_dot-inl.h's kQ4_0AsNibbles; q8's
//          panel copy reads 16 times it); q6_K: two a block, -32 * the sum of each 16-value
//          half (its panel copy's dot starts);
//   f      q4_K only: kChunkRows rows of, per super-block of 8 activation blocks, kMinLanes
//          floats: d[b] * (the sum of block b's 8-bit values) for its 8 blocks, then zeros
//          (the sub-block offsets' term, summed once per super-block: linear_int8.cc);
//   dw     Helium only: the tile's kTileRows rows of `blocks` weight scales widened to f32,
//          interleaved by row (the other targets widen each step's scales in registers);
// with `blocks` = ActivationBlocks(K) rounded up to even: a two-block step (AVX-512) reads
// the pad block, whose activations, scales and weights are all 0. The d and dw regions end with
// kScaleChunk spare floats (Helium's widening runs whole vectors past a row's `blocks`).
constexpr size_t kScaleChunk = 16;

// Whether this build's targets read activation block offsets (the o region): the x86 ones.
#if defined(__x86_64__) || defined(__i386__)
constexpr bool kBlockOffsets = true;
#else
constexpr bool kBlockOffsets = false;
#endif

// Floats per super-block in the f region: its 8 block sums, padded to a vector of up to 16
// lanes (AVX-512) whose tail lanes are zeros.
constexpr size_t kMinLanes = 16;
constexpr size_t kBlocksPerSuper = 8;

struct Layout {
  size_t blocks;
  size_t supers;  // super-blocks of the f region per x row (0 unless q4_K)
  size_t q, d, o, f, dw, total;
};

inline Layout MakeLayout(size_t K, WeightType type) {
  constexpr size_t kAlign = kScratchAlignment / sizeof(float);
  const auto align = [](size_t n) { return DivCeil(n, kAlign) * kAlign; };
  Layout l;
  l.blocks = DivCeil(ActivationBlocks(K), 2) * 2;
  l.q = 0;
  l.d = l.q + align(kChunkRows * l.blocks * kActivationBlock / sizeof(float));
  l.o = l.d + align(kChunkRows * l.blocks + kScaleChunk);
  const size_t offsets_per_block = type == WeightType::kQ6_K ? 2 : 1;
  l.f = l.o + (kBlockOffsets ? align(kChunkRows * l.blocks * offsets_per_block) : 0);
  l.supers = type == WeightType::kQ4_K ? DivCeil(l.blocks, kBlocksPerSuper) : 0;
  l.dw = l.f + align(kChunkRows * l.supers * kMinLanes);
#if ATTNRT_HELIUM
  l.total = l.dw + align(kTileRows * l.blocks + kScaleChunk);
#else
  l.total = l.dw;
#endif
  return l;
}

}  // namespace int8_linear
}  // namespace attnrt
