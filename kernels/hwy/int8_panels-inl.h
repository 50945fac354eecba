// q4_0, q4_K, q6_K and q8 on AVX-512: the integer Linear's panels of 16 weight rows, one block at a time,
// with one output per int32 lane (linear_int8.cc's PanelColumns).
//
// Why: the row tiles (TileX) put one row's 64 products in a vector whose 16 lanes each hold
// a partial sum, so every 64 multiply-adds pay an int32 -> f32 conversion, a scale product
// and an FMA, and in decode also the row's unpacking and scale widening. Here the 16 rows of
// a panel are transposed in registers (the weights as the file stores them; q4_0 reads its
// panel copy, already in this order, when the caller packed one: LoadQ4_0CopyBlock) so
// that vector g holds the 4 values [4g, 4g + 4) of the block of each of the 16 rows,
// one row per int32 lane. Against one x row a block is then 8 vpdpbusd with the x row's 4
// activation bytes broadcast, and one conversion, scale product and FMA for 16 outputs.
//
// vpdpbusd multiplies unsigned by signed bytes:
//   q4_0  the weights go in as their nibbles n in [0, 15] and the activations as they are;
//         the -8 of n - 8 is the activation block's offset -8 * sum(a) (kQ4_0AsNibbles),
//         which each dot starts from;
//   q8    the activations go in as a + 128 in [1, 255] (QuantizeRow's unsigned form) and the
//         weights as they are; the 128 * sum(w) this adds is taken off by starting each dot
//         from -128 * sum(w) per row, summed once per block (8 more vpdpbusd per panel and
//         block). Only with VNNI: vpmaddubsw's int16 pairs would saturate at 2 * 255 * 127.
//         From the panel copy (weight_panels.h) the other way round: the weights as w + 128,
//         the activations as they are, each dot from -128 * sum(a), the x row's term
//         (without VNNI the sign trick instead: PanelBlockDotOffsetBytes).
//   q6_K  as q8's rows: q - 32 in [-32, 31] signed against a + 128, each 16-value half's
//         dot from -128 * (sum of its q - 32), a term of the panel block. Without VNNI too:
//         its pairs (|pair| <= 2 * 255 * 32) fit int16, two words' pairs summed there
//         (prefill 256x288x768 on the Zen 5, q6_K's row tiles -> panels, 3 alternating
//         runs: AVX2 1.59 -> 0.89 ms, AVX3 0.89 -> 0.58 ms; decode stays in the row tiles,
//         0.69 against the panels' 1.03 ms on AVX2: the join of ql and qh, per panel block,
//         is not shared by a second x row).
//
// The transpose (per block, for all the x rows of the chunk): vectors of 4 rows' 16 bytes (a
// 128-bit lane per row), then a 4 x 4 transpose of 32-bit words inside each 128-bit lane
// (unpacklo/hi 32, then 64); q8's 32-byte rows add a shuffle of 128-bit lanes. Each type's
// lanes hold the rows in its own order (kQ4_0LaneRow, kQ8LaneRow): the scales are gathered
// in that order and the sums put back in row order once per panel and x row.
//
// Per output the arithmetic is: per block, the exact int32 dot (|dot| < 2^22), converted
// exactly, times (weight scale * activation scale) rounded once, added by one FMA, blocks in
// order: it depends only on K and the type, never on the panel, chunk or item of an output.

#if defined(ATTNRT_KERNELS_HWY_INT8_PANELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_INT8_PANELS_INL_H_
#undef ATTNRT_KERNELS_HWY_INT8_PANELS_INL_H_
#else
#define ATTNRT_KERNELS_HWY_INT8_PANELS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/weight_q4_0.h"
#include "attnrt/kernels/weight_q4_K.h"
#include "attnrt/kernels/weight_q6_K.h"
#include "attnrt/kernels/weight_panels.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/int8_dot-inl.h"

// Defined in the passes for the targets below only (this file is included once for each):
// q4_0, q4_K and q6_K panels on AVX3, AVX3_DL and AVX2 (int8_panels256-inl.h), q8 panels of
// its rows on AVX3_DL (VNNI); q8's copy (PanelBlockDotOffsetBytes) wherever there are panels.
#undef ATTNRT_I8_Q4_0_PANELS
#undef ATTNRT_I8_Q4_K_PANELS
#undef ATTNRT_I8_Q6_K_PANELS
#undef ATTNRT_I8_Q8_PANELS

ATTNRT_HWY_BEGIN
ATTNRT_I8_BEGIN

// ---- shared by the panel widths (AVX-512 below, AVX2 in int8_panels256-inl.h)
#if ATTNRT_I8_X86 >= 256

// Byte offsets of p[lane_row[lane]] from p[0] in lane order (gather offsets), for a panel of
// kRows rows. Once per panel.
template <size_t kRows>
HWY_INLINE hn::Vec<hn::CappedTag<int32_t, kRows>> PanelOffsetsOf(const void* const* p,
                                                                 const int32_t* lane_row) {
  alignas(64) int32_t off[kRows];
  const char* first = static_cast<const char*>(p[0]);
  for (size_t lane = 0; lane < kRows; ++lane) {
    off[lane] = static_cast<int32_t>(static_cast<const char*>(p[lane_row[lane]]) - first);
  }
  return hn::Load(hn::CappedTag<int32_t, kRows>(), off);
}

// q4_K's step d * sc[c] and min dmin * m[c] of chunk c in every lane, from the lanes' three
// scale words w0..w2 (bytes 4-15 of their super-blocks) and d, dmin: Q4_KScaleMinBytes's word
// operations, lane-wise (exact in f32). Raw vectors of the panel's width in and out.
template <class DF, class RawI, class RawF>
HWY_INLINE void Q4_KLaneStepMin(DF df, RawI w0, RawI w1, RawI w2, RawF d, RawF dmin, size_t c,
                                RawF* step, RawF* min) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  using VU = hn::Vec<decltype(du)>;
  using VF = hn::Vec<DF>;
  const auto field = [&](RawI w, size_t shift, uint32_t mask) {
    return hn::And(hn::ShiftRightSame(VU{w}, static_cast<int>(shift)), hn::Set(du, mask));
  };
  VU sc, m;
  if (c < 4) {
    sc = field(w0, 8 * c, 63);
    m = field(w1, 8 * c, 63);
  } else {
    const size_t k = 8 * (c - 4);
    sc = hn::Or(field(w2, k, 15), hn::ShiftLeft<4>(field(w0, k + 6, 3)));
    m = hn::Or(field(w2, k + 4, 15), hn::ShiftLeft<4>(field(w1, k + 6, 3)));
  }
  *step = hn::Mul(VF{d}, hn::ConvertTo(df, hn::BitCast(di, sc))).raw;
  *min = hn::Mul(VF{dmin}, hn::ConvertTo(df, hn::BitCast(di, m))).raw;
}

// words[k], lane 4 l + a: 32-bit word k of the 16 bytes z[a] holds in its 128-bit lane l
// (raw vectors of kLanes 32-bit lanes; the interleaves work within 128-bit blocks).
template <size_t kLanes, class RawI>
HWY_INLINE void TransposeWords(const RawI* z, RawI* words) {
  const hn::CappedTag<uint32_t, kLanes> d32;
  const hn::Repartition<uint64_t, decltype(d32)> d64;
  using V = hn::Vec<decltype(d32)>;
  const V t0 = hn::InterleaveLower(d32, V{z[0]}, V{z[1]});
  const V t1 = hn::InterleaveUpper(d32, V{z[0]}, V{z[1]});
  const V t2 = hn::InterleaveLower(d32, V{z[2]}, V{z[3]});
  const V t3 = hn::InterleaveUpper(d32, V{z[2]}, V{z[3]});
  const auto low = [&](V a, V b) {
    return hn::InterleaveLower(d64, hn::BitCast(d64, a), hn::BitCast(d64, b)).raw;
  };
  const auto high = [&](V a, V b) {
    return hn::InterleaveUpper(d64, hn::BitCast(d64, a), hn::BitCast(d64, b)).raw;
  };
  words[0] = low(t0, t2);
  words[1] = high(t0, t2);
  words[2] = low(t1, t3);
  words[3] = high(t1, t3);
}

// The low 16 bits of each 32-bit lane as an f16, widened to f32 (raw vectors of kLanes).
template <size_t kLanes, class RawI>
HWY_INLINE hn::Vec<hn::CappedTag<float, kLanes>> WidenF16LowHalves(RawI words) {
  const hn::CappedTag<int32_t, kLanes> di;
  const hn::Rebind<float, decltype(di)> df;
  const hn::Rebind<uint16_t, decltype(di)> du16;
  const hn::Rebind<hwy::float16_t, decltype(di)> df16;
  const auto bits = hn::DemoteTo(du16, hn::And(hn::Vec<decltype(di)>{words}, hn::Set(di, 0xFFFF)));
  return hn::PromoteTo(df, hn::BitCast(df16, bits));
}

// The 32-bit words at `at` bytes into each lane's block: rows[0]'s block at base, the others
// at `offsets` (lane order) from it.
template <size_t kLanes, class RawI>
HWY_INLINE RawI GatherPanelWords(const uint8_t* base, RawI offsets, size_t at) {
  const hn::CappedTag<int32_t, kLanes> di;
  using VI = hn::Vec<decltype(di)>;
  return hn::GatherOffset(di, reinterpret_cast<const int32_t*>(base + at), VI{offsets}).raw;
}

// q4_K's panel scales: the rows' 12 scale bytes of one super-block as three 32-bit words per
// lane (unpacked lane-wise per block by Q4_KLaneStepMin) and their d and dmin, gathered once
// per panel and super-block: rows[0]'s super-block at `block_at` bytes into the row, the
// others at `offsets` (lane order) from it.
template <class RawI, class RawF>
struct Q4_KPanelScalesOf {
  RawI w0, w1, w2;
  RawF d, dmin;
};
template <size_t kLanes, class RawI, class RawF>
HWY_INLINE void GatherQ4_KPanelScales(const uint8_t* row0, RawI offsets, size_t block_at,
                                      Q4_KPanelScalesOf<RawI, RawF>* s) {
  const uint8_t* base = row0 + block_at;
  const hn::CappedTag<int32_t, kLanes> di;
  using VI = hn::Vec<decltype(di)>;
  const VI dd{GatherPanelWords<kLanes>(base, offsets, kQ4_KDAt)};
  s->w0 = GatherPanelWords<kLanes>(base, offsets, kQ4_KScalesAt);
  s->w1 = GatherPanelWords<kLanes>(base, offsets, kQ4_KScalesAt + 4);
  s->w2 = GatherPanelWords<kLanes>(base, offsets, kQ4_KScalesAt + 8);
  s->d = WidenF16LowHalves<kLanes>(dd.raw).raw;
  s->dmin = WidenF16LowHalves<kLanes>(hn::ShiftRight<16>(dd).raw).raw;
}

// q6_K's panel scales: the rows' 16 int8 sub-block scales of one super-block as four 32-bit
// words per lane, and their d. Gathered once per panel and super-block, as q4_K's.
template <class RawI, class RawF>
struct Q6_KPanelScalesOf {
  RawI sc[4];
  RawF d;
};
template <size_t kLanes, class RawI, class RawF>
HWY_INLINE void GatherQ6_KPanelScales(const uint8_t* row0, RawI offsets, size_t block_at,
                                      Q6_KPanelScalesOf<RawI, RawF>* s) {
  const uint8_t* base = row0 + block_at;
  for (size_t k = 0; k < 4; ++k) {
    s->sc[k] = GatherPanelWords<kLanes>(base, offsets, kQ6_KScalesAt + 4 * k);
  }
  // d is the block's last 2 bytes: the high half of the word that ends with them (nothing
  // past the block read).
  const hn::CappedTag<int32_t, kLanes> di;
  using VI = hn::Vec<decltype(di)>;
  const VI dd{GatherPanelWords<kLanes>(base, offsets, kQ6_KDAt - 2)};
  s->d = WidenF16LowHalves<kLanes>(hn::ShiftRight<16>(dd).raw).raw;
}

// Chunk c (0..7) of the lanes' q6_K super-blocks: v[g] holds word g of the 32 ql bytes of its
// chunk pair (c % 4 < 2: the low nibbles, else the high), high[g] word g of the half's 32 qh
// bytes (bit pair 2 (c % 4)); v becomes q - 32 in [-32, 31] as signed bytes (the row
// panels'; the copy regroups the values once instead: LoadQ6_KCopyBlock).
template <size_t kLanes, class RawI>
HWY_INLINE void Q6_KJoinWords(RawI* v, const RawI* high, size_t c) {
  const hn::CappedTag<uint32_t, kLanes> du;
  const hn::Repartition<int8_t, decltype(du)> d8;
  using VU = hn::Vec<decltype(du)>;
  const size_t cc = c % 4;
  const VU low4 = hn::Set(du, 0x0F0F0F0Fu), bits45 = hn::Set(du, 0x30303030u);
  for (size_t g = 0; g < 8; ++g) {
    const VU ql{v[g]};
    const VU low = hn::And(cc < 2 ? ql : hn::ShiftRight<4>(ql), low4);
    // The chunk's bit pair 2 cc moved to bits 4-5 of its byte by one shift (none for cc = 2);
    // the mask drops what the 32-bit shift brought in from the neighbouring bytes.
    const VU qh{high[g]};
    const VU hb = hn::And(cc < 3 ? hn::ShiftLeftSame(qh, static_cast<int>(4 - 2 * cc))
                                 : hn::ShiftRight<2>(qh),
                          bits45);
    const VU q = hn::Or(low, hb);
    v[g] = hn::BitCast(du, hn::Sub(hn::BitCast(d8, q), hn::Set(d8, int8_t{32}))).raw;
  }
}

// The scales of chunk c's two 16-value halves (sub-blocks 2 c and 2 c + 1), d * sc: bytes
// 2 (c % 2) and 2 (c % 2) + 1 of scale word c / 2, sign-extended (exact in f32).
template <class DF, class RawI, class RawF>
HWY_INLINE void Q6_KLaneScales(DF df, const RawI* sc, RawF d, size_t c, RawF* lo, RawF* hi) {
  const hn::RebindToSigned<DF> di;
  using VI = hn::Vec<decltype(di)>;
  using VF = hn::Vec<DF>;
  const VI word{sc[c / 2]};
  const int byte = static_cast<int>(2 * (c % 2));
  const VI sc_lo = hn::ShiftRightSame(hn::ShiftLeftSame(word, 24 - 8 * byte), 24);
  const VI sc_hi = hn::ShiftRightSame(hn::ShiftLeftSame(word, 16 - 8 * byte), 24);
  *lo = hn::Mul(VF{d}, hn::ConvertTo(df, sc_lo)).raw;
  *hi = hn::Mul(VF{d}, hn::ConvertTo(df, sc_hi)).raw;
}

// ---- the panel copies (weight_panels.h; LinearParams::w_packed), at either width: kRows
// rows from row `first` of their group, one per lane in row order, each field one load.
template <size_t kRows>
HWY_INLINE hn::Vec<hn::CappedTag<uint32_t, kRows>> PanelCopyWords(const uint8_t* block,
                                                                  size_t o, size_t first) {
  const hn::CappedTag<uint32_t, kRows> du;
  return hn::LoadU(du, reinterpret_cast<const uint32_t*>(block + PanelCopyFieldAt(o) + 4 * first));
}
template <size_t kRows>
HWY_INLINE hn::Vec<hn::CappedTag<float, kRows>> PanelCopyF16(const uint8_t* block, size_t o,
                                                             size_t first) {
  const hn::CappedTag<float, kRows> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const auto* at = reinterpret_cast<const hwy::float16_t*>(block + PanelCopyFieldAt(o) + 2 * first);
  return hn::PromoteTo(df, hn::LoadU(dh, at));
}

// A q4_0 panel block from the copy: words k = 0..3 of the nibbles give values 4k.. (low
// nibbles, v[k]) and 16 + 4k.. (high, v[k + 4]), as LoadQ4_0PanelBlock's transpose does.
template <size_t kRows, class Block>
HWY_INLINE void LoadQ4_0CopyBlock(const uint8_t* block, size_t first, Block* out) {
  const hn::CappedTag<uint32_t, kRows> du;
  const auto low4 = hn::Set(du, 0x0F0F0F0Fu);
  for (size_t k = 0; k < 4; ++k) {
    const auto w = PanelCopyWords<kRows>(block, 2 + 4 * k, first);
    out->v[k] = hn::And(w, low4).raw;
    out->v[k + 4] = hn::And(hn::ShiftRight<4>(w), low4).raw;
  }
  out->scale = PanelCopyF16<kRows>(block, 0, first).raw;
  out->start = hn::Zero(du).raw;
}

// A q8 panel block from the copy: its 8 words of offset values (v + 128, weight_panels.h)
// and d, in row order: no transpose, gather or block sum. The dot's start is the x row's.
template <size_t kRows, class Block>
HWY_INLINE void LoadQ8CopyBlock(const uint8_t* block, size_t first, Block* out) {
  for (size_t k = 0; k < 8; ++k) out->v[k] = PanelCopyWords<kRows>(block, 2 + 4 * k, first).raw;
  out->scale = PanelCopyF16<kRows>(block, 0, first).raw;
  out->start = hn::Zero(hn::CappedTag<uint32_t, kRows>()).raw;
}

// A q4_K super-block's scale words and d, dmin from the copy (GatherQ4_KPanelScales's).
template <size_t kRows, class Scales>
HWY_INLINE void LoadQ4_KCopyScales(const uint8_t* super, size_t first, Scales* s) {
  s->w0 = PanelCopyWords<kRows>(super, kQ4_KScalesAt, first).raw;
  s->w1 = PanelCopyWords<kRows>(super, kQ4_KScalesAt + 4, first).raw;
  s->w2 = PanelCopyWords<kRows>(super, kQ4_KScalesAt + 8, first).raw;
  s->d = PanelCopyF16<kRows>(super, kQ4_KDAt, first).raw;
  s->dmin = PanelCopyF16<kRows>(super, kQ4_KDminAt, first).raw;
}

// Chunk c (0..7) of a q4_K super-block from the copy: the low or high nibbles of its 8
// words (LoadQ4_KPanelBlock's), each row's step and min.
template <size_t kRows, class Block, class Scales>
HWY_INLINE void LoadQ4_KCopyBlock(const uint8_t* super, size_t first, size_t c, const Scales& s,
                                  Block* out) {
  const hn::CappedTag<uint32_t, kRows> du;
  const auto low4 = hn::Set(du, 0x0F0F0F0Fu);
  for (size_t g = 0; g < 8; ++g) {
    const auto w = PanelCopyWords<kRows>(super, kQ4_KNibblesAt + c / 2 * 32 + 4 * g, first);
    out->v[g] = hn::And(c % 2 == 0 ? w : hn::ShiftRight<4>(w), low4).raw;
  }
  Q4_KLaneStepMin(hn::CappedTag<float, kRows>(), s.w0, s.w1, s.w2, s.d, s.dmin, c, &out->scale,
                  &out->min);
  out->start = hn::Zero(du).raw;
}

// What a q6_K panel block's two 16-value halves' dots start from (a term of the panel block
// from its rows, of the x row from the copy).
template <class RawI>
struct PanelStartsOf {
  RawI lo, hi;
};

// q6_K's copy (weight_panels.h: d first): a super-block's 4 scale words and d, once per
// super-block.
template <size_t kRows, class Scales>
HWY_INLINE void LoadQ6_KCopyScales(const uint8_t* super, size_t first, Scales* s) {
  for (size_t k = 0; k < 4; ++k) {
    s->sc[k] = PanelCopyWords<kRows>(super, kQ6_KCopyScalesAt + 4 * k, first).raw;
  }
  s->d = PanelCopyF16<kRows>(super, 0, first).raw;
}

// Chunk c (0..7) of a q6_K super-block from the copy (PackQ6_KPanelCopy's regrouped values):
// q in [0, 63] (unsigned: vpdpbusd's and vpmaddubsw's unsigned operand against the signed
// activations, each half's -32 * (sum of a) the x row's, Q6_KHalfOffsets), and the halves'
// scales. Chunks 0-2 of a half are their array's low 6 bits; chunk 3 is the arrays' top bit
// pairs, each shifted to its place (a 32-bit shift, masked: the mask drops what it brought in
// from the neighbouring byte).
template <size_t kRows, class Block, class Scales>
HWY_INLINE void LoadQ6_KCopyBlock(const uint8_t* super, size_t first, size_t c, const Scales& s,
                                  Block* out) {
  const hn::CappedTag<uint32_t, kRows> du;
  const size_t at = kQ6_KCopyQAt + 96 * (c / 4), j = c % 4;
  const auto word = [&](size_t array, size_t g) {
    return PanelCopyWords<kRows>(super, at + 32 * array + 4 * g, first);
  };
  if (j < 3) {
    const auto low6 = hn::Set(du, 0x3F3F3F3Fu);
    for (size_t g = 0; g < 8; ++g) out->v[g] = hn::And(word(j, g), low6).raw;
  } else {
    const auto bits01 = hn::Set(du, 0x03030303u), bits23 = hn::Set(du, 0x0C0C0C0Cu),
               bits45 = hn::Set(du, 0x30303030u);
    for (size_t g = 0; g < 8; ++g) {
      const auto low = hn::And(hn::ShiftRight<6>(word(0, g)), bits01);
      const auto mid = hn::And(hn::ShiftRight<4>(word(1, g)), bits23);
      const auto high = hn::And(hn::ShiftRight<2>(word(2, g)), bits45);
      out->v[g] = hn::Or(hn::Or(low, mid), high).raw;
    }
  }
  Q6_KLaneScales(hn::CappedTag<float, kRows>(), s.sc, s.d, c, &out->scale, &out->scale_hi);
}

#endif  // ATTNRT_I8_X86 >= 256

#if ATTNRT_I8_X86 == 512
#define ATTNRT_I8_Q4_0_PANELS 1
#define ATTNRT_I8_Q4_K_PANELS 1
#define ATTNRT_I8_Q6_K_PANELS 1
#if ATTNRT_I8_VNNI
#define ATTNRT_I8_Q8_PANELS 1
#endif

constexpr size_t kPanelRows = 16;

// The 16 rows of a panel at one block: their values as 8 vectors of one 32-bit word per row,
// their f32 scales, and what each row's dot starts from on the weights' side (q8 from its
// rows: -128 times the sum of the row's block; q4_0, and q8 from its copy: 0, their offset
// is the activations'). Lanes in the transpose's order.
struct PanelBlock {
  __m512i v[8];
  __m512 scale;
  __m512i start;
  __m512 min;  // q4_K: each row's sub-block min, dmin * m (the others: unused)
  // q6_K: words 4-7 (the block's second 16-value sub-block) have their own scale and start;
  // scale and start above are words 0-3's.
  __m512 scale_hi;
  __m512i start_hi;
};

// Which row of the panel each lane holds after a type's transpose (kLaneRow), and each row's
// lane (kRowLane, for the permutation back to row order), per type.
//   q4_0  lane 4 l + a holds row 4 a + l (its own inverse);
//   q8    lane 4 L + a holds row 8 (L / 2) + 2 a + L % 2 (LoadQ8PanelBlock says why).
constexpr int32_t kQ4_0LaneRow[kPanelRows] = {0, 4, 8, 12, 1, 5, 9, 13,
                                              2, 6, 10, 14, 3, 7, 11, 15};
constexpr int32_t kQ8LaneRow[kPanelRows] = {0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15};
constexpr int32_t kQ8RowLane[kPanelRows] = {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15};

HWY_INLINE __m512i LoadLanes(const int32_t* lanes) { return _mm512_loadu_si512(lanes); }

// What linear_int8.cc's panel code names at every panel width (int8_panels256-inl.h: AVX2).
using PanelI = __m512i;
using PanelF = __m512;
// v's lanes in row order, from a type's row -> lane map (its own inverse for q4_0; kQ8RowLane
// for kQ8LaneRow).
HWY_INLINE __m512 PanelRowOrder(__m512 v, const int32_t* row_lane) {
  return _mm512_permutexvar_ps(LoadLanes(row_lane), v);
}
HWY_INLINE __m512i PanelSetI(int32_t v) { return _mm512_set1_epi32(v); }

HWY_INLINE __m512i PanelOffsets(const void* const* p, const int32_t* lane_row) {
  return PanelOffsetsOf<kPanelRows>(p, lane_row).raw;
}


// 16 bytes at rows[r] + at for each row, row 4 a + l in 128-bit lane l of z[a]; `count`
// bytes of each (at most 16), zeros after (a q8 row's short last block: nothing past it read).
HWY_INLINE void LoadRowBytes(const uint8_t* const* rows, size_t at, size_t count, __m512i* z) {
  const __mmask16 live = static_cast<__mmask16>((1u << count) - 1);
  for (size_t a = 0; a < 4; ++a) {
    const auto bytes = [&](size_t r) { return _mm_maskz_loadu_epi8(live, rows[r] + at); };
    __m512i v = _mm512_castsi128_si512(bytes(4 * a));
    v = _mm512_inserti32x4(v, bytes(4 * a + 1), 1);
    v = _mm512_inserti32x4(v, bytes(4 * a + 2), 2);
    z[a] = _mm512_inserti32x4(v, bytes(4 * a + 3), 3);
  }
}

// The f16 at base + offsets (lane order) plus `at` bytes, as f32.
HWY_INLINE __m512 GatherScales(const void* base, __m512i offsets, size_t at) {
  const __m512i words = _mm512_i32gather_epi32(
      _mm512_add_epi32(offsets, _mm512_set1_epi32(static_cast<int32_t>(at))), base, 1);
  return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(words));
}

// Block b of the panel's q4_0 rows (rows[r]: row r's first block; offsets:
// PanelOffsets(rows, kQ4_0LaneRow)).
// Word k of a block's 16 nibble bytes holds values 4k.. (low nibbles) and 16 + 4k.. (high).
HWY_INLINE void LoadQ4_0PanelBlock(const uint8_t* const* rows, __m512i offsets, size_t b,
                                   PanelBlock* out) {
  const size_t at = b * kQ4_0BlockBytes;
  __m512i z[4], words[4];
  LoadRowBytes(rows, at + 2, 16, z);
  TransposeWords<kPanelRows>(z, words);
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  for (size_t k = 0; k < 4; ++k) {
    out->v[k] = _mm512_and_si512(words[k], low4);
    out->v[k + 4] = _mm512_and_si512(_mm512_srli_epi32(words[k], 4), low4);
  }
  // Each row's f16 scale: the low half of the 32-bit word at its block's start.
  out->scale = GatherScales(rows[0], offsets, at);
  out->start = _mm512_setzero_si512();
}

// v[g], lane order kQ8LaneRow: word g of the 32 bytes at rows[r] + at (the bytes `live`
// selects, zeros for the others). Each row's 32 bytes are one 256-bit load, two rows per
// vector, so z[k]'s 128-bit lanes are words 0-3 and 4-7 of row 2k, then of row 2k + 1. The
// in-lane transposes of z[0..3] and z[4..7] leave word g and word 4 + g of 4 rows in alternate
// 128-bit lanes; one shuffle of 128-bit lanes per word gathers the 16 rows' word g.
HWY_INLINE void LoadRowWords32(const uint8_t* const* rows, size_t at, __mmask32 live,
                               __m512i* v) {
  __m512i z[8];
  for (size_t k = 0; k < 8; ++k) {
    const __m256i lo = _mm256_maskz_loadu_epi8(live, rows[2 * k] + at);
    const __m256i hi = _mm256_maskz_loadu_epi8(live, rows[2 * k + 1] + at);
    z[k] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
  }
  __m512i first[4], second[4];  // rows 0-7, rows 8-15
  TransposeWords<kPanelRows>(z, first);
  TransposeWords<kPanelRows>(z + 4, second);
  for (size_t k = 0; k < 4; ++k) {
    v[k] = _mm512_shuffle_i32x4(first[k], second[k], _MM_SHUFFLE(2, 0, 2, 0));
    v[k + 4] = _mm512_shuffle_i32x4(first[k], second[k], _MM_SHUFFLE(3, 1, 3, 1));
  }
}

using Q4_KPanelScales = Q4_KPanelScalesOf<__m512i, __m512>;

// Chunk c (0..7) of the panel's q4_K super-block: its 32 nibbles per row (the low or high ones
// of the 32 bytes at `at`), each row's step d * sc[c] and min dmin * m[c] (exact in f32).
HWY_INLINE void LoadQ4_KPanelBlock(const uint8_t* const* rows, size_t at, size_t c,
                                   const Q4_KPanelScales& s, PanelBlock* out) {
  LoadRowWords32(rows, at, ~__mmask32{0}, out->v);
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  for (size_t g = 0; g < 8; ++g) {
    out->v[g] = _mm512_and_si512(c % 2 == 0 ? out->v[g] : _mm512_srli_epi32(out->v[g], 4), low4);
  }
  Q4_KLaneStepMin(hn::CappedTag<float, kPanelRows>(), s.w0, s.w1, s.w2, s.d, s.dmin, c,
                  &out->scale, &out->min);
  out->start = _mm512_setzero_si512();
}

#if ATTNRT_I8_VNNI
// Block b of the panel's q8 rows (rows[r]: row r's values, K of them; scale_rows[r]: its f16
// scales; scale_offsets: PanelOffsets(scale_rows, kQ8LaneRow)): LoadRowWords32, masked for
// a short last block (nothing past K is read).
HWY_INLINE void LoadQ8PanelBlock(const uint8_t* const* rows, const uint16_t* const* scale_rows,
                                 __m512i scale_offsets, size_t K, size_t b, PanelBlock* out) {
  const size_t at = b * kI8Block;
  const size_t n = HWY_MIN(kI8Block, K - at);
  const __mmask32 live = n == kI8Block ? ~__mmask32{0} : (__mmask32{1} << n) - 1;
  LoadRowWords32(rows, at, live, out->v);
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i sum[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
  for (size_t g = 0; g < 8; ++g) sum[g / 4] = _mm512_dpbusd_epi32(sum[g / 4], ones, out->v[g]);
  out->start = _mm512_sub_epi32(_mm512_setzero_si512(),
                                _mm512_slli_epi32(_mm512_add_epi32(sum[0], sum[1]), 7));
  out->scale = GatherScales(scale_rows[0], scale_offsets, b * sizeof(uint16_t));
}
#endif

// acc + the panel's block against one x row's block: a (its 32 8-bit values, unsigned for
// q8), start (what each dot starts from: block.start, or the x row's q4_0 offset), s (its
// scale). kWeightsUnsigned: q4_0's nibbles are vpdpbusd's unsigned operand, else the
// activations are.
template <bool kWeightsUnsigned>
HWY_INLINE __m512 PanelBlockDot(const PanelBlock& w, const int8_t* a, __m512i start, float s,
                                __m512 acc) {
#if ATTNRT_I8_VNNI
  // Two chains of 4 (words 0-3 from start, 4-7 from 0): half the latency of one chain of 8
  // in decode, where one x row leaves nothing else to overlap.
  __m512i dot[2] = {start, _mm512_setzero_si512()};
  for (size_t g = 0; g < 8; ++g) {
    int32_t word;
    __builtin_memcpy(&word, a + 4 * g, sizeof(word));
    const __m512i ag = _mm512_set1_epi32(word);
    __m512i& d = dot[g / 4];
    d = kWeightsUnsigned ? _mm512_dpbusd_epi32(d, w.v[g], ag)
                         : _mm512_dpbusd_epi32(d, ag, w.v[g]);
  }
  const __m512i sum = _mm512_add_epi32(dot[0], dot[1]);
#else
  // Only the nibble types' panels (0..15) here: vpmaddubsw's pairs (<= 2 * 15 * 127 = 3810)
  // summed in int16 as on AVX2 (8 words <= 30480), one vpmaddwd per block instead of one per
  // word (linear_bench prefill 256x288x768, the Zen 5 running AVX3 code, medians of 12
  // alternating runs: q4_0 0.294 -> 0.233 ms, q4_K 0.329 -> 0.262 ms).
  static_assert(kWeightsUnsigned, "without VNNI only the nibble types' panels");
  __m512i pairs[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
  for (size_t g = 0; g < 8; ++g) {
    int32_t word;
    __builtin_memcpy(&word, a + 4 * g, sizeof(word));
    pairs[g / 4] =
        _mm512_add_epi16(pairs[g / 4], _mm512_maddubs_epi16(w.v[g], _mm512_set1_epi32(word)));
  }
  const __m512i sum = _mm512_add_epi32(
      start, _mm512_madd_epi16(_mm512_add_epi16(pairs[0], pairs[1]), _mm512_set1_epi16(1)));
#endif
  return _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum), _mm512_mul_ps(w.scale, _mm512_set1_ps(s)),
                         acc);
}

// The nibble types' dot (q4_0, q4_K), under the name the AVX2 panels give theirs.
HWY_INLINE __m512 PanelBlockDotNibbles(const PanelBlock& w, const int8_t* a, __m512i start,
                                       float s, __m512 acc) {
  return PanelBlockDot<true>(w, a, start, s, acc);
}

// q8's copy: offset bytes w + 128 (weight_panels.h) against the signed activations. VNNI:
// one vpdpbusd per word from the x row's start -128 * sum(a) (kQ8CopyStartsFromX). Without
// it vpmaddubsw's pairs of 255 * 127 would saturate int16, so the sign trick: w = (w + 128)
// ^ 0x80, |w| (<= 127, the unsigned operand) against a negated where w < 0, a pair at most
// 2 * 127 * 127 = 32258 in magnitude, widened per word: sum(w * a) itself, `start` unused.
// (The copy's bytes split into two nibble operands instead, 16 vpmaddubsw a block, was
// 1.45x slower in prefill on AVX2: int8_panels256-inl.h.)
constexpr bool kQ8CopyStartsFromX = ATTNRT_I8_VNNI;
HWY_INLINE __m512 PanelBlockDotOffsetBytes(const PanelBlock& w, const int8_t* a, __m512i start,
                                           float s, __m512 acc) {
#if ATTNRT_I8_VNNI
  return PanelBlockDot<true>(w, a, start, s, acc);
#else
  (void)start;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512i dot[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
  for (size_t g = 0; g < 8; ++g) {
    int32_t word;
    __builtin_memcpy(&word, a + 4 * g, sizeof(word));
    const __m512i ag = _mm512_set1_epi32(word);
    const __m512i wg = _mm512_xor_si512(w.v[g], flip);
    const __m512i signed_a = _mm512_mask_sub_epi8(ag, _mm512_movepi8_mask(wg),
                                                  _mm512_setzero_si512(), ag);
    const __m512i pairs = _mm512_maddubs_epi16(_mm512_abs_epi8(wg), signed_a);
    dot[g % 2] = _mm512_add_epi32(dot[g % 2], _mm512_madd_epi16(pairs, _mm512_set1_epi16(1)));
  }
  const __m512i sum = _mm512_add_epi32(dot[0], dot[1]);
  return _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum), _mm512_mul_ps(w.scale, _mm512_set1_ps(s)),
                         acc);
#endif
}

using Q6_KPanelScales = Q6_KPanelScalesOf<__m512i, __m512>;

// -128 * each lane's sum of the 4 signed bytes of each word v[0..3]: a q6_K half's dot start
// for the activations' + 128. Without VNNI the pairs (|pair| <= 64) sum in int16 first.
HWY_INLINE __m512i Q6_KHalfStart(const __m512i* v) {
  const __m512i ones = _mm512_set1_epi8(1);
#if ATTNRT_I8_VNNI
  __m512i sum = _mm512_setzero_si512();
  for (size_t g = 0; g < 4; ++g) sum = _mm512_dpbusd_epi32(sum, ones, v[g]);
#else
  __m512i pairs = _mm512_setzero_si512();
  for (size_t g = 0; g < 4; ++g) pairs = _mm512_add_epi16(pairs, _mm512_maddubs_epi16(ones, v[g]));
  const __m512i sum = _mm512_madd_epi16(pairs, _mm512_set1_epi16(1));
#endif
  return _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(sum, 7));
}

// Chunk c (0..7) of the panel's q6_K super-block: q - 32 per row as signed bytes (ql's low or
// high nibbles at ql_at, qh's bit pair 2 (c % 4) at qh_at: Q6_KJoinWords), each half's dot
// start -128 * (sum of its q - 32) for the activations' + 128 (q8's form), and the halves'
// scales d * sc.
HWY_INLINE void LoadQ6_KPanelBlock(const uint8_t* const* rows, size_t ql_at, size_t qh_at,
                                   size_t c, const Q6_KPanelScales& s, PanelBlock* out) {
  __m512i high[8];
  LoadRowWords32(rows, ql_at, ~__mmask32{0}, out->v);
  LoadRowWords32(rows, qh_at, ~__mmask32{0}, high);
  Q6_KJoinWords<kPanelRows>(out->v, high, c);
  out->start = Q6_KHalfStart(out->v);
  out->start_hi = Q6_KHalfStart(out->v + 4);
  Q6_KLaneScales(hn::CappedTag<float, kPanelRows>(), s.sc, s.d, c, &out->scale, &out->scale_hi);
}

using PanelStarts = PanelStartsOf<__m512i>;

// acc + a q6_K panel block against one x row's block a (s: its scale): the two halves' dots
// each from its start, each times its own scale. kWeightsUnsigned (the copy): q in [0, 63]
// against the signed activations; else (the rows) q - 32 in [-32, 31] against a + 128 in
// [1, 255]. Without VNNI through vpmaddubsw: a pair is at most 2 * 63 * 127 = 16002, or at
// least 2 * 255 * -32 = -16320, so two words' pairs sum in int16 before vpmaddwd.
template <bool kWeightsUnsigned>
HWY_INLINE __m512 PanelBlockDotHalves(const PanelBlock& w, const int8_t* a, PanelStarts start,
                                      float s, __m512 acc) {
  __m512i dot[2] = {start.lo, start.hi};
  const auto word_of = [&](size_t g) {
    int32_t word;
    __builtin_memcpy(&word, a + 4 * g, sizeof(word));
    return _mm512_set1_epi32(word);
  };
#if ATTNRT_I8_VNNI
  for (size_t g = 0; g < 8; ++g) {
    dot[g / 4] = kWeightsUnsigned ? _mm512_dpbusd_epi32(dot[g / 4], w.v[g], word_of(g))
                                  : _mm512_dpbusd_epi32(dot[g / 4], word_of(g), w.v[g]);
  }
#else
  const auto pairs = [&](size_t g) {
    return kWeightsUnsigned ? _mm512_maddubs_epi16(w.v[g], word_of(g))
                            : _mm512_maddubs_epi16(word_of(g), w.v[g]);
  };
  for (size_t g = 0; g < 8; g += 2) {
    const __m512i sum = _mm512_add_epi16(pairs(g), pairs(g + 1));
    dot[g / 4] = _mm512_add_epi32(dot[g / 4], _mm512_madd_epi16(sum, _mm512_set1_epi16(1)));
  }
#endif
  const __m512 as = _mm512_set1_ps(s);
  acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[0]), _mm512_mul_ps(w.scale, as), acc);
  return _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[1]), _mm512_mul_ps(w.scale_hi, as), acc);
}

#endif  // ATTNRT_I8_X86 == 512

ATTNRT_I8_END
ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_INT8_PANELS_INL_H_
