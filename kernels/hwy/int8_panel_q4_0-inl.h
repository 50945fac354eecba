// q4_0 on AVX-512 (Highway's AVX3 and AVX3_DL targets): the integer Linear's panels of 16
// weight rows, one q4_0 block at a time, with one output per int32 lane
// (linear_int8.cc's Q4_0PanelColumns).
//
// Why: the row tiles (TileX) put one row's 64 products in a vector whose 16 lanes each hold
// a partial sum, so every 64 multiply-adds pay an int32 -> f32 conversion, a scale product
// and an FMA, and in decode also the row's nibble unpacking and scale widening. Here the
// 16 rows of a panel are transposed in registers (no repacked copy: the weights stay as the
// file stores them) so that vector g holds the 4 values [4g, 4g + 4) of the block of each of
// the 16 rows, one row per int32 lane. Against one x row a block is then 8 vpdpbusd with the
// x row's 4 activation bytes broadcast, started from the block's -8 offset (kQ4_0AsNibbles),
// and one conversion, scale product and FMA for 16 outputs: 512 multiply-adds.
//
// The transpose (per block, for all the x rows of the chunk): 4 vectors of 4 rows' 16 nibble
// bytes (a 128-bit lane per row), then a 4 x 4 transpose of 32-bit words inside each 128-bit
// lane (unpacklo/hi 32, then 64). That leaves lane 4 l + a holding row 4 a + l: the scales
// are gathered in the same order and the sums put back in row order once per panel and x
// row (kLaneToRow).
//
// Per output the arithmetic is: per block, the exact int32 dot (|dot| < 2^17), converted
// exactly, times (weight scale * activation scale) rounded once, added by one FMA, blocks in
// order: it depends only on K, never on the panel, chunk or item an output falls in.

#if defined(ATTNRT_KERNELS_HWY_INT8_PANEL_Q4_0_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_INT8_PANEL_Q4_0_INL_H_
#undef ATTNRT_KERNELS_HWY_INT8_PANEL_Q4_0_INL_H_
#else
#define ATTNRT_KERNELS_HWY_INT8_PANEL_Q4_0_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/weight_q4_0.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/int8_dot-inl.h"

// Defined in the passes for the targets below only (this file is included once for each).
#undef ATTNRT_I8_Q4_0_PANELS

ATTNRT_HWY_BEGIN
ATTNRT_I8_BEGIN

#if ATTNRT_I8_X86 == 512
#define ATTNRT_I8_Q4_0_PANELS 1

constexpr size_t kPanelRows = 16;

// The 16 rows of a panel at one block: their values (nibbles) as 8 vectors of one 32-bit
// word per row, and their f32 scales, lanes in the transpose's order.
struct Q4_0PanelBlock {
  __m512i v[8];
  __m512 scale;
};

// Lane 4 l + a of a transposed vector holds row 4 a + l (and the reverse: the map is its own
// inverse): the order of the gather offsets, and the permutation back to row order.
HWY_INLINE __m512i LaneToRow() {
  return _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
}

// Byte offsets of the panel's rows from rows[0], in lane order (for the scale gather).
HWY_INLINE __m512i PanelRowOffsets(const uint8_t* const* rows) {
  alignas(64) int32_t off[kPanelRows];
  for (size_t lane = 0; lane < kPanelRows; ++lane) {
    off[lane] = static_cast<int32_t>(rows[4 * (lane % 4) + lane / 4] - rows[0]);
  }
  return _mm512_load_si512(off);
}

// Block b of the panel's rows (rows[r]: row r's first block; `offsets`: PanelRowOffsets).
HWY_INLINE void LoadQ4_0PanelBlock(const uint8_t* const* rows, __m512i offsets, size_t b,
                                   Q4_0PanelBlock* out) {
  const size_t at = b * kQ4_0BlockBytes;
  __m512i z[4];
  for (size_t a = 0; a < 4; ++a) {
    const auto nibbles = [&](size_t r) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[r] + at + 2));
    };
    __m512i v = _mm512_castsi128_si512(nibbles(4 * a));
    v = _mm512_inserti32x4(v, nibbles(4 * a + 1), 1);
    v = _mm512_inserti32x4(v, nibbles(4 * a + 2), 2);
    z[a] = _mm512_inserti32x4(v, nibbles(4 * a + 3), 3);
  }
  const __m512i t0 = _mm512_unpacklo_epi32(z[0], z[1]);
  const __m512i t1 = _mm512_unpackhi_epi32(z[0], z[1]);
  const __m512i t2 = _mm512_unpacklo_epi32(z[2], z[3]);
  const __m512i t3 = _mm512_unpackhi_epi32(z[2], z[3]);
  const __m512i words[4] = {_mm512_unpacklo_epi64(t0, t2), _mm512_unpackhi_epi64(t0, t2),
                            _mm512_unpacklo_epi64(t1, t3), _mm512_unpackhi_epi64(t1, t3)};
  // Word k of a block's 16 bytes holds values 4k.. (low nibbles) and 16 + 4k.. (high).
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  for (size_t k = 0; k < 4; ++k) {
    out->v[k] = _mm512_and_si512(words[k], low4);
    out->v[k + 4] = _mm512_and_si512(_mm512_srli_epi32(words[k], 4), low4);
  }
  // Each row's f16 scale: the low half of the 32-bit word at its block's start.
  const __m512i scale_words = _mm512_i32gather_epi32(
      _mm512_add_epi32(offsets, _mm512_set1_epi32(static_cast<int32_t>(at))), rows[0], 1);
  out->scale = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(scale_words));
}

// acc + sum over the block of the panel's rows times one x row's block: a (32 activations),
// o (its -8 offset), s (its scale). One output per lane, in the transpose's order.
HWY_INLINE __m512 PanelBlockDot(const Q4_0PanelBlock& w, const int8_t* a, int32_t o, float s,
                                __m512 acc) {
  __m512i dot = _mm512_set1_epi32(o);
  for (size_t g = 0; g < 8; ++g) {
    int32_t word;
    __builtin_memcpy(&word, a + 4 * g, sizeof(word));
    const __m512i ag = _mm512_set1_epi32(word);
#if ATTNRT_I8_VNNI
    dot = _mm512_dpbusd_epi32(dot, w.v[g], ag);
#else
    dot = _mm512_add_epi32(
        dot, _mm512_madd_epi16(_mm512_maddubs_epi16(w.v[g], ag), _mm512_set1_epi16(1)));
#endif
  }
  return _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(w.scale, _mm512_set1_ps(s)),
                         acc);
}

#endif  // ATTNRT_I8_X86 == 512

ATTNRT_I8_END
ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_INT8_PANEL_Q4_0_INL_H_
