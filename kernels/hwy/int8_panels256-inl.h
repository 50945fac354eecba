// q4_0, q4_K, q6_K and q8's copy on AVX2: int8_panels-inl.h's panels at half the width, 8 weight rows with one
// output per int32 lane, for linear_int8.cc's PanelColumns (the same panel structs over these
// functions, which keep int8_panels-inl.h's names and take 256-bit vectors).
//
// Why: on AVX2 the row tiles pay, per 32 weights of a row and x row, vpmaddubsw, vpmaddwd, a
// conversion, a scale product and an FMA; a prefill ran slower than the f32-activation kernel
// (prefill bench 256x288x768, Zen 4 running AVX2 code: q4_0 1.92 ms, f16 1.10 ms). In a panel a
// block against one x row is 8 vpmaddubsw with broadcast activation words, their int16 pairs
// summed, one vpmaddwd, and one conversion, scale product and FMA for 8 outputs.
//
// Exactness: the weights are nibbles (0..15, vpmaddubsw's unsigned operand) and |a| <= 127, so
// a pair is at most 2 * 15 * 127 = 3810 and the 8 words' pairs of one int16 lane sum to at
// most 30480 < 2^15: no saturation. q4_0's -8 is the x row's block offset, as on AVX-512.
//
// Lane order: row r in lane r for both types (4 x 4 word transposes in each 128-bit lane of
// two rows per vector for q4_0's 16 bytes; an 8 x 8 word transpose for q4_K's 32).

#if defined(ATTNRT_KERNELS_HWY_INT8_PANELS256_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_INT8_PANELS256_INL_H_
#undef ATTNRT_KERNELS_HWY_INT8_PANELS256_INL_H_
#else
#define ATTNRT_KERNELS_HWY_INT8_PANELS256_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/weight_q4_0.h"
#include "attnrt/kernels/weight_q4_K.h"
#include "attnrt/kernels/weight_q6_K.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/int8_dot-inl.h"
#include "kernels/hwy/int8_panels-inl.h"

ATTNRT_HWY_BEGIN
ATTNRT_I8_BEGIN

#if ATTNRT_I8_X86 == 256
#define ATTNRT_I8_Q4_0_PANELS 1
#define ATTNRT_I8_Q4_K_PANELS 1
#define ATTNRT_I8_Q6_K_PANELS 1

constexpr size_t kPanelRows = 8;
using PanelI = __m256i;
using PanelF = __m256;

struct PanelBlock {
  __m256i v[8];
  __m256 scale;
  __m256i start;
  __m256 min;  // q4_K: each row's sub-block min (q4_0: unused)
  // q6_K: words 4-7 (the block's second 16-value sub-block) have their own scale and start;
  // scale and start above are words 0-3's.
  __m256 scale_hi;
  __m256i start_hi;
};

// Row r in lane r for both types (no permutation back).
constexpr int32_t kQ4_0LaneRow[kPanelRows] = {0, 1, 2, 3, 4, 5, 6, 7};
constexpr int32_t kQ8LaneRow[kPanelRows] = {0, 1, 2, 3, 4, 5, 6, 7};
constexpr int32_t kQ8RowLane[kPanelRows] = {0, 1, 2, 3, 4, 5, 6, 7};

HWY_INLINE __m256 PanelRowOrder(__m256 v, const int32_t*) { return v; }
HWY_INLINE __m256i PanelSetI(int32_t v) { return _mm256_set1_epi32(v); }

HWY_INLINE __m256i PanelOffsets(const void* const* p, const int32_t* lane_row) {
  return PanelOffsetsOf<kPanelRows>(p, lane_row).raw;
}

// The low 16 bits of each 32-bit lane, as 8 f16 widened to f32.
HWY_INLINE __m256 WidenLowHalves(__m256i words) {
  const __m256i pick = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,
                                        0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(words, pick), 0x08);
  return _mm256_cvtph_ps(_mm256_castsi256_si128(packed));
}


// Block b of the panel's q4_0 rows: z[a] holds rows a and 4 + a, so lane 4 l + a is row 4 l + a.
HWY_INLINE void LoadQ4_0PanelBlock(const uint8_t* const* rows, __m256i offsets, size_t b,
                                   PanelBlock* out) {
  const size_t at = b * kQ4_0BlockBytes;
  __m256i z[4], words[4];
  for (size_t a = 0; a < 4; ++a) {
    const auto bytes = [&](size_t r) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[r] + at + 2));
    };
    z[a] = _mm256_inserti128_si256(_mm256_castsi128_si256(bytes(a)), bytes(a + 4), 1);
  }
  TransposeWords<kPanelRows>(z, words);
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  for (size_t k = 0; k < 4; ++k) {
    out->v[k] = _mm256_and_si256(words[k], low4);
    out->v[k + 4] = _mm256_and_si256(_mm256_srli_epi32(words[k], 4), low4);
  }
  out->scale = WidenLowHalves(_mm256_i32gather_epi32(
      reinterpret_cast<const int*>(rows[0] + at), offsets, 1));
  out->start = _mm256_setzero_si256();
}

// v[g], lane r: word g of the 32 bytes at rows[r] + at (an 8 x 8 transpose of 32-bit words).
HWY_INLINE void LoadRowWords32(const uint8_t* const* rows, size_t at, __m256i* v) {
  __m256i r[8], t[8], u[8];
  for (size_t i = 0; i < 8; ++i) {
    r[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[i] + at));
  }
  for (size_t i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
  }
  for (size_t i = 0; i < 8; i += 4) {  // u[i + k]: word k (lane 0) and 4 + k (lane 1) of rows i..i+3
    u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);
    u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);
    u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);
    u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (size_t k = 0; k < 4; ++k) {
    v[k] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x20);
    v[k + 4] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x31);
  }
}

using Q4_KPanelScales = Q4_KPanelScalesOf<__m256i, __m256>;

HWY_INLINE void LoadQ4_KPanelBlock(const uint8_t* const* rows, size_t at, size_t c,
                                   const Q4_KPanelScales& s, PanelBlock* out) {
  LoadRowWords32(rows, at, out->v);
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  for (size_t g = 0; g < 8; ++g) {
    out->v[g] = _mm256_and_si256(c % 2 == 0 ? out->v[g] : _mm256_srli_epi32(out->v[g], 4), low4);
  }
  Q4_KLaneStepMin(hn::CappedTag<float, kPanelRows>(), s.w0, s.w1, s.w2, s.d, s.dmin, c,
                  &out->scale, &out->min);
  out->start = _mm256_setzero_si256();
}

using Q6_KPanelScales = Q6_KPanelScalesOf<__m256i, __m256>;

// -128 * each lane's sum of the 4 signed bytes of each word v[0..3]: a q6_K half's dot start
// for the activations' + 128 (pairs |pair| <= 64 summed in int16 first).
HWY_INLINE __m256i Q6_KHalfStart(const __m256i* v) {
  const __m256i ones = _mm256_set1_epi8(1);
  __m256i pairs = _mm256_setzero_si256();
  for (size_t g = 0; g < 4; ++g) pairs = _mm256_add_epi16(pairs, _mm256_maddubs_epi16(ones, v[g]));
  const __m256i sum = _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
  return _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(sum, 7));
}

// Chunk c (0..7) of the panel's q6_K super-block, as int8_panels-inl.h's LoadQ6_KPanelBlock.
HWY_INLINE void LoadQ6_KPanelBlock(const uint8_t* const* rows, size_t ql_at, size_t qh_at,
                                   size_t c, const Q6_KPanelScales& s, PanelBlock* out) {
  __m256i high[8];
  LoadRowWords32(rows, ql_at, out->v);
  LoadRowWords32(rows, qh_at, high);
  Q6_KJoinWords<kPanelRows>(out->v, high, c);
  out->start = Q6_KHalfStart(out->v);
  out->start_hi = Q6_KHalfStart(out->v + 4);
  Q6_KLaneScales(hn::CappedTag<float, kPanelRows>(), s.sc, s.d, c, &out->scale, &out->scale_hi);
}

using PanelStarts = PanelStartsOf<__m256i>;

// acc + a q6_K panel block against one x row's block, as int8_panels-inl.h's
// PanelBlockDotHalves without VNNI (the same int16 bounds).
template <bool kWeightsUnsigned>
HWY_INLINE __m256 PanelBlockDotHalves(const PanelBlock& w, const int8_t* a, PanelStarts start,
                                      float s, __m256 acc) {
  __m256i dot[2] = {start.lo, start.hi};
  const auto pairs = [&](size_t g) {
    int32_t word;
    __builtin_memcpy(&word, a + 4 * g, sizeof(word));
    const __m256i ag = _mm256_set1_epi32(word);
    return kWeightsUnsigned ? _mm256_maddubs_epi16(w.v[g], ag) : _mm256_maddubs_epi16(ag, w.v[g]);
  };
  for (size_t g = 0; g < 8; g += 2) {
    const __m256i sum = _mm256_add_epi16(pairs(g), pairs(g + 1));
    dot[g / 4] = _mm256_add_epi32(dot[g / 4], _mm256_madd_epi16(sum, _mm256_set1_epi16(1)));
  }
  const __m256 as = _mm256_set1_ps(s);
  acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[0]), _mm256_mul_ps(w.scale, as), acc);
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[1]), _mm256_mul_ps(w.scale_hi, as), acc);
}

// acc + the panel's block against one x row's block (a: its 32 8-bit values; start: the x
// row's q4_0 offset or 0; s: its scale). Two chains of 4 words, each summed in int16.
HWY_INLINE __m256 PanelBlockDotNibbles(const PanelBlock& w, const int8_t* a, __m256i start,
                                       float s, __m256 acc) {
  __m256i pairs[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
  for (size_t g = 0; g < 8; ++g) {
    int32_t word;
    __builtin_memcpy(&word, a + 4 * g, sizeof(word));
    pairs[g / 4] = _mm256_add_epi16(pairs[g / 4],
                                    _mm256_maddubs_epi16(w.v[g], _mm256_set1_epi32(word)));
  }
  const __m256i dot = _mm256_add_epi32(
      start, _mm256_madd_epi16(_mm256_add_epi16(pairs[0], pairs[1]), _mm256_set1_epi16(1)));
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(w.scale, _mm256_set1_ps(s)),
                         acc);
}

// q8's copy: offset bytes w + 128 against the signed activations by the sign trick
// (int8_panels-inl.h's PanelBlockDotOffsetBytes without VNNI; vpsignb gives a the sign of
// w): sum(w * a) itself, `start` unused. Against the copy's bytes split into two nibble
// operands (16 vpmaddubsw a block), linear_bench on the Zen 5, 4 alternating runs: prefill
// 256x288x768 1.00 -> 0.69 ms, a stories15M token's GEMVs 0.32 -> 0.26 ms.
constexpr bool kQ8CopyStartsFromX = false;
HWY_INLINE __m256 PanelBlockDotOffsetBytes(const PanelBlock& w, const int8_t* a, __m256i,
                                           float s, __m256 acc) {
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  __m256i dot[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
  for (size_t g = 0; g < 8; ++g) {
    int32_t word;
    __builtin_memcpy(&word, a + 4 * g, sizeof(word));
    const __m256i wg = _mm256_xor_si256(w.v[g], flip);
    const __m256i pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(wg),
                                               _mm256_sign_epi8(_mm256_set1_epi32(word), wg));
    dot[g % 2] = _mm256_add_epi32(dot[g % 2], _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
  }
  const __m256i sum = _mm256_add_epi32(dot[0], dot[1]);
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), _mm256_mul_ps(w.scale, _mm256_set1_ps(s)),
                         acc);
}

#endif  // ATTNRT_I8_X86 == 256

ATTNRT_I8_END
ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_INT8_PANELS256_INL_H_
