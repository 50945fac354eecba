// The per-target pieces of the integer Linear for GGUF's k-quant super-blocks (q4_K,
// weight_q4_K.h; q6_K, weight_q6_K.h), beside int8_dot-inl.h's q8 and q4_0: a step's weights
// loaded from a super-block in place, and q6_K's dot, whose 16-value sub-blocks each carry
// an integer scale. A step is one activation block of 32 values (two on AVX-512), so block b
// of a row is 32-value chunk b % 8 of super-block b / 8.
//
//   q4_K  the stored nibbles q (0..15) as bytes: every target's dot takes them as they are
//         (x86: the unsigned operand; the others: non-negative signed bytes). The value is
//         step * q - offset per 32-value sub-block; linear_int8.cc scales the dot by the step
//         and subtracts the offsets once per super-block from the activation block sums.
//   q6_K  the stored 6-bit q (0..63) on x86, the unsigned operand, minus the same products of
//         32 (on AVX2 and SSE4 in vpmaddubsw's int16 pairs: a pair of (q - 32) a products is at
//         most 2 * 32 * 127 = 8128 in magnitude; each maddubs is exact, so is their
//         difference). Elsewhere q - 32 as signed bytes. Where the sub-block scales multiply
//         in int32 (DotStepQ6_K below), a block's sum is at most 2 * 128 * 16 * 32 * 127 =
//         16,646,144 < 2^24 in magnitude: exact in f32 too.

#if defined(ATTNRT_KERNELS_HWY_INT8_KQUANT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_INT8_KQUANT_INL_H_
#undef ATTNRT_KERNELS_HWY_INT8_KQUANT_INL_H_
#else
#define ATTNRT_KERNELS_HWY_INT8_KQUANT_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/weight_q4_K.h"
#include "attnrt/kernels/weight_q6_K.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/int8_dot-inl.h"
#include "kernels/hwy/linear_int8.h"  // int8_linear::kMinLanes

ATTNRT_HWY_BEGIN
ATTNRT_I8_BEGIN

constexpr size_t kSuperBlocks = kQ4_KBlock / kI8Block;  // activation blocks per super-block
static_assert(kQ6_KBlock == kQ4_KBlock, "both k-quants have super-blocks of 256");
static_assert(kSuperBlocks % kStepBlocks == 0, "a step never spans two super-blocks");

// ------------------------------------------------------------------ q4_K
// The step at chunk c = b % 8 of the super-block at `block`: nibbles of the 32 bytes of
// chunk pair c / 2, the low ones for even c, the high ones for odd c (AVX-512: c even, the
// pair's low nibbles then its high ones).
#if defined(ATTNRT_I8_X86)
#if ATTNRT_I8_X86 == 512
HWY_INLINE WStep LoadQ4_KStep(const uint8_t* block, size_t c) {
  const __m256i v = _mm256_loadu_si256(
      reinterpret_cast<const __m256i*>(block + kQ4_KNibblesAt + c / 2 * 32));
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  return {_mm512_inserti64x4(_mm512_castsi256_si512(_mm256_and_si256(v, low4)),
                             _mm256_and_si256(_mm256_srli_epi16(v, 4), low4), 1)};
}
#elif ATTNRT_I8_X86 == 256
HWY_INLINE WStep LoadQ4_KStep(const uint8_t* block, size_t c) {
  __m256i v = _mm256_loadu_si256(
      reinterpret_cast<const __m256i*>(block + kQ4_KNibblesAt + c / 2 * 32));
  if (c % 2 != 0) v = _mm256_srli_epi16(v, 4);
  return {_mm256_and_si256(v, _mm256_set1_epi8(0x0F))};
}
#else  // 128
HWY_INLINE WStep LoadQ4_KStep(const uint8_t* block, size_t c) {
  const uint8_t* q = block + kQ4_KNibblesAt + c / 2 * 32;
  __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
  __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 16));
  if (c % 2 != 0) {
    lo = _mm_srli_epi16(lo, 4);
    hi = _mm_srli_epi16(hi, 4);
  }
  const __m128i low4 = _mm_set1_epi8(0x0F);
  return {_mm_and_si128(lo, low4), _mm_and_si128(hi, low4)};
}
#endif
#elif defined(ATTNRT_I8_NEON) || defined(ATTNRT_I8_MVE)
HWY_INLINE WStep LoadQ4_KStep(const uint8_t* block, size_t c) {
  const uint8_t* q = block + kQ4_KNibblesAt + c / 2 * 32;
  const uint8x16_t lo = vld1q_u8(q), hi = vld1q_u8(q + 16);
  if (c % 2 != 0) return {vreinterpretq_s8_u8(vshrq_n_u8(lo, 4)), vreinterpretq_s8_u8(vshrq_n_u8(hi, 4))};
  const uint8x16_t low4 = vdupq_n_u8(0x0F);
  return {vreinterpretq_s8_u8(vandq_u8(lo, low4)), vreinterpretq_s8_u8(vandq_u8(hi, low4))};
}
#else  // memory
HWY_INLINE WStep LoadQ4_KStep(const uint8_t* block, size_t c) {
  const uint8_t* q = block + kQ4_KNibblesAt + c / 2 * 32;
  const int shift = c % 2 != 0 ? 4 : 0;
  WStep w;
  for (size_t j = 0; j < kI8Block; ++j) w.v[j] = static_cast<int8_t>((q[j] >> shift) & 15);
  return w;
}
#endif

// ------------------------------------------------------------------ q6_K
// The step at chunk c = b % 8 = 4 h + cc (weight_q6_K.h): ql bytes 64 h + 32 (cc % 2), their
// low (cc < 2) or high nibbles, joined with bits 2 cc of qh bytes 32 h as bits 4 and 5.
// x86 keeps q (0..63); the others q - 32. AVX-512 (c even): chunks c and c + 1, whose ql
// bytes are the 64 at 64 h and whose qh pairs sit 2 bits apart.
#if defined(ATTNRT_I8_X86)
#if ATTNRT_I8_X86 == 512
HWY_INLINE WStep LoadQ6_KStep(const uint8_t* block, size_t c) {
  const size_t h = c / 4, cc = c % 4;
  __m512i ql = _mm512_loadu_si512(block + kQ6_KQlAt + 64 * h);
  if (cc >= 2) ql = _mm512_srli_epi16(ql, 4);
  const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + kQ6_KQhAt + 32 * h));
  const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(2 * cc));
  const __m128i shift_next = _mm_cvtsi32_si128(static_cast<int>(2 * cc + 2));
  const __m512i high = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_srl_epi16(qh, shift)),
                                          _mm256_srl_epi16(qh, shift_next), 1);
  const __m512i joined = _mm512_or_si512(
      _mm512_and_si512(ql, _mm512_set1_epi8(0x0F)),
      _mm512_slli_epi16(_mm512_and_si512(high, _mm512_set1_epi8(3)), 4));
  return {joined};
}
#elif ATTNRT_I8_X86 == 256
HWY_INLINE WStep LoadQ6_KStep(const uint8_t* block, size_t c) {
  const size_t h = c / 4, cc = c % 4;
  __m256i ql = _mm256_loadu_si256(
      reinterpret_cast<const __m256i*>(block + kQ6_KQlAt + 64 * h + 32 * (cc % 2)));
  if (cc >= 2) ql = _mm256_srli_epi16(ql, 4);
  const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + kQ6_KQhAt + 32 * h));
  const __m256i high = _mm256_srl_epi16(qh, _mm_cvtsi32_si128(static_cast<int>(2 * cc)));
  return {_mm256_or_si256(_mm256_and_si256(ql, _mm256_set1_epi8(0x0F)),
                          _mm256_slli_epi16(_mm256_and_si256(high, _mm256_set1_epi8(3)), 4))};
}
#else  // 128
HWY_INLINE WStep LoadQ6_KStep(const uint8_t* block, size_t c) {
  const size_t h = c / 4, cc = c % 4;
  const uint8_t* ql = block + kQ6_KQlAt + 64 * h + 32 * (cc % 2);
  const uint8_t* qh = block + kQ6_KQhAt + 32 * h;
  const __m128i nib_shift = _mm_cvtsi32_si128(cc >= 2 ? 4 : 0);
  const __m128i high_shift = _mm_cvtsi32_si128(static_cast<int>(2 * cc));
  const __m128i low4 = _mm_set1_epi8(0x0F), two = _mm_set1_epi8(3);
  const auto half = [&](size_t at) {
    const __m128i l = _mm_srl_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ql + at)), nib_shift);
    const __m128i hb = _mm_srl_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qh + at)), high_shift);
    return _mm_or_si128(_mm_and_si128(l, low4), _mm_slli_epi16(_mm_and_si128(hb, two), 4));
  };
  return {half(0), half(16)};
}
#endif
#elif defined(ATTNRT_I8_NEON) || defined(ATTNRT_I8_MVE)
HWY_INLINE WStep LoadQ6_KStep(const uint8_t* block, size_t c) {
  const size_t h = c / 4, cc = c % 4;
  const uint8_t* ql = block + kQ6_KQlAt + 64 * h + 32 * (cc % 2);
  const uint8_t* qh = block + kQ6_KQhAt + 32 * h;
  const int8x16_t nib_shift = vdupq_n_s8(static_cast<int8_t>(cc >= 2 ? -4 : 0));  // right
  const int8x16_t high_shift = vdupq_n_s8(static_cast<int8_t>(-2 * static_cast<int>(cc)));
  const auto half = [&](size_t at) {
    const uint8x16_t l = vandq_u8(vshlq_u8(vld1q_u8(ql + at), nib_shift), vdupq_n_u8(0x0F));
    const uint8x16_t hb = vandq_u8(vshlq_u8(vld1q_u8(qh + at), high_shift), vdupq_n_u8(3));
    return vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(l, vshlq_n_u8(hb, 4))), vdupq_n_s8(32));
  };
  return {half(0), half(16)};
}
#else  // memory
HWY_INLINE WStep LoadQ6_KStep(const uint8_t* block, size_t c) {
  WStep w;
  for (size_t j = 0; j < kI8Block; ++j) {
    w.v[j] = static_cast<int8_t>(static_cast<int>(Q6_KQuant(block, kI8Block * c + j)) - 32);
  }
  return w;
}
#endif

// q6_K's scales of one row's super-block (Q6_KScales, LoadQ6_KScales: once per row and
// super-block), each step's lane scales (Q6_KStepScale) and its int32 lanes (DotStepQ6_K),
// whose products times their lanes' scales sum to the step's value: c = b % 8, the step's
// first chunk; `a`: kStepValues activations.
//   AVX-512: each int32 lane holds 4 products of one 16-value sub-block (vpdpbusd, or
//     vpmaddubsw + vpmaddwd, of q with a, minus the same of 32 with a: the x row's term,
//     computed once for a tile's rows); the lane's scale is d * sc[s] in f32 (exact: 11 + 8
//     bits), picked per step from the super-block's 16 by one permute.
//   Elsewhere: the sub-block scales multiply inside the int32 sum of each block (vpmaddwd
//     against the pairs' scales on AVX2 and SSE4, an int32 multiply on NEON, Helium and in
//     memory), and the step's lanes take d.
#if ATTNRT_I8_X86 == 512
struct Q6_KScales {
  alignas(64) float step[16];  // d * sc[s], s the 16-value sub-block
};
HWY_INLINE void LoadQ6_KScales(const uint8_t* block, Q6_KScales* s) {
  const __m512i sc = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + kQ6_KScalesAt)));
  const float d = WidenF16(LoadF16Bits(block + kQ6_KDAt));
  _mm512_store_ps(s->step, _mm512_mul_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(sc)));
}
HWY_INLINE VStep Q6_KStepScale(const Q6_KScales& s, size_t c) {
  // int32 lane l of the step (values 4 l .. 4 l + 3 of its 64) is in sub-block 2 c + l / 4.
  const __m512i pick = _mm512_add_epi32(
      _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3),
      _mm512_set1_epi32(static_cast<int>(2 * c)));
  return VStep{_mm512_permutexvar_ps(pick, _mm512_load_ps(s.step))};
}
HWY_INLINE VStepI DotStepQ6_K(const WStep& w, const int8_t* a, const Q6_KScales&, size_t) {
  const __m512i av = _mm512_loadu_si512(a);
  const __m512i thirty_two = _mm512_set1_epi8(32);
#if ATTNRT_I8_VNNI
  // -32 * (sum of each lane's 4 activations) first: the same for every weight row of a tile.
  const __m512i offset = _mm512_sub_epi32(
      _mm512_setzero_si512(), _mm512_dpbusd_epi32(_mm512_setzero_si512(), thirty_two, av));
  return VStepI{_mm512_dpbusd_epi32(offset, w.v, av)};
#else
  const __m512i pairs = _mm512_sub_epi16(_mm512_maddubs_epi16(w.v, av),
                                         _mm512_maddubs_epi16(thirty_two, av));
  return VStepI{_mm512_madd_epi16(pairs, _mm512_set1_epi16(1))};
#endif
}
#else
struct Q6_KScales {  // (initialized: GCC cannot see that a tile refreshes before its first step)
  const uint8_t* scales = nullptr;  // the super-block's 16 int8 scales
  uint32_t d_bits = 0;              // d in both halves, as WeightStepScale takes a step's two blocks
};
HWY_INLINE void LoadQ6_KScales(const uint8_t* block, Q6_KScales* s) {
  s->scales = block + kQ6_KScalesAt;
  s->d_bits = LoadF16Bits(block + kQ6_KDAt) * 0x10001u;
}
HWY_INLINE VStep Q6_KStepScale(const Q6_KScales& s, size_t) { return WeightStepScale(s.d_bits); }

#if ATTNRT_I8_X86 == 256
HWY_INLINE VStepI DotStepQ6_K(const WStep& w, const int8_t* a, const Q6_KScales& s, size_t c) {
  const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
  const __m256i pairs = _mm256_sub_epi16(_mm256_maddubs_epi16(w.v, av),
                                         _mm256_maddubs_epi16(_mm256_set1_epi8(32), av));
  // int16 lane k (values 2 k, 2 k + 1 of the block's 32) is in sub-block 2 c + k / 8.
  const __m128i pick = _mm_add_epi8(_mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
                                    _mm_set1_epi8(static_cast<char>(2 * c)));
  const __m128i sc8 = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.scales)), pick);
  return VStepI{_mm256_madd_epi16(pairs, _mm256_cvtepi8_epi16(sc8))};
}
#elif ATTNRT_I8_X86 == 128
HWY_INLINE VStepI DotStepQ6_K(const WStep& w, const int8_t* a, const Q6_KScales& s, size_t c) {
  const __m128i a0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
  const __m128i a1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 16));
  const __m128i thirty_two = _mm_set1_epi8(32);
  const __m128i p0 = _mm_sub_epi16(_mm_maddubs_epi16(w.lo, a0), _mm_maddubs_epi16(thirty_two, a0));
  const __m128i p1 = _mm_sub_epi16(_mm_maddubs_epi16(w.hi, a1), _mm_maddubs_epi16(thirty_two, a1));
  const __m128i s0 = _mm_set1_epi16(static_cast<int8_t>(s.scales[2 * c]));
  const __m128i s1 = _mm_set1_epi16(static_cast<int8_t>(s.scales[2 * c + 1]));
  return VStepI{_mm_add_epi32(_mm_madd_epi16(p0, s0), _mm_madd_epi16(p1, s1))};
}
#elif defined(ATTNRT_I8_NEON)
HWY_INLINE VStepI DotStepQ6_K(const WStep& w, const int8_t* a, const Q6_KScales& s, size_t c) {
  const int8x16_t a0 = vld1q_s8(a), a1 = vld1q_s8(a + 16);
  const int32_t s0 = static_cast<int8_t>(s.scales[2 * c]);
  const int32_t s1 = static_cast<int8_t>(s.scales[2 * c + 1]);
#if defined(__ARM_FEATURE_DOTPROD)
  const int32x4_t d0 = vdotq_s32(vdupq_n_s32(0), w.lo, a0);
  const int32x4_t d1 = vdotq_s32(vdupq_n_s32(0), w.hi, a1);
#else
  int16x8_t p0 = vmull_s8(vget_low_s8(w.lo), vget_low_s8(a0));
  p0 = vmlal_s8(p0, vget_high_s8(w.lo), vget_high_s8(a0));
  int16x8_t p1 = vmull_s8(vget_low_s8(w.hi), vget_low_s8(a1));
  p1 = vmlal_s8(p1, vget_high_s8(w.hi), vget_high_s8(a1));
  const int32x4_t d0 = vpaddlq_s16(p0), d1 = vpaddlq_s16(p1);
#endif
  return VStepI(vmlaq_n_s32(vmulq_n_s32(d0, s0), d1, s1));
}
#elif defined(ATTNRT_I8_MVE)
HWY_INLINE VStepI DotStepQ6_K(const WStep& w, const int8_t* a, const Q6_KScales& s, size_t c) {
  const int32_t s0 = static_cast<int8_t>(s.scales[2 * c]);
  const int32_t s1 = static_cast<int8_t>(s.scales[2 * c + 1]);
  return hn::Set(DStepI(), s0 * vmladavq_s8(w.lo, vld1q_s8(a)) + s1 * vmladavq_s8(w.hi, vld1q_s8(a + 16)));
}
#elif HWY_HAVE_SCALABLE && (HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || \
                            HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128)
// SVE: each 16-value half by svdot (one pass from 128-bit vectors up, its lanes past the half
// loaded as zeros), times its scale.
HWY_INLINE VStepI DotStepQ6_K(const WStep& w, const int8_t* a, const Q6_KScales& s, size_t c) {
  svint32_t sum = svdup_n_s32(0);
  for (size_t h = 0; h < 2; ++h) {
    svint32_t half = svdup_n_s32(0);
    for (size_t j = 16 * h; j < 16 * (h + 1); j += svcntb()) {
      const svbool_t live = svwhilelt_b8(static_cast<uint64_t>(j), uint64_t{16 * (h + 1)});
      half = svdot_s32(half, svld1_s8(live, w.v + j), svld1_s8(live, a + j));
    }
    sum = svmla_n_s32_x(svptrue_b32(), sum, half, static_cast<int8_t>(s.scales[2 * c + h]));
  }
  return sum;
}
#else  // memory: the whole block's sum in lane 0
HWY_INLINE VStepI DotStepQ6_K(const WStep& w, const int8_t* a, const Q6_KScales& s, size_t c) {
#if HWY_TARGET == HWY_SCALAR
  const int32_t half[2] = {DotBytes(w.v, a, 16), DotBytes(w.v + 16, a + 16, 16)};
#else
  int32_t half[2] = {0, 0};
  for (size_t j = 0; j < kI8Block; ++j) half[j / 16] += int32_t{w.v[j]} * int32_t{a[j]};
#endif
  const int32_t sum = static_cast<int8_t>(s.scales[2 * c]) * half[0] +
                      static_cast<int8_t>(s.scales[2 * c + 1]) * half[1];
  const DStepI di;
  return hn::IfThenElseZero(hn::FirstN(di, 1), hn::Set(di, sum));
}
#endif
#endif  // ATTNRT_I8_X86 == 512

// ------------------------------------------------------------------ q4_K scales
// step[s] = d * sc[s] and min[s] = dmin * m[s] of the super-block at `block` for its 8
// sub-blocks, exact in f32 (weight_q4_K.h); up to kQ4_KScaleLanes as the target reads them
// (zeros past 8 where a vector of 16 lanes reads them: AVX-512, SVE). Written with
// vector stores as wide as linear_int8.cc's loads of them, so every load is forwarded from
// one store (a vector load of several narrower stores waits for them to retire).
// The f region's lanes per super-block (linear_int8.h): mins and block sums line up.
constexpr size_t kQ4_KScaleLanes = int8_linear::kMinLanes;

HWY_INLINE void UnpackQ4_KScales(const uint8_t* block, float* HWY_RESTRICT step,
                                 float* HWY_RESTRICT min) {
  uint64_t sc, m;
  Q4_KScaleMinBytes(block, &sc, &m);
  const float d = WidenF16(LoadF16Bits(block + kQ4_KDAt));
  const float dmin = WidenF16(LoadF16Bits(block + kQ4_KDminAt));
#if ATTNRT_I8_X86 == 512
  const __m128i sc8 = _mm_cvtsi64_si128(static_cast<long long>(sc));
  const __m128i m8 = _mm_cvtsi64_si128(static_cast<long long>(m));
  _mm512_store_ps(step, _mm512_mul_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(sc8))));
  _mm512_store_ps(min, _mm512_mul_ps(_mm512_set1_ps(dmin), _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(m8))));
#elif ATTNRT_I8_X86 == 256
  const __m128i sc8 = _mm_cvtsi64_si128(static_cast<long long>(sc));
  const __m128i m8 = _mm_cvtsi64_si128(static_cast<long long>(m));
  _mm256_store_ps(step, _mm256_mul_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(sc8))));
  _mm256_store_ps(min, _mm256_mul_ps(_mm256_set1_ps(dmin), _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(m8))));
#elif ATTNRT_I8_X86 == 128
  const __m128i sc8 = _mm_cvtsi64_si128(static_cast<long long>(sc));
  const __m128i m8 = _mm_cvtsi64_si128(static_cast<long long>(m));
  for (int half = 0; half < 2; ++half) {
    const __m128i s4 = _mm_cvtepu8_epi32(half == 0 ? sc8 : _mm_srli_si128(sc8, 4));
    const __m128i m4 = _mm_cvtepu8_epi32(half == 0 ? m8 : _mm_srli_si128(m8, 4));
    _mm_store_ps(step + 4 * half, _mm_mul_ps(_mm_set1_ps(d), _mm_cvtepi32_ps(s4)));
    _mm_store_ps(min + 4 * half, _mm_mul_ps(_mm_set1_ps(dmin), _mm_cvtepi32_ps(m4)));
  }
#elif defined(ATTNRT_I8_NEON)
  const uint16x8_t sc16 = vmovl_u8(vcreate_u8(sc)), m16 = vmovl_u8(vcreate_u8(m));
  vst1q_f32(step, vmulq_n_f32(vcvtq_f32_u32(vmovl_u16(vget_low_u16(sc16))), d));
  vst1q_f32(step + 4, vmulq_n_f32(vcvtq_f32_u32(vmovl_u16(vget_high_u16(sc16))), d));
  vst1q_f32(min, vmulq_n_f32(vcvtq_f32_u32(vmovl_u16(vget_low_u16(m16))), dmin));
  vst1q_f32(min + 4, vmulq_n_f32(vcvtq_f32_u32(vmovl_u16(vget_high_u16(m16))), dmin));
#else  // vectors of up to 16 lanes (SVE) may read the zeros
  for (size_t s = 0; s < kQ4_KScaleLanes; ++s) {
    step[s] = s < kSuperBlocks ? d * static_cast<float>((sc >> (8 * s)) & 63u) : 0.0f;
    min[s] = s < kSuperBlocks ? dmin * static_cast<float>((m >> (8 * s)) & 63u) : 0.0f;
  }
#endif
}

ATTNRT_I8_END
ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_INT8_KQUANT_INL_H_
