// The per-target pieces of the integer Linear (linear_int8.cc): weights of a "step" (one
// block of 32, or two on AVX-512) loaded from q8 or q4_0 storage as signed bytes, their
// exact int32 dot product with the same blocks of 8-bit activations (activation_blocks.h),
// and the f32 scale of each lane. Highway 1.0.3 has no 8-bit dot product, so the x86 and
// NEON targets use intrinsics on the raw vectors:
//   AVX3_DL  vpdpbusd (AVX-512 VNNI), 2 blocks per 512-bit vector: |w| (unsigned) times a
//            with w's sign, 4 products per int32 lane;
//   AVX3     the same operands through vpmaddubsw + vpmaddwd (AVX-512BW), 2 blocks;
//   AVX2     vpmaddubsw + vpmaddwd on one block (ggml's pattern); SSE4 the same in halves;
//   NEON     vdotq_s32 where the compiler targets dotprod, else vmull_s8 + vmlal_s8 +
//            vpadalq_s16 (armhf and baseline AArch64);
//   SVE      svdot_s32 (in every SVE), weights through a 32-byte buffer (SVE vectors are
//            sizeless, no struct may hold one);
//   Helium   (Cortex-M55, Highway's SCALAR target with MVE) VMLADAV: 16 products summed
//            into an int32 by one instruction; Dot4Mve: a block of 4 rows against activations
//            loaded once, the 4 dots as one vector (linear_int8.cc's Helium tile);
//   others   (EMU128; SCALAR for Cortex-M) int16 products through Highway's
//            ReorderWidenMulAccumulate, or a plain int32 loop on SCALAR.
// Exactness: |w| <= 127 and |a| <= 127, so a pair of products is at most 32258 and fits
// vpmaddubsw's saturating int16 (no activation is -128: activation_blocks.h), and an int32
// lane of one block sums at most 8 pairs. The int32 partials are converted to f32 exactly
// (< 2^24) and scaled per block in f32: the only rounding is in that float part.
//
// AVX3_DL: Highway 1.0.3's target string says "avxvnni" (the VEX encoding, which Zen 4
// lacks) where it means AVX-512 VNNI, so linear_int8.cc adds avx512vnni for that target and
// uses only the 512-bit vpdpbusd, which has no VEX form.

#if defined(ATTNRT_KERNELS_HWY_INT8_DOT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_INT8_DOT_INL_H_
#undef ATTNRT_KERNELS_HWY_INT8_DOT_INL_H_
#else
#define ATTNRT_KERNELS_HWY_INT8_DOT_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "attnrt/kernels/activation_blocks.h"
#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/helium.h"
#include "attnrt/kernels/weight_q4_0.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#if ATTNRT_HELIUM
#include <arm_mve.h>
#endif
#if defined(__ARM_FEATURE_SIMD32)
#include <arm_acle.h>  // __smlad, __sxtb16, __ssub8 (the scalar target's DotBytes, LoadQ4_0)
#endif

// Per target (this file is included once for each): which intrinsics below apply, and
// ATTNRT_I8_BEGIN / ATTNRT_I8_END, which every file calling DotStep puts inside its
// HWY_BEFORE_NAMESPACE / HWY_AFTER_NAMESPACE: on AVX3_DL they add avx512vnni (GCC; a
// clang build runs the AVX3 code there), elsewhere nothing.
#undef ATTNRT_I8_X86
#undef ATTNRT_I8_NEON
#undef ATTNRT_I8_MVE
#undef ATTNRT_I8_VNNI
#undef ATTNRT_I8_BEGIN
#undef ATTNRT_I8_END
#if HWY_TARGET == HWY_AVX3_DL && HWY_COMPILER_GCC_ACTUAL
#define ATTNRT_I8_VNNI 1
#define ATTNRT_I8_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx512vnni\")")
#define ATTNRT_I8_END _Pragma("GCC pop_options")
#else
#define ATTNRT_I8_VNNI 0
#define ATTNRT_I8_BEGIN
#define ATTNRT_I8_END
#endif

ATTNRT_HWY_BEGIN
ATTNRT_I8_BEGIN

constexpr size_t kI8Block = kActivationBlock;
static_assert(kI8Block == kQ4_0Block, "q4_0 and activation blocks must line up");

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define ATTNRT_I8_X86 512
constexpr size_t kStepBlocks = 2;
using DStep = hn::CappedTag<float, 16>;
struct WStep {
  __m512i v;
};
#elif HWY_TARGET == HWY_AVX2
#define ATTNRT_I8_X86 256
constexpr size_t kStepBlocks = 1;
using DStep = hn::CappedTag<float, 8>;
struct WStep {
  __m256i v;
};
#elif HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3
#define ATTNRT_I8_X86 128
constexpr size_t kStepBlocks = 1;
using DStep = hn::CappedTag<float, 4>;
struct WStep {
  __m128i lo, hi;
};
#elif HWY_TARGET == HWY_NEON
#define ATTNRT_I8_NEON 1
constexpr size_t kStepBlocks = 1;
using DStep = hn::CappedTag<float, 4>;
struct WStep {
  int8x16_t lo, hi;
};
#elif HWY_TARGET == HWY_SCALAR && ATTNRT_HELIUM
#define ATTNRT_I8_MVE 1
constexpr size_t kStepBlocks = 1;
using DStep = hn::CappedTag<float, 1>;
struct WStep {
  int8x16_t lo, hi;
};
#else  // SVE, EMU128, SCALAR, ...: the weights in memory
constexpr size_t kStepBlocks = 1;
#if HWY_TARGET == HWY_SCALAR
using DStep = hn::CappedTag<float, 1>;
#elif HWY_HAVE_SCALABLE
using DStep = hn::ScalableTag<float>;  // svdot_s32 fills the low lanes, zeros the rest
#else
using DStep = hn::CappedTag<float, 4>;
#endif
struct WStep {
  alignas(16) int8_t v[kI8Block];
};
#endif
using DStepI = hn::RebindToSigned<DStep>;
using VStep = hn::Vec<DStep>;
using VStepI = hn::Vec<DStepI>;

constexpr size_t kStepValues = kStepBlocks * kI8Block;

// ------------------------------------------------------------------ weight loads
// LoadQ8: kStepValues int8 at p (all readable). LoadQ8First (two-block steps only): the
// first block at p, zeros for the absent second one. LoadQ4_0 / LoadQ4_0First: the same
// from q4_0 blocks at `block` (18 bytes each, the nibbles 2 bytes in), values nibble - 8,
// or the nibbles themselves where kQ4_0AsNibbles.

#if defined(ATTNRT_I8_X86)

// x86 reads q4_0 weights as their stored nibbles n in [0, 15], not n - 8: vpdpbusd and
// vpmaddubsw multiply unsigned by signed bytes, so the nibbles go in as they are (no sign
// transfer onto the activations per product), and the -8 becomes one term per block,
// -8 * (sum of the block's activations), which QuantizeRow sums once per x row and the dot
// starts from (StepOffsets). NEON, SVE and Helium multiply signed by signed and keep n - 8.
constexpr bool kQ4_0AsNibbles = true;

#if ATTNRT_I8_X86 >= 256
// One q4_0 block's 32 nibbles: the low ones (values 0..15) in the low 128 bits, the high ones
// (16..31) in the high 128 bits.
HWY_INLINE __m256i Q4_0Values256(const uint8_t* block) {
  const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 2));
  const __m256i both =
      _mm256_inserti128_si256(_mm256_castsi128_si256(qs), _mm_srli_epi16(qs, 4), 1);
  return _mm256_and_si256(both, _mm256_set1_epi8(0x0F));
}
#endif

#if ATTNRT_I8_X86 == 512
HWY_INLINE WStep LoadQ8(const int8_t* p) { return {_mm512_loadu_si512(p)}; }
HWY_INLINE WStep LoadQ8First(const int8_t* p) {
  return {_mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)))};
}
HWY_INLINE WStep LoadQ4_0(const uint8_t* block) {
  return {_mm512_inserti64x4(_mm512_castsi256_si512(Q4_0Values256(block)),
                             Q4_0Values256(block + kQ4_0BlockBytes), 1)};
}
HWY_INLINE WStep LoadQ4_0First(const uint8_t* block) {
  return {_mm512_zextsi256_si512(Q4_0Values256(block))};
}
#elif ATTNRT_I8_X86 == 256
HWY_INLINE WStep LoadQ8(const int8_t* p) {
  return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))};
}
HWY_INLINE WStep LoadQ4_0(const uint8_t* block) { return {Q4_0Values256(block)}; }
#else  // 128
HWY_INLINE WStep LoadQ8(const int8_t* p) {
  return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16))};
}
HWY_INLINE WStep LoadQ4_0(const uint8_t* block) {
  const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 2));
  const __m128i low4 = _mm_set1_epi8(0x0F);
  return {_mm_and_si128(qs, low4), _mm_and_si128(_mm_srli_epi16(qs, 4), low4)};
}
#endif

#elif defined(ATTNRT_I8_NEON) || defined(ATTNRT_I8_MVE)  // the same intrinsic names
constexpr bool kQ4_0AsNibbles = false;

HWY_INLINE WStep LoadQ8(const int8_t* p) { return {vld1q_s8(p), vld1q_s8(p + 16)}; }
HWY_INLINE WStep LoadQ4_0(const uint8_t* block) {
  const uint8x16_t qs = vld1q_u8(block + 2);
  const int8x16_t eight = vdupq_n_s8(8);
  return {vsubq_s8(vreinterpretq_s8_u8(vandq_u8(qs, vdupq_n_u8(0x0F))), eight),
          vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(qs, 4)), eight)};
}

#else  // memory
constexpr bool kQ4_0AsNibbles = false;

HWY_INLINE WStep LoadQ8(const int8_t* p) {
  WStep w;
  std::memcpy(w.v, p, kI8Block);
  return w;
}
HWY_INLINE WStep LoadQ4_0(const uint8_t* block) {
  WStep w;
#if defined(__ARM_FEATURE_SIMD32)
  // A word of nibble bytes at a time: its low and high nibbles masked, 8 taken off each byte
  // by one SSUB8 (no borrow between bytes).
  for (size_t j = 0; j < kI8Block / 2; j += 4) {
    uint32_t x;
    std::memcpy(&x, block + 2 + j, 4);
    const uint32_t low = __ssub8(x & 0x0F0F0F0Fu, 0x08080808u);
    const uint32_t high = __ssub8((x >> 4) & 0x0F0F0F0Fu, 0x08080808u);
    std::memcpy(w.v + j, &low, 4);
    std::memcpy(w.v + j + kI8Block / 2, &high, 4);
  }
#else
  for (size_t j = 0; j < kI8Block / 2; ++j) {
    w.v[j] = static_cast<int8_t>((block[2 + j] & 15) - 8);
    w.v[j + kI8Block / 2] = static_cast<int8_t>((block[2 + j] >> 4) - 8);
  }
#endif
  return w;
}

#endif

#if ATTNRT_I8_X86 != 512  // one block per step: a step never lacks its second block
HWY_INLINE WStep LoadQ8First(const int8_t* p) { return LoadQ8(p); }
HWY_INLINE WStep LoadQ4_0First(const uint8_t* block) { return LoadQ4_0(block); }
#endif

// The first `count` (< kStepValues) int8 at p, zeros after; nothing past p + count is read
// (a q8 row's last step: the next row, or past the matrix for the last one). AVX-512 masks
// the load; the others copy into a zeroed buffer.
HWY_INLINE WStep LoadQ8Partial(const int8_t* p, size_t count) {
#if ATTNRT_I8_X86 == 512
  return {_mm512_maskz_loadu_epi8((__mmask64{1} << count) - 1, p)};
#elif defined(ATTNRT_I8_MVE)  // zeroing VCTP loads: lanes past count read no memory
  return {vldrbq_z_s8(p, vctp8q(count < 16 ? count : 16)),
          count > 16 ? vldrbq_z_s8(p + 16, vctp8q(count - 16)) : vdupq_n_s8(0)};
#else
  alignas(64) int8_t padded[kStepValues] = {};
  for (size_t j = 0; j < count; ++j) padded[j] = p[j];
  return LoadQ8(padded);
#endif
}

// ------------------------------------------------------------------ dot products
// int32 lanes whose sum over each block's lanes is that block's sum_j w[j] * a[j]
// (`a`: kStepValues activations, all readable). Lanes of block j of a two-block step are
// lanes [8 j, 8 j + 8).

#if defined(ATTNRT_I8_X86)

#if ATTNRT_I8_X86 == 512
HWY_INLINE VStepI DotStep(const WStep& w, const int8_t* a) {
  const __m512i av = _mm512_loadu_si512(a);
  // a with w's sign (w = 0 gives |w| = 0, so its product is 0 whatever a becomes).
  const __m512i aw = _mm512_mask_sub_epi8(av, _mm512_movepi8_mask(w.v), _mm512_setzero_si512(), av);
  const __m512i uw = _mm512_abs_epi8(w.v);
#if ATTNRT_I8_VNNI
  return VStepI{_mm512_dpbusd_epi32(_mm512_setzero_si512(), uw, aw)};
#else
  return VStepI{_mm512_madd_epi16(_mm512_maddubs_epi16(uw, aw), _mm512_set1_epi16(1))};
#endif
}
#elif ATTNRT_I8_X86 == 256
HWY_INLINE VStepI DotStep(const WStep& w, const int8_t* a) {
  const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
  const __m256i pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(w.v), _mm256_sign_epi8(av, w.v));
  return VStepI{_mm256_madd_epi16(pairs, _mm256_set1_epi16(1))};
}
#else  // 128
HWY_INLINE VStepI DotStep(const WStep& w, const int8_t* a) {
  const __m128i a0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
  const __m128i a1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 16));
  const __m128i ones = _mm_set1_epi16(1);
  const __m128i p0 = _mm_madd_epi16(_mm_maddubs_epi16(_mm_abs_epi8(w.lo), _mm_sign_epi8(a0, w.lo)), ones);
  const __m128i p1 = _mm_madd_epi16(_mm_maddubs_epi16(_mm_abs_epi8(w.hi), _mm_sign_epi8(a1, w.hi)), ones);
  return VStepI{_mm_add_epi32(p0, p1)};
}
#endif

// init + the dot of unsigned weights u (q4_0's nibbles, at most 15) with the activations:
// no sign transfer, one vpdpbusd (or vpmaddubsw + vpmaddwd) per step. A pair of products
// is at most 2 * 15 * 127, an int32 lane at most 32512 + 8 * 15 * 127 from init: exact.
HWY_INLINE VStepI DotStepNibbles(const WStep& u, const int8_t* a, VStepI init) {
#if ATTNRT_I8_X86 == 512
  const __m512i av = _mm512_loadu_si512(a);
#if ATTNRT_I8_VNNI
  return VStepI{_mm512_dpbusd_epi32(init.raw, u.v, av)};
#else
  return VStepI{_mm512_add_epi32(
      init.raw, _mm512_madd_epi16(_mm512_maddubs_epi16(u.v, av), _mm512_set1_epi16(1)))};
#endif
#elif ATTNRT_I8_X86 == 256
  const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
  return VStepI{_mm256_add_epi32(
      init.raw, _mm256_madd_epi16(_mm256_maddubs_epi16(u.v, av), _mm256_set1_epi16(1)))};
#else  // 128
  const __m128i a0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
  const __m128i a1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 16));
  const __m128i ones = _mm_set1_epi16(1);
  const __m128i p0 = _mm_madd_epi16(_mm_maddubs_epi16(u.lo, a0), ones);
  const __m128i p1 = _mm_madd_epi16(_mm_maddubs_epi16(u.hi, a1), ones);
  return VStepI{_mm_add_epi32(init.raw, _mm_add_epi32(p0, p1))};
#endif
}

// int32 lanes whose sum over block j's lanes is o[j] (o: kStepBlocks values, all readable):
// o[j] in the block's first lane, 0 in the others.
HWY_INLINE VStepI StepOffsets(const int32_t* o) {
#if ATTNRT_I8_X86 == 512
  const __m512i pick = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m512i pair = _mm512_castsi128_si512(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(o)));
  return VStepI{_mm512_maskz_permutexvar_epi32(0x0101, pick, pair)};
#elif ATTNRT_I8_X86 == 256
  return VStepI{_mm256_zextsi128_si256(_mm_cvtsi32_si128(o[0]))};
#else
  return VStepI{_mm_cvtsi32_si128(o[0])};
#endif
}

#elif defined(ATTNRT_I8_NEON)

HWY_INLINE VStepI DotStep(const WStep& w, const int8_t* a) {
  const int8x16_t a0 = vld1q_s8(a), a1 = vld1q_s8(a + 16);
#if defined(__ARM_FEATURE_DOTPROD)
  return VStepI(vdotq_s32(vdotq_s32(vdupq_n_s32(0), w.lo, a0), w.hi, a1));
#else
  // Two products per int16 lane (at most 32258), then pairs of lanes into int32.
  int16x8_t p0 = vmull_s8(vget_low_s8(w.lo), vget_low_s8(a0));
  p0 = vmlal_s8(p0, vget_high_s8(w.lo), vget_high_s8(a0));
  int16x8_t p1 = vmull_s8(vget_low_s8(w.hi), vget_low_s8(a1));
  p1 = vmlal_s8(p1, vget_high_s8(w.hi), vget_high_s8(a1));
  return VStepI(vpadalq_s16(vpaddlq_s16(p0), p1));
#endif
}

#elif defined(ATTNRT_I8_MVE)

HWY_INLINE int32_t DotMve(const WStep& w, int8x16_t a0, int8x16_t a1) {
  return vmladavaq_s8(vmladavq_s8(w.lo, a0), w.hi, a1);
}
HWY_INLINE VStepI DotStep(const WStep& w, const int8_t* a) {
  return hn::Set(DStepI(), DotMve(w, vld1q_s8(a), vld1q_s8(a + 16)));
}
// The dots of one block of 4 weight rows with the same activations (loaded once), as the 4
// int32 lanes of one vector: lane i is row i's (linear_int8.cc's Helium tile).
HWY_INLINE int32x4_t Dot4Mve(const WStep& w0, const WStep& w1, const WStep& w2,
                             const WStep& w3, const int8_t* a) {
  const int8x16_t a0 = vld1q_s8(a), a1 = vld1q_s8(a + 16);
  int32x4_t dots = vdupq_n_s32(DotMve(w0, a0, a1));
  dots = vsetq_lane_s32(DotMve(w1, a0, a1), dots, 1);
  dots = vsetq_lane_s32(DotMve(w2, a0, a1), dots, 2);
  return vsetq_lane_s32(DotMve(w3, a0, a1), dots, 3);
}

#elif HWY_TARGET == HWY_SCALAR

// sum_j w[j] * a[j] over n bytes (a multiple of 4). With the DSP extension (Cortex-M4, M7,
// M33; armhf too): per 4 bytes, SXTB16 sign-extends bytes 0 and 2 (then, rotated by 8, 1 and 3) of each
// word into two 16-bit halves and SMLAD adds both halves' products: 6 instructions and two
// word loads for 4 products, where byte loads and MLA took 12.
HWY_INLINE int32_t DotBytes(const int8_t* w, const int8_t* a, size_t n) {
  int32_t sum = 0;
#if defined(__ARM_FEATURE_SIMD32)
  for (size_t j = 0; j < n; j += 4) {
    uint32_t wv, av;
    std::memcpy(&wv, w + j, 4);
    std::memcpy(&av, a + j, 4);
    sum = __smlad(__sxtb16(wv), __sxtb16(av), sum);
    // (x >> 8 | x << 24: GCC folds the rotation into SXTB16's ROR #8)
    sum = __smlad(__sxtb16(wv >> 8 | wv << 24), __sxtb16(av >> 8 | av << 24), sum);
  }
#else
  for (size_t j = 0; j < n; ++j) sum += int32_t{w[j]} * int32_t{a[j]};
#endif
  return sum;
}

HWY_INLINE VStepI DotStep(const WStep& w, const int8_t* a) {
  return hn::Set(DStepI(), DotBytes(w.v, a, kI8Block));
}

#elif HWY_HAVE_SCALABLE && (HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || \
                            HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128)

HWY_INLINE VStepI DotStep(const WStep& w, const int8_t* a) {
  svint32_t sum = svdup_n_s32(0);
  for (size_t j = 0; j < kI8Block; j += svcntb()) {  // one pass from 256-bit vectors up
    const svbool_t live = svwhilelt_b8(static_cast<uint64_t>(j), uint64_t{kI8Block});
    sum = svdot_s32(sum, svld1_s8(live, w.v + j), svld1_s8(live, a + j));
  }
  return sum;
}

#else  // EMU128 and other fixed-width targets: Highway's int16 products

HWY_INLINE VStepI DotStep(const WStep& w, const int8_t* a) {
  const hn::CappedTag<int8_t, 8> d8;
  const hn::Rebind<int16_t, decltype(d8)> d16;
  const hn::Repartition<int32_t, decltype(d16)> d32;
  static_assert(hn::MaxLanes(d32) == hn::MaxLanes(DStepI()), "int32 lanes of one step");
  auto sum0 = hn::Zero(d32), sum1 = hn::Zero(d32);
  for (size_t j = 0; j < kI8Block; j += 8) {
    sum0 = hn::ReorderWidenMulAccumulate(d32, hn::PromoteTo(d16, hn::LoadU(d8, w.v + j)),
                                         hn::PromoteTo(d16, hn::LoadU(d8, a + j)), sum0, sum1);
  }
  return hn::Add(sum0, sum1);
}

#endif

#if !defined(ATTNRT_I8_X86)
// Signed-by-signed targets never take q4_0 as nibbles (kQ4_0AsNibbles is false); these keep
// the nibble path's templates compiling there, and are right for any weights all the same.
HWY_INLINE VStepI DotStepNibbles(const WStep& u, const int8_t* a, VStepI init) {
  return hn::Add(init, DotStep(u, a));
}
HWY_INLINE VStepI StepOffsets(const int32_t* o) {
  const DStepI di;
  return hn::IfThenElseZero(hn::FirstN(di, 1), hn::Set(di, o[0]));
}
#endif

// ------------------------------------------------------------------ scales
// Lanes of block j of the step times s[j] (s: kStepBlocks scales, all readable).
HWY_INLINE VStep StepScale(const float* s) {
#if ATTNRT_I8_X86 == 512
  const __m512i pick = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m128 pair = _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s)));
  return VStep{_mm512_permutexvar_ps(pick, _mm512_castps128_ps512(pair))};
#else
  return hn::Set(DStep(), s[0]);
#endif
}

// The same lanes from the step's f16 weight scales, widened in registers: `bits` holds block
// j's f16 in bits [16 j, 16 j + 16) (0 for an absent second block). The scales never pass
// through memory as 16-bit stores: a vector load of freshly stored halves cannot be
// store-forwarded and stalled the old per-tile widening pass (40% of a q8 GEMV on Zen 4).
// One f16 widened in registers (F16C on Highway's AVX2 and AVX-512 targets, FCVT on AArch64).
HWY_INLINE float WidenF16(uint16_t bits) {
#if ATTNRT_I8_X86 >= 256
  return _cvtsh_ss(bits);
#elif defined(ATTNRT_I8_NEON) && HWY_ARCH_ARM_A64
  return vget_lane_f32(vget_low_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(bits)))), 0);
#else
  return F16ToF32(bits);
#endif
}

HWY_INLINE VStep WeightStepScale(uint32_t bits) {
#if ATTNRT_I8_X86 == 512
  const __m512i pick = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m128 pair = _mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(bits)));
  return VStep{_mm512_permutexvar_ps(pick, _mm512_castps128_ps512(pair))};
#else
  return hn::Set(DStep(), WidenF16(static_cast<uint16_t>(bits)));
#endif
}

// x rows one tile of kTileRows weight rows runs against at once (linear_int8.cc's TileX):
// its kTileRows * kXTile accumulators, the tile's weight steps and one x row's operands fit
// the vector registers (32 on AVX-512 and AArch64, 16 on AVX2, SSE4 and armhf). Scalable
// vectors (SVE) cannot be held in arrays: one x row at a time there.
#if ATTNRT_I8_X86 == 512 || (defined(ATTNRT_I8_NEON) && HWY_ARCH_ARM_A64)
constexpr size_t kXTile = 4;
#elif HWY_HAVE_SCALABLE || HWY_TARGET == HWY_SCALAR
constexpr size_t kXTile = 1;
#else
constexpr size_t kXTile = 2;
#endif

ATTNRT_I8_END
ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_INT8_DOT_INL_H_
