// hwy integer Linear: y = x W^T + bias for integer block weights (q8, q4_0, and GGUF's k-quant
// super-blocks q4_K and q6_K) on integer dot products, the `auto` choice for those types
// (linear_variants.inc). Each row of x is
// quantized once per worker and call to 8-bit blocks of 32 (activation_blocks.h); each
// output is then sum over blocks b of (int32 dot of the block) * (weight scale * activation
// scale), the products summed exactly in int32 (int8_dot-inl.h, per target) and the blocks
// in f32. The f32-activation path stays selectable (LinearActivations::kF32: kernels/hwy/
// linear.cc, exact in the weights as stored).
//
// Work item = (chunk of kChunkRows x rows, group of kGroupRows output columns), chunk-major
// (linear_int8.h). A worker's range quantizes each chunk it touches once into its scratch
// (or, for a call of one chunk, reads x as the caller prepared it once: Int8Prepare),
// then sweeps its groups: tiles of kTileRows weight rows, read in place in their stored
// layout, against kXTile x rows of the chunk at a time (int8_dot-inl.h: 4 where there are 32
// vector registers), so each weight step is loaded and decoded once per kXTile x rows and
// each activation step once per tile; the tile's rows stay in L1 for the chunk's other rows,
// so W is streamed from memory once per chunk: once per decode step.
// Traffic, decode (one x row): the weights once (q4_0: 18 bytes per 32 weights, q8: 34),
// the activations (K bytes + K/8 scale bytes) from L1 per tile.
// Arithmetic per step (2 blocks on AVX-512), weight row and x row: the dot (AVX-512 VNNI:
// sign, vpdpbusd; |w| once per weight row), an int32 -> f32 conversion, the step's scale
// (weight scale times activation scale, both widened in registers once per row) and one FMA.
//
// Helium (Cortex-M55: Highway's SCALAR target, one lane, plus MVE; ATTNRT_I8_MVE): the
// activations are quantized 4 lanes at a time with MVE, a tile's 4 rows go through each block
// together (one activation load, a VMLADAV pair per row, the 4 dots converted and scaled as
// one vector), and the tile's f16 scales are widened once per tile with f16_mve.h's integer
// steps; no per-row scale pass (ColumnsMve). One Linear of the firmware LM (96 x 288, M = 1):
// 100,953 guest instructions before, 25,485 after; Helium's f32-activation q8 kernel 48,354.
//
// k-quants (int8_kquant-inl.h) run in the row tiles on every target, a step being one or two
// of a super-block's 32-value chunks, read in place. Per row and super-block the tile decodes
// the scales once (Refresh): q4_K's 6-bit steps and mins widened to f32 (d * sc, dmin * m, exact),
// q6_K's d. q4_K: the dot of the stored nibbles, times step * activation scale per block,
// and once per super-block the mins' term, sum over its blocks of min * (d_a * sum of the
// block's 8-bit activations), which QuantizeRow leaves in the f region. q6_K: its 16-value
// sub-blocks' int8 scales multiply inside the integer dot (DotStepQ6_K), d * d_a per block.
// Decode at dim 512 / hidden 1536, 8 layers on the Zen 4, 1 thread: q4_K 7.18 -> 1.85 ms per
// token, q6_K 7.97 -> 2.45 ms (from the f32-activation path).
//
// AVX-512 (int8_panels-inl.h): q4_0, q4_K and q6_K on chunks of two x rows or more, and q8 on
// such chunks with VNNI, run in panels of 16 weight rows transposed in registers, one output
// per int32 lane: a block against an x row is 8 vpdpbusd and one conversion, scale product
// and FMA for 16 outputs (prefill of 64 tokens at SmolLM2-135M's shape on the Zen 4: q4_0 168
// -> 68 ms, q8 142 -> 79 ms). AVX2 (int8_panels256-inl.h): q4_0, q4_K and q6_K the same way
// in panels of 8 rows. Weights are read as the file stores them, except q4_0's when the caller
// gives the panel copy this kernel asks for (LinearParams::w_packed, weight_panels.h: the CLI
// makes it at load, model.h's PackModelWeights), and q4_K's likewise: a q4_0 panel block is
// then 5 vector loads in place of 16 row loads, a transpose and a gather of the scales, the
// same arithmetic in the same order (bit-identical), and a q4_0 GEMV from cache 2.3-4.6x
// faster on the Zen 4.
//
// Every output's summation order depends only on K, the type and the target (and, for the
// types whose panels take only chunks of two rows or more, whether its chunk has one x row),
// never on the tile or item it falls in, so any split of the items gives bit-identical results.
//
// Compiled with -ffp-contract=off (kernels/CMakeLists.txt): the activations' rounding
// (x * (127 / amax), then to nearest even) must not be fused into one FMA, or a target would
// round some values differently from activation_blocks.h's rule, which the tests check.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/linear_int8.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "attnrt/kernels/activation_blocks.h"
#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/linear_kernel.h"
#include "attnrt/kernels/weight_panels.h"
#include "attnrt/kernels/weight_q4_0.h"
#include "attnrt/kernels/weight_q4_K.h"
#include "attnrt/kernels/weight_q6_K.h"
#include "attnrt/kernels/weight_q8.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/int8_dot-inl.h"
#include "kernels/hwy/int8_kquant-inl.h"
#include "kernels/hwy/int8_panels-inl.h"
#include "kernels/hwy/int8_panels256-inl.h"
#include "kernels/hwy/integer_sum-inl.h"
#include "kernels/hwy/linear_int8.h"
#include "kernels/hwy/prefetch.h"
#if ATTNRT_HELIUM
#include "kernels/helium/f16_mve.h"
#endif

ATTNRT_HWY_BEGIN
ATTNRT_I8_BEGIN

using int8_linear::kChunkRows;
using int8_linear::kTileRows;
using int8_linear::Layout;
// Tiles ahead of the current one whose rows are prefetched into L2, a step at a time as the
// tile's own rows are read (prefetch.h; 4 to 8 measured alike on the Zen 4, 2 slower).
constexpr size_t kPrefetchTiles = 4;

// ------------------------------------------------------------------ activations
// Where block b's d * (sum of its 8-bit values) goes in a row's f region (linear_int8.h): its
// super-block's kMinLanes floats, the first 8 of them the blocks' sums. A super-block's
// first block zeros them all: the padding lanes, and the slots of blocks past the row's
// last (a short row's last super-block).
HWY_INLINE size_t BlockSumIndex(size_t b) {
  return b / int8_linear::kBlocksPerSuper * int8_linear::kMinLanes +
         b % int8_linear::kBlocksPerSuper;
}
HWY_INLINE float* BlockSumAt(float* sums, size_t b) {
  if (b % int8_linear::kBlocksPerSuper == 0) {
    for (size_t j = 0; j < int8_linear::kMinLanes; ++j) sums[BlockSumIndex(b) + j] = 0.0f;
  }
  return sums + BlockSumIndex(b);
}

// One row of K floats into `blocks` activation blocks (q, d): activation_blocks.h's rule,
// bit for bit. amax and the non-finite test per block, then x * (127 / amax) rounded to
// nearest even by adding and taking back 1.5 * 2^23 (exact for |t| < 2^22; |t| <= 127 here):
// the sum's low mantissa bits are the integer.
#if defined(ATTNRT_I8_MVE)
// Helium (the SCALAR target has one lane): 4 lanes with MVE; a short block's loads are
// zeroing VCTP loads (no read past x + K). amax by VMAXNMA (|x|, NaN skipped), the
// non-finite test by a NaN-carrying x * 0 sum, the rounding by VCVTN (to nearest, ties to
// even: the same integer as the add of 1.5 * 2^23 for |t| <= 127) and VSTRB.32 (the low
// byte of each lane: exact in [-127, 127]).
void QuantizeRow(const float* HWY_RESTRICT x, size_t K, size_t blocks, int8_t* HWY_RESTRICT q,
                 float* HWY_RESTRICT d, int32_t*, bool,  // Helium: signed, no offsets
                 float* HWY_RESTRICT block_sums) {
  for (size_t b = 0; b < blocks; ++b) {
    int8_t* qb = q + b * kActivationBlock;
    const size_t k0 = b * kActivationBlock;
    float* sum_at = block_sums != nullptr ? BlockSumAt(block_sums, b) : nullptr;
    if (sum_at != nullptr) *sum_at = 0.0f;
    if (k0 >= K) {  // the pad block
      vst1q_s8(qb, vdupq_n_s8(0));
      vst1q_s8(qb + 16, vdupq_n_s8(0));
      d[b] = 0.0f;
      continue;
    }
    const float* xb = x + k0;
    const size_t n = HWY_MIN(kActivationBlock, K - k0);
    float32x4_t vmax = vdupq_n_f32(0.0f), poison = vdupq_n_f32(0.0f);
    for (size_t j = 0; j < kActivationBlock; j += 4) {
      const float32x4_t v = vldrwq_z_f32(xb + j, vctp32q(n > j ? n - j : 0));
      vmax = vmaxnmaq_f32(vmax, v);
      poison = vaddq_f32(poison, vmulq_n_f32(v, 0.0f));  // NaN iff a value is not finite
    }
    const float amax = vmaxnmavq_f32(0.0f, vmax);
    const bool bad = vcmpneq_f32(poison, poison) != 0;  // a NaN lane (NE holds for NaN)
    if (bad || !(amax >= kActivationTiny)) {
      vst1q_s8(qb, vdupq_n_s8(0));
      vst1q_s8(qb + 16, vdupq_n_s8(0));
      d[b] = bad ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
      if (sum_at != nullptr) *sum_at = d[b];  // NaN stays NaN; 0 for a block of zeros
      continue;
    }
    d[b] = amax / 127.0f;
    const float inv = 127.0f / amax;
    int32_t sum = 0;
    for (size_t j = 0; j < kActivationBlock; j += 4) {
      const float32x4_t v = vldrwq_z_f32(xb + j, vctp32q(n > j ? n - j : 0));
      const int32x4_t rounded = vcvtnq_s32_f32(vmulq_n_f32(v, inv));
      vstrbq_s32(qb + j, rounded);
      sum = vaddvaq_s32(sum, rounded);
    }
    if (sum_at != nullptr) *sum_at = d[b] * static_cast<float>(sum);
  }
}
#else
// `offsets` (when not null): -8 * the sum of each block's 8-bit values (linear_int8.h).
// `unsigned_values`: each value v stored as the byte v + 128 (v ^ 0x80), the unsigned operand
// of the q8 panels (int8_panels-inl.h).
void QuantizeRow(const float* HWY_RESTRICT x, size_t K, size_t blocks, int8_t* HWY_RESTRICT q,
                 float* HWY_RESTRICT d, int32_t* HWY_RESTRICT offsets, bool unsigned_values,
                 float* HWY_RESTRICT block_sums) {
  const int zero_byte = unsigned_values ? 0x80 : 0;
  const hn::CappedTag<float, kActivationBlock> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<int8_t, decltype(df)> d8;
  const size_t N = hn::Lanes(df);
  const auto magic = hn::Set(df, 12582912.0f);
  const auto magic_bits = hn::Set(di, 0x4B400000);
  HWY_ALIGN float tail[kActivationBlock];
  for (size_t b = 0; b < blocks; ++b) {
    int8_t* qb = q + b * kActivationBlock;
    const size_t k0 = b * kActivationBlock;
    if (offsets != nullptr) offsets[b] = 0;
    float* sum_at = block_sums != nullptr ? BlockSumAt(block_sums, b) : nullptr;
    if (sum_at != nullptr) *sum_at = 0.0f;
    if (k0 >= K) {  // the pad block
      std::memset(qb, zero_byte, kActivationBlock);
      d[b] = 0.0f;
      continue;
    }
    const float* xb = x + k0;
    if (K - k0 < kActivationBlock) {  // the short last block, zero-padded
      for (size_t j = 0; j < kActivationBlock; ++j) tail[j] = k0 + j < K ? x[k0 + j] : 0.0f;
      xb = tail;
    }
    auto vmax = hn::Zero(df), poison = hn::Zero(df);
    for (size_t j = 0; j < kActivationBlock; j += N) {
      const auto v = hn::LoadU(df, xb + j);
      vmax = hn::Max(vmax, hn::Abs(v));
      poison = hn::Add(poison, hn::Mul(v, hn::Zero(df)));  // NaN iff a value is not finite
    }
    const float amax = hn::GetLane(hn::MaxOfLanes(df, vmax));
    const float bad = hn::GetLane(hn::SumOfLanes(df, poison));
    if (bad != bad || !(amax >= kActivationTiny)) {
      std::memset(qb, zero_byte, kActivationBlock);
      d[b] = bad != bad ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
      if (sum_at != nullptr) *sum_at = d[b];  // NaN stays NaN; 0 for a block of zeros
      continue;
    }
    d[b] = amax / 127.0f;
    const auto inv = hn::Set(df, 127.0f / amax);
    auto sum = hn::Zero(di);
    for (size_t j = 0; j < kActivationBlock; j += N) {
      const auto t = hn::Mul(hn::LoadU(df, xb + j), inv);
      const auto rounded = hn::Sub(hn::BitCast(di, hn::Add(t, magic)), magic_bits);
      const auto bytes = hn::DemoteTo(d8, rounded);
      hn::StoreU(unsigned_values ? hn::Xor(bytes, hn::Set(d8, int8_t{-128})) : bytes, d8, qb + j);
      sum = hn::Add(sum, rounded);
    }
    if (offsets != nullptr || sum_at != nullptr) {
      const int32_t total = static_cast<int32_t>(SumOfLanesExact(di, sum));
      if (offsets != nullptr) offsets[b] = -8 * total;
      if (sum_at != nullptr) *sum_at = d[b] * static_cast<float>(total);
    }
  }
}
#endif  // ATTNRT_I8_MVE

// ------------------------------------------------------------------ weights
// The rows of one stored type, as the tile reads them: Row(n), a row's steps (int8_dot-inl.h)
// in place, FullSteps() of them directly, then, when HasTail(), one step that needs care at
// the row's end; per step its lanes' scales (Scale) and the int32 dot (Dot). A type whose
// scales live per super-block (kSuper) decodes them once per row and super-block into a
// State (Refresh, at each step whose block starts a super-block); one with sub-block offsets
// (kMins) leaves them in State::min for the tile's once-per-super-block term.

// What the types with one f16 scale per block (q8, q4_0) share: no per-super-block state.
struct PerBlockScales {
  static constexpr bool kSuper = false;
  static constexpr bool kMins = false;
  struct State {};
  HWY_INLINE void Refresh(const uint8_t*, size_t, State*) const {}
};

// The f16 scale bits of the step of row n at block b, as WeightStepScale takes them: block b
// in the low half, block b + 1 in the high half on two-block targets. A full step has both
// blocks; the tail step has its second block only when the row does (q8 with K % 64 in
// (32, 64)), so nothing past a row's last scale is read (for q8's last row: past the scale
// plane).
template <class Weights>
HWY_INLINE uint32_t StepScaleBits(const Weights& w, size_t n, size_t b) {
  uint32_t bits = w.ScaleBits(n, b);
  if (kStepBlocks == 2) bits |= uint32_t{w.ScaleBits(n, b + 1)} << 16;
  return bits;
}
template <class Weights>
HWY_INLINE VStep PerBlockStepScale(const Weights& w, size_t n, size_t b, bool tail) {
  return WeightStepScale(tail && b + 1 >= w.blocks ? w.ScaleBits(n, b) : StepScaleBits(w, n, b));
}

// q4_0: rows of 18-byte blocks, each its scale then 16 bytes of nibbles (weight_q4_0.h).
struct Q4_0Rows : PerBlockScales {
  static constexpr bool kNibbles = kQ4_0AsNibbles;  // Step: n, not n - 8 (int8_dot-inl.h)
  const uint8_t* base;
  size_t row_bytes;
  size_t blocks;  // WeightBlocksPerRow(K)

  explicit Q4_0Rows(const LinearParams& p)
      : base(static_cast<const uint8_t*>(p.w)),
        blocks(WeightBlocksPerRow(kQ4_0Info, p.in)) {
    row_bytes = blocks * kQ4_0BlockBytes;
  }
  HWY_INLINE const uint8_t* Row(size_t n) const { return base + n * row_bytes; }
  HWY_INLINE uint16_t ScaleBits(size_t n, size_t b) const {
    return Q4_0ScaleBits(Row(n) + b * kQ4_0BlockBytes);
  }
  HWY_INLINE size_t FullSteps() const { return blocks / kStepBlocks; }
  HWY_INLINE bool HasTail() const { return blocks % kStepBlocks != 0; }
  HWY_INLINE WStep Step(const uint8_t* row, size_t b) const {
    return LoadQ4_0(row + b * kQ4_0BlockBytes);
  }
  // A two-block step of which only the first block exists.
  HWY_INLINE WStep Tail(const uint8_t* row, size_t b) const {
    return LoadQ4_0First(row + b * kQ4_0BlockBytes);
  }
  HWY_INLINE VStep Scale(const State&, size_t n, size_t b, bool tail) const {
    return PerBlockStepScale(*this, n, b, tail);
  }
  // With nibble weights each dot starts from the x row's block offsets o (-8 * sum of a).
  HWY_INLINE VStepI Dot(const WStep& ws, const State&, const int8_t* a, const int32_t* o,
                        size_t) const {
    if constexpr (kNibbles) return DotStepNibbles(ws, a, StepOffsets(o));
    return DotStep(ws, a);
  }
  // The lines of row n's step at block b (a step never spans more than two lines, and the
  // next step's prefetch starts where this one ends).
  HWY_INLINE void PrefetchStep(size_t n, size_t b) const {
    PrefetchWeights(Row(n) + b * kQ4_0BlockBytes);
  }
};

static_assert(!Q4_0Rows::kNibbles || int8_linear::kBlockOffsets,
              "nibble weights need the scratch's activation offsets (linear_int8.h)");

// q8: int8 rows of K values (not padded to whole blocks) and a plane of f16 scales
// (weight_q8.h). A step past K would read the next row, or past the matrix for the last
// one: the last step of a row whose K is no multiple of the step reads only K's values.
struct Q8Rows : PerBlockScales {
  const int8_t* values;
  const uint16_t* scales;
  size_t K;
  size_t blocks;  // Q8BlocksPerRow(K)

  explicit Q8Rows(const LinearParams& p)
      : values(static_cast<const int8_t*>(p.w)),
        scales(LinearScalePlane(p)),
        K(p.in),
        blocks(Q8BlocksPerRow(p.in)) {}
  HWY_INLINE const uint8_t* Row(size_t n) const {
    return reinterpret_cast<const uint8_t*>(values + n * K);
  }
  HWY_INLINE uint16_t ScaleBits(size_t n, size_t b) const { return scales[n * blocks + b]; }
  HWY_INLINE size_t FullSteps() const { return K / kStepValues; }
  HWY_INLINE bool HasTail() const { return K % kStepValues != 0; }
  HWY_INLINE WStep Step(const uint8_t* row, size_t b) const {
    return LoadQ8(reinterpret_cast<const int8_t*>(row) + b * kI8Block);
  }
  HWY_INLINE WStep Tail(const uint8_t* row, size_t b) const {
    return LoadQ8Partial(reinterpret_cast<const int8_t*>(row) + b * kI8Block, K - b * kI8Block);
  }
  HWY_INLINE VStep Scale(const State&, size_t n, size_t b, bool tail) const {
    return PerBlockStepScale(*this, n, b, tail);
  }
  HWY_INLINE VStepI Dot(const WStep& ws, const State&, const int8_t* a, const int32_t*,
                        size_t) const {
    return DotStep(ws, a);
  }
  // Row n's step at block b, and the line of scales that starts at b, if one does.
  HWY_INLINE void PrefetchStep(size_t n, size_t b) const {
    PrefetchWeights(Row(n) + b * kI8Block);
    if ((n * blocks + b) % 32 < kStepBlocks) PrefetchWeights(scales + n * blocks + b);
  }
};

// GGUF's k-quants: rows of whole super-blocks of 256 (kInfo.bytes each), block b of a row
// in super-block b / 8. Rows cover the activations' blocks rounded up to a whole step, so
// every step is whole (no tail): past K the activations are zeros.
template <WeightType kType>
struct SuperBlockRows {
  static constexpr bool kSuper = true;
  static constexpr const WeightTypeInfo& kInfo = *FindWeightType(kType);
  const uint8_t* base;
  size_t row_bytes;
  size_t blocks;  // activation blocks of a row (a panel's blocks)

  explicit SuperBlockRows(const LinearParams& p)
      : base(static_cast<const uint8_t*>(p.w)),
        row_bytes(WeightBlocksPerRow(kInfo, p.in) * kInfo.bytes),
        blocks(ActivationBlocks(p.in)) {}
  HWY_INLINE const uint8_t* Row(size_t n) const { return base + n * row_bytes; }
  HWY_INLINE const uint8_t* Block(const uint8_t* row, size_t b) const {
    return row + b / kSuperBlocks * kInfo.bytes;
  }
  HWY_INLINE size_t FullSteps() const { return int8_linear::DivCeil(blocks, kStepBlocks); }
  HWY_INLINE bool HasTail() const { return false; }
  // The lines of row n's super-block, when block b starts it.
  HWY_INLINE void PrefetchStep(size_t n, size_t b) const {
    if (b % kSuperBlocks != 0) return;
    const uint8_t* at = Block(Row(n), b);
    for (size_t i = 0; i < kInfo.bytes; i += 64) PrefetchWeights(at + i);
    PrefetchWeights(at + kInfo.bytes - 1);
  }
};

// q4_K (weight_q4_K.h): value = step[s] * q - min[s] per sub-block s of 32, so a block's
// dot is step * (nibbles . a) and the offsets' term, min[s] * d_a * (sum of a), is the tile's
// once per super-block (State::min against the f region's block sums).
struct Q4_KRows : SuperBlockRows<WeightType::kQ4_K> {
  static constexpr bool kMins = true;
  struct State {
    alignas(64) float step[kQ4_KScaleLanes];
    alignas(64) float min[kQ4_KScaleLanes];
  };
  using SuperBlockRows::SuperBlockRows;
  HWY_INLINE void Refresh(const uint8_t* row, size_t b, State* s) const {
    UnpackQ4_KScales(Block(row, b), s->step, s->min);
  }
  HWY_INLINE WStep Step(const uint8_t* row, size_t b) const {
    return LoadQ4_KStep(Block(row, b), b % kSuperBlocks);
  }
  HWY_INLINE WStep Tail(const uint8_t* row, size_t b) const { return Step(row, b); }
  HWY_INLINE VStep Scale(const State& s, size_t, size_t b, bool) const {
    return StepScale(s.step + b % kSuperBlocks);
  }
  HWY_INLINE VStepI Dot(const WStep& ws, const State&, const int8_t* a, const int32_t*,
                        size_t) const {
    return DotStepNibbles(ws, a, hn::Zero(DStepI()));
  }
};

// q6_K (weight_q6_K.h): value = d * sc[s] * (q - 32) per sub-block s of 16; the scales
// (int8_kquant-inl.h's Q6_KScales) in the step's lane scales (AVX-512) or in the dot.
struct Q6_KRows : SuperBlockRows<WeightType::kQ6_K> {
  static constexpr bool kMins = false;
  using State = Q6_KScales;
  using SuperBlockRows::SuperBlockRows;
  HWY_INLINE void Refresh(const uint8_t* row, size_t b, State* s) const {
    LoadQ6_KScales(Block(row, b), s);
  }
  HWY_INLINE WStep Step(const uint8_t* row, size_t b) const {
    return LoadQ6_KStep(Block(row, b), b % kSuperBlocks);
  }
  HWY_INLINE WStep Tail(const uint8_t* row, size_t b) const { return Step(row, b); }
  HWY_INLINE VStep Scale(const State& s, size_t, size_t b, bool) const {
    return Q6_KStepScale(s, b % kSuperBlocks);
  }
  HWY_INLINE VStepI Dot(const WStep& ws, const State& s, const int8_t* a, const int32_t*,
                        size_t b) const {
    return DotStepQ6_K(ws, a, s, b % kSuperBlocks);
  }
};

// A chunk's quantized x rows in a worker's scratch (linear_int8.h's Layout): per row
// `blocks` activation blocks (q), scales (d) and offsets (o), and f_stride floats of q4_K's
// block sums (f).
struct XBlocks {
  const int8_t* q;
  const float* d;
  const int32_t* o;
  const float* f;
  size_t blocks;
  size_t f_stride;

  HWY_INLINE XBlocks Row(size_t m) const {
    return {q + m * blocks * kI8Block, d + m * blocks, o + m * blocks, f + m * f_stride,
            blocks, f_stride};
  }
};

// acc - sum over the super-block's 8 sub-blocks of min[s] * f[s] (kMinLanes-padded, zeros
// past 8), in vectors of up to 16 lanes.
HWY_INLINE VStep SubtractMins(const float* HWY_RESTRICT min, const float* HWY_RESTRICT f,
                              VStep acc) {
  const hn::CappedTag<float, int8_linear::kMinLanes> dm;
  for (size_t c = 0; c < int8_linear::kBlocksPerSuper; c += hn::Lanes(dm)) {
    acc = hn::NegMulAdd(hn::Load(dm, min + c), hn::Load(dm, f + c), acc);
  }
  return acc;
}
static_assert(int8_linear::kBlocksPerSuper == kSuperBlocks, "one f slot per block");

#if !HWY_HAVE_SCALABLE
// One step (blocks b, b + 1 on AVX-512) of a tile of kTileRows weight rows against X x rows:
// acc[j][i] += (dot of weight row i and x row j) * (weight scale * activation scale), lane by
// lane. `ws` / `wscale` / `st`: the tile's weight steps, scales and states; x: the chunk's
// rows from the tile's first. Each weight step is decoded once and used for all X x rows;
// each x row's activations once for all 4 weight rows.
template <size_t X, class Weights>
HWY_INLINE void AccumulateStep(const Weights& w, const WStep* ws, const VStep* wscale,
                               const typename Weights::State* st, const XBlocks& x, size_t b,
                               VStep (*acc)[kTileRows]) {
  const DStep df;
  for (size_t j = 0; j < X; ++j) {
    const XBlocks xj = x.Row(j);
    const VStep as = StepScale(xj.d + b);
    const int8_t* aj = xj.q + b * kI8Block;
    for (size_t i = 0; i < kTileRows; ++i) {
      const VStepI dot = w.Dot(ws[i], st[i], aj, xj.o + b, b);
      acc[j][i] = hn::MulAdd(hn::ConvertTo(df, dot), hn::Mul(wscale[i], as), acc[j][i]);
    }
  }
}

// out[j][i] = sum over blocks of weight row rows[i] . x row j, j < X, i < kTileRows. Per
// output the order is the block order, one FMA per step into its own accumulator (for q4_K
// the offsets' term first at each super-block), then the lanes summed: the same for every
// X, so a row's result does not depend on its tile.
template <size_t X, class Weights>
HWY_INLINE void TileX(const Weights& w, const size_t* n, const uint8_t* const* rows,
                      const XBlocks& x, size_t ahead, float (*out)[kTileRows]) {
  const DStep df;
  VStep acc[X][kTileRows];
  for (size_t j = 0; j < X; ++j) {
    for (size_t i = 0; i < kTileRows; ++i) acc[j][i] = hn::Zero(df);
  }
  WStep ws[kTileRows];
  VStep wscale[kTileRows];
  typename Weights::State st[kTileRows];
  const size_t steps = w.FullSteps();
  const auto step = [&](size_t b) HWY_ATTR {
    if (ahead != 0) {
      for (size_t i = 0; i < kTileRows; ++i) w.PrefetchStep(ahead + i, b);
    }
    if constexpr (Weights::kSuper) {
      if (b % kSuperBlocks == 0) {
        for (size_t i = 0; i < kTileRows; ++i) w.Refresh(rows[i], b, &st[i]);
        if constexpr (Weights::kMins) {
          const size_t at = b / kSuperBlocks * int8_linear::kMinLanes;
          for (size_t j = 0; j < X; ++j) {
            for (size_t i = 0; i < kTileRows; ++i) {
              acc[j][i] = SubtractMins(st[i].min, x.Row(j).f + at, acc[j][i]);
            }
          }
        }
      }
    }
    for (size_t i = 0; i < kTileRows; ++i) {
      ws[i] = w.Step(rows[i], b);
      wscale[i] = w.Scale(st[i], n[i], b, false);
    }
    AccumulateStep<X>(w, ws, wscale, st, x, b, acc);
  };
  if constexpr (Weights::kSuper) {
    // A super-block's steps unrolled, so each step's chunk (b % kSuperBlocks) is a constant:
    // its shifts, permutes and branches fold away.
    constexpr size_t kSuperSteps = kSuperBlocks / kStepBlocks;
    for (size_t first = 0; first < steps; first += kSuperSteps) {
      const size_t b0 = first / kSuperSteps * kSuperBlocks;
#pragma GCC unroll 8
      for (size_t u = 0; u < kSuperSteps; ++u) {
        if (first + u < steps) step(b0 + u * kStepBlocks);
      }
    }
  } else {
    for (size_t t = 0; t < steps; ++t) step(t * kStepBlocks);
  }
  if (w.HasTail()) {
    const size_t b = steps * kStepBlocks;
    for (size_t i = 0; i < kTileRows; ++i) {
      ws[i] = w.Tail(rows[i], b);
      wscale[i] = w.Scale(st[i], n[i], b, true);
    }
    AccumulateStep<X>(w, ws, wscale, st, x, b, acc);
  }
  for (size_t j = 0; j < X; ++j) {
    for (size_t i = 0; i < kTileRows; ++i) out[j][i] = hn::GetLane(hn::SumOfLanes(df, acc[j][i]));
  }
}
#else
// Scalable vectors (SVE) cannot be held in arrays: one x row (kXTile = 1), the tile's four
// accumulators by name; the same arithmetic per output as above.
template <size_t X, class Weights>
HWY_INLINE void TileX(const Weights& w, const size_t* n, const uint8_t* const* rows,
                      const XBlocks& x, size_t ahead, float (*out)[kTileRows]) {
  static_assert(X == 1, "one x row at a time on scalable targets");
  const DStep df;
  auto a0 = hn::Zero(df), a1 = hn::Zero(df), a2 = hn::Zero(df), a3 = hn::Zero(df);
  typename Weights::State st[kTileRows];
  const auto step = [&](size_t b, bool tail) {
    if (ahead != 0) {
      for (size_t i = 0; i < kTileRows; ++i) w.PrefetchStep(ahead + i, b);
    }
    if constexpr (Weights::kSuper) {
      if (b % kSuperBlocks == 0) {
        for (size_t i = 0; i < kTileRows; ++i) w.Refresh(rows[i], b, &st[i]);
        if constexpr (Weights::kMins) {
          const float* f = x.f + b / kSuperBlocks * int8_linear::kMinLanes;
          a0 = SubtractMins(st[0].min, f, a0);
          a1 = SubtractMins(st[1].min, f, a1);
          a2 = SubtractMins(st[2].min, f, a2);
          a3 = SubtractMins(st[3].min, f, a3);
        }
      }
    }
    const int8_t* ab = x.q + b * kI8Block;
    const VStep as = StepScale(x.d + b);
    const auto one = [&](size_t i, decltype(a0) acc) {
      const WStep ws = tail ? w.Tail(rows[i], b) : w.Step(rows[i], b);
      return hn::MulAdd(hn::ConvertTo(df, w.Dot(ws, st[i], ab, x.o + b, b)),
                        hn::Mul(w.Scale(st[i], n[i], b, tail), as), acc);
    };
    a0 = one(0, a0);
    a1 = one(1, a1);
    a2 = one(2, a2);
    a3 = one(3, a3);
  };
  const size_t steps = w.FullSteps();
  for (size_t t = 0; t < steps; ++t) step(t * kStepBlocks, false);
  if (w.HasTail()) step(steps * kStepBlocks, true);
  out[0][0] = hn::GetLane(hn::SumOfLanes(df, a0));
  out[0][1] = hn::GetLane(hn::SumOfLanes(df, a1));
  out[0][2] = hn::GetLane(hn::SumOfLanes(df, a2));
  out[0][3] = hn::GetLane(hn::SumOfLanes(df, a3));
}
#endif  // !HWY_HAVE_SCALABLE

#if defined(ATTNRT_I8_MVE)
// Helium: the 4 rows of a tile go together through each block (Dot4Mve: the activations
// loaded once, a VMLADAV pair per row), their 4 block dots converted and scaled as one
// vector; lane i of the running sum is row i's output. The f16 scales of the tile are widened
// once into dw4[4 b + i] (f16_mve.h, 4 at a time); per x row each block's 4 scales are
// multiplied by the activation scale d[b] in the loop (the same f32 product as TileX's
// weight scale times activation scale). Order per output: block by block, one
// FMA each, as the SCALAR target's one lane.
HWY_INLINE void WidenScales4(const Q8Rows& w, const size_t* rows, float* HWY_RESTRICT dw4) {
  const uint32_t b = static_cast<uint32_t>(w.blocks);
  const uint32_t offsets[4] = {0, static_cast<uint32_t>(rows[1] - rows[0]) * b,
                               static_cast<uint32_t>(rows[2] - rows[0]) * b,
                               static_cast<uint32_t>(rows[3] - rows[0]) * b};
  const uint32x4_t off = vld1q_u32(offsets);
  const int16_t* h = reinterpret_cast<const int16_t*>(w.scales + rows[0] * w.blocks);
  for (size_t j = 0; j < w.blocks; ++j) {
    vst1q_f32(dw4 + 4 * j, helium::F16ToF32Mve(vldrhq_gather_shifted_offset_s32(h + j, off)));
  }
}
HWY_INLINE void WidenScales4(const Q4_0Rows& w, const size_t* rows, float* HWY_RESTRICT dw4) {
  HWY_ALIGN int16_t bits[kTileRows];
  for (size_t j = 0; j < w.blocks; ++j) {
    for (size_t i = 0; i < kTileRows; ++i) bits[i] = static_cast<int16_t>(w.ScaleBits(rows[i], j));
    vst1q_f32(dw4 + 4 * j, helium::F16ToF32Mve(vldrhq_s32(bits)));
  }
}

// Lane i: row i's output for one x row (a, d: its activation blocks and scales). Out of line,
// as Helium's own Linear's Dot4: inlined into the column loop, GCC 12 runs out of core
// registers and reloads the tile's pointers from the stack.
template <class Weights>
HWY_NOINLINE float32x4_t Tile4(const Weights& w, const uint8_t* r0, const uint8_t* r1,
                               const uint8_t* r2, const uint8_t* r3,
                               const int8_t* HWY_RESTRICT a, const float* HWY_RESTRICT dw4,
                               const float* HWY_RESTRICT d) {
  float32x4_t acc = vdupq_n_f32(0.0f);
  const size_t steps = w.FullSteps();
  for (size_t b = 0; b < steps; ++b, a += kI8Block, dw4 += 4, ++d) {
    const int32x4_t dots = Dot4Mve(w.Step(r0, b), w.Step(r1, b), w.Step(r2, b),
                                   w.Step(r3, b), a);
    acc = vfmaq_f32(acc, vcvtq_f32_s32(dots), vmulq_n_f32(vld1q_f32(dw4), *d));
  }
  if (w.HasTail()) {
    const size_t b = steps;
    const int32x4_t dots = Dot4Mve(w.Tail(r0, b), w.Tail(r1, b), w.Tail(r2, b),
                                   w.Tail(r3, b), a);
    acc = vfmaq_f32(acc, vcvtq_f32_s32(dots), vmulq_n_f32(vld1q_f32(dw4), *d));
  }
  return acc;
}

// Columns (below) on Helium: per tile the scales widened once, then per x row one Tile4,
// the bias added as a vector and the tile's real columns stored (VCTP).
template <class Weights>
void ColumnsMve(const LinearParams& p, const Weights& w, const Layout& l, size_t m0,
                size_t rows, size_t n0, size_t n1, const float* act, float* scratch) {
  const int8_t* q = reinterpret_cast<const int8_t*>(act + l.q);
  const float* d = act + l.d;
  float* dw4 = scratch + l.dw;
  for (size_t n = n0; n < n1; n += kTileRows) {
    const size_t count = HWY_MIN(kTileRows, n1 - n);
    size_t row_index[kTileRows];
    for (size_t i = 0; i < kTileRows; ++i) row_index[i] = n + HWY_MIN(i, count - 1);
    WidenScales4(w, row_index, dw4);
    const uint8_t* r0 = w.Row(row_index[0]);
    const uint8_t* r1 = w.Row(row_index[1]);
    const uint8_t* r2 = w.Row(row_index[2]);
    const uint8_t* r3 = w.Row(row_index[3]);
    const mve_pred16_t live = vctp32q(count);
    const float32x4_t bias =
        p.bias != nullptr ? vldrwq_z_f32(p.bias + n, live) : vdupq_n_f32(0.0f);
    float* y = p.y + m0 * p.y_stride + n;
    for (size_t m = 0; m < rows; ++m, y += p.y_stride) {
      const float32x4_t sums = Tile4(w, r0, r1, r2, r3, q + m * l.blocks * kI8Block, dw4,
                                     d + m * l.blocks);
      vstrwq_p_f32(y, vaddq_f32(sums, bias), live);
    }
  }
}
#endif  // ATTNRT_I8_MVE

// Output columns [n0, n1) for the chunk's `rows` x rows starting at m0, whose activation
// blocks are in scratch: per tile of kTileRows weight rows, the x rows kXTile at a time, then
// one at a time. A last tile of fewer than kTileRows columns repeats its last row (the same
// sums: only the real ones are stored).
template <class Weights>
void Columns(const LinearParams& p, const Weights& w, const Layout& l, size_t m0, size_t rows,
             size_t n0, size_t n1, const float* act) {
  const XBlocks x{reinterpret_cast<const int8_t*>(act + l.q), act + l.d,
                  reinterpret_cast<const int32_t*>(act + l.o), act + l.f, l.blocks,
                  l.supers * int8_linear::kMinLanes};
  for (size_t n = n0; n < n1; n += kTileRows) {
    const size_t count = HWY_MIN(kTileRows, n1 - n);
    size_t row_index[kTileRows];
    const uint8_t* tile_rows[kTileRows];
    for (size_t i = 0; i < kTileRows; ++i) {
      row_index[i] = n + HWY_MIN(i, count - 1);
      tile_rows[i] = w.Row(row_index[i]);
    }
    // The first x rows' pass prefetches the rows kPrefetchTiles tiles on (0: none, past W).
    const size_t ahead = n + (kPrefetchTiles + 1) * kTileRows <= p.out
                             ? n + kPrefetchTiles * kTileRows : 0;
    const auto store = [&](size_t m, const float* sums) {
      float* y = p.y + (m0 + m) * p.y_stride + n;
      for (size_t i = 0; i < count; ++i) {
        y[i] = sums[i] + (p.bias != nullptr ? p.bias[n + i] : 0.0f);
      }
    };
    size_t m = 0;
    for (; m + kXTile <= rows; m += kXTile) {
      float sums[kXTile][kTileRows];
      TileX<kXTile>(w, row_index, tile_rows, x.Row(m), m == 0 ? ahead : 0, sums);
      for (size_t j = 0; j < kXTile; ++j) store(m + j, sums[j]);
    }
    for (; m < rows; ++m) {
      float sums[1][kTileRows];
      TileX<1>(w, row_index, tile_rows, x.Row(m), m == 0 ? ahead : 0, sums);
      store(m, sums[0]);
    }
  }
}

#if defined(ATTNRT_I8_Q4_0_PANELS)
// AVX-512 and AVX2: output columns [n0, n1) in panels of kPanelRows weight rows (16, 8:
// int8_panels-inl.h, int8_panels256-inl.h),
// each block transposed once for the chunk's x rows. A last panel of fewer rows repeats its
// last row (only the real columns are stored). The first x rows' pass prefetches the panel
// kPrefetchPanels on, in its memory order at the pace of the blocks (a panel's rows, and
// their q8 scales, are contiguous in W).
constexpr size_t kPrefetchPanels = 2;

// One panel of each type: its rows' pointers and their gather offsets in the type's lane
// order (kLaneRow), the sums put back in row order (kRowLane), how a block loads and what
// its dots start from.
template <class Rows, const int32_t* kLaneRow, const int32_t* kRowLane>
struct PanelOf {
  static constexpr size_t kOffsetsPerBlock = 1;  // the x row's o words per block (Start)
  const Rows& w;
  const uint8_t* rows[kPanelRows];
  PanelI offsets;

  PanelOf(const Rows& weights, size_t n, size_t count) : w(weights) {
    for (size_t r = 0; r < kPanelRows; ++r) rows[r] = w.Row(n + HWY_MIN(r, count - 1));
    offsets = PanelOffsets(reinterpret_cast<const void* const*>(rows), kLaneRow);
  }
  static HWY_INLINE PanelF RowOrder(PanelF v) { return PanelRowOrder(v, kRowLane); }
};

// (The q4_0 lane map is its own inverse.)
struct Q4_0Panel : PanelOf<Q4_0Rows, kQ4_0LaneRow, kQ4_0LaneRow> {
  static constexpr bool kMins = false;
  using PanelOf::PanelOf;
  static HWY_INLINE PanelF Dot(const PanelBlock& block, const int8_t* a, PanelI start, float s,
                               PanelF acc) {
    return PanelBlockDotNibbles(block, a, start, s, acc);
  }
  HWY_INLINE void Load(size_t b, PanelBlock* out) const {
    LoadQ4_0PanelBlock(rows, offsets, b, out);
  }
  HWY_INLINE PanelI Start(const PanelBlock&, const int32_t* offset) const {
    return PanelSetI(*offset);
  }
  HWY_INLINE void Prefetch(size_t n, size_t b) const {
    constexpr size_t kPerBlock = kPanelRows * kQ4_0BlockBytes;
    const uint8_t* at = w.Row(n) + b * kPerBlock;
    for (size_t i = 0; i < kPerBlock; i += 64) PrefetchWeights(at + i);
  }
};

// A super-block panel's rows are contiguous in W: its 16 * row_bytes, walked at the pace of
// the blocks (16 * 18 bytes a block for q4_K's whole super-blocks; more where a short row
// pads its last).
template <class Weights>
HWY_INLINE void PrefetchSuperBlockPanel(const Weights& w, size_t n, size_t b) {
  const size_t per_block = int8_linear::DivCeil(kPanelRows * w.row_bytes, w.blocks);
  const uint8_t* at = w.Row(n) + b * per_block;
  for (size_t i = 0; i < per_block; i += 64) PrefetchWeights(at + i);
}

// What the k-quant panels share: rows of whole super-blocks, transposed 32 bytes at a time as
// q8's rows are (kQ8LaneRow), each block's dots starting from block.start, and the
// prefetch of the panel 2 on.
template <class Rows>
struct SuperBlockPanel : PanelOf<Rows, kQ8LaneRow, kQ8RowLane> {
  using PanelOf<Rows, kQ8LaneRow, kQ8RowLane>::PanelOf;
  HWY_INLINE PanelI Start(const PanelBlock& block, const int32_t*) const { return block.start; }
  HWY_INLINE void Prefetch(size_t n, size_t b) const { PrefetchSuperBlockPanel(this->w, n, b); }
};

#if defined(ATTNRT_I8_Q4_K_PANELS)
// q4_K: each block's 32 nibbles per row are 32 bytes (the low or high nibbles); the rows'
// scales and mins gathered once per super-block (Q4_KPanelScales) and unpacked per block; the
// mins' term per block and x row, min * (d_a * sum of a).
struct Q4_KPanel : SuperBlockPanel<Q4_KRows> {
  static constexpr bool kMins = true;
  Q4_KPanelScales scales;

  using SuperBlockPanel::SuperBlockPanel;
  static HWY_INLINE PanelF Dot(const PanelBlock& block, const int8_t* a, PanelI start, float s,
                               PanelF acc) {
    return PanelBlockDotNibbles(block, a, start, s, acc);
  }
  HWY_INLINE void Load(size_t b, PanelBlock* out) {
    const size_t block_at = b / kSuperBlocks * kQ4_KBlockBytes;
    const size_t c = b % kSuperBlocks;
    if (c == 0) GatherQ4_KPanelScales<kPanelRows>(rows[0], offsets, block_at, &scales);
    LoadQ4_KPanelBlock(rows, block_at + kQ4_KNibblesAt + c / 2 * 32, c, scales, out);
  }
};
#endif

// The panel copies (LinearParams::w_packed, weight_panels.h): per group of kPanelCopyRows
// rows, block after block, so one panel's bytes and then the next panel's are one stream. A
// panel of kPanelRows is a group (AVX-512) or half of one (AVX2); lanes hold its rows in
// order, so its sums need no permutation.
struct PanelCopyRows {
  const uint8_t* base;
  size_t blocks;       // activation blocks of a row (a panel's blocks)
  size_t row_blocks;   // the type's blocks of a row: q4_0 blocks (as many), q4_K super-blocks
  size_t block_bytes;  // a group's copy of one: kPanelCopyRows * the type's block bytes

  explicit PanelCopyRows(const LinearParams& p)
      : base(static_cast<const uint8_t*>(p.w_packed)),
        blocks(ActivationBlocks(p.in)),
        row_blocks(WeightBlocksPerRow(*FindWeightType(p.w_type), p.in)),
        block_bytes(kPanelCopyRows * PanelCopyBlockBytes(p.w_type)) {}
  // The type's block b of the group that holds row n.
  HWY_INLINE const uint8_t* GroupBlock(size_t n, size_t b) const {
    return base + (n / kPanelCopyRows * row_blocks + b) * block_bytes;
  }
};
static_assert(kPanelCopyRows % kPanelRows == 0, "a panel is a group or part of one");

struct PanelCopyOf {
  static constexpr size_t kOffsetsPerBlock = 1;
  const PanelCopyRows& w;
  const uint8_t* group;  // the panel's group at block 0
  size_t first;          // the panel's first row within its group

  PanelCopyOf(const PanelCopyRows& weights, size_t n, size_t)
      : w(weights), group(weights.GroupBlock(n, 0)), first(n % kPanelCopyRows) {}
  static HWY_INLINE PanelF RowOrder(PanelF v) { return v; }
  static HWY_INLINE PanelF Dot(const PanelBlock& block, const int8_t* a, PanelI start, float s,
                               PanelF acc) {
    return PanelBlockDotNibbles(block, a, start, s, acc);
  }
  // The group of row n at the copy block that holds activation block b (once per group:
  // AVX2's second half panel skips it).
  HWY_INLINE void PrefetchCopy(size_t n, size_t copy_block) const {
    if (n % kPanelCopyRows != 0) return;
    const uint8_t* at = w.GroupBlock(n, copy_block);
    for (size_t i = 0; i < w.block_bytes; i += 64) PrefetchWeights(at + i);
  }
  // A super-block type's block b: slice b % kSuperBlocks of the 8 slices of its group's
  // super-block, so that a super-block's lines (53 for q6_K's 16 rows) are requested at the
  // pace of its blocks rather than in one burst.
  HWY_INLINE void PrefetchSuperBlockSlice(size_t n, size_t b) const {
    if (n % kPanelCopyRows != 0) return;
    const uint8_t* at = w.GroupBlock(n, b / kSuperBlocks);
    const size_t lines = int8_linear::DivCeil(w.block_bytes, 64), c = b % kSuperBlocks;
    for (size_t i = c * lines / kSuperBlocks; i < (c + 1) * lines / kSuperBlocks; ++i) {
      PrefetchWeights(at + 64 * i);
    }
  }
};

// q4_0 from its copy: a block is 5 loads (LoadQ4_0CopyBlock), the dots start from the x
// row's offsets as Q4_0Panel's do.
struct Q4_0CopyPanel : PanelCopyOf {
  static constexpr bool kMins = false;
  using PanelCopyOf::PanelCopyOf;
  HWY_INLINE void Load(size_t b, PanelBlock* out) const {
    LoadQ4_0CopyBlock<kPanelRows>(group + b * w.block_bytes, first, out);
  }
  HWY_INLINE PanelI Start(const PanelBlock&, const int32_t* offset) const {
    return PanelSetI(*offset);
  }
  HWY_INLINE void Prefetch(size_t n, size_t b) const { PrefetchCopy(n, b); }
};

// q8 from its copy (on every panel target; its rows' panels need VNNI): a block is 9 loads
// (LoadQ8CopyBlock), no transpose, scale gather or block sums of the weights. The copy's
// bytes are v + 128 against the signed activations, so with VNNI each dot starts from -128 *
// (sum of the x row's block) = 16 * its offset o (-8 * sum): the same exact integer dot as
// Q8Panel's, from q8's own byte count. Without VNNI the dot undoes the offset (the sign
// trick: PanelBlockDotOffsetBytes) and starts from 0.
struct Q8CopyPanel : PanelCopyOf {
  static constexpr bool kMins = false;
  using PanelCopyOf::PanelCopyOf;
  static HWY_INLINE PanelF Dot(const PanelBlock& block, const int8_t* a, PanelI start, float s,
                               PanelF acc) {
    return PanelBlockDotOffsetBytes(block, a, start, s, acc);
  }
  HWY_INLINE void Load(size_t b, PanelBlock* out) const {
    LoadQ8CopyBlock<kPanelRows>(group + b * w.block_bytes, first, out);
  }
  HWY_INLINE PanelI Start(const PanelBlock&, const int32_t* offset) const {
    if constexpr (kQ8CopyStartsFromX) return PanelSetI(16 * *offset);
    return PanelSetI(0);  // (the sign trick's dot needs no start; o is not written)
  }
  HWY_INLINE void Prefetch(size_t n, size_t b) const { PrefetchCopy(n, b); }
};

#if defined(ATTNRT_I8_Q4_K_PANELS)
// q4_K from its copy: the scale words and d, dmin loaded once per super-block, a chunk's
// nibbles 8 loads (LoadQ4_KCopyBlock); the mins' term as Q4_KPanel's.
struct Q4_KCopyPanel : PanelCopyOf {
  static constexpr bool kMins = true;
  Q4_KPanelScales scales;
  using PanelCopyOf::PanelCopyOf;
  HWY_INLINE void Load(size_t b, PanelBlock* out) {
    const uint8_t* super = group + b / kSuperBlocks * w.block_bytes;
    const size_t c = b % kSuperBlocks;
    if (c == 0) LoadQ4_KCopyScales<kPanelRows>(super, first, &scales);
    LoadQ4_KCopyBlock<kPanelRows>(super, first, c, scales, out);
  }
  HWY_INLINE PanelI Start(const PanelBlock& block, const int32_t*) const { return block.start; }
  HWY_INLINE void Prefetch(size_t n, size_t b) const { PrefetchSuperBlockSlice(n, b); }
};
#endif

#if defined(ATTNRT_I8_Q6_K_PANELS)
// q6_K: each block's ql and qh bytes per row, joined into q - 32 (signed), against the
// activations + 128 with q8's start per half; the halves' scales gathered once per
// super-block.
struct Q6_KPanel : SuperBlockPanel<Q6_KRows> {
  static constexpr bool kMins = false;
  Q6_KPanelScales scales;

  using SuperBlockPanel::SuperBlockPanel;
  static HWY_INLINE PanelF Dot(const PanelBlock& block, const int8_t* a, PanelStarts start,
                               float s, PanelF acc) {
    return PanelBlockDotHalves<false>(block, a, start, s, acc);
  }
  HWY_INLINE PanelStarts Start(const PanelBlock& block, const int32_t*) const {
    return {block.start, block.start_hi};
  }
  HWY_INLINE void Load(size_t b, PanelBlock* out) {
    const size_t block_at = b / kSuperBlocks * kQ6_KBlockBytes;
    const size_t c = b % kSuperBlocks, h = c / 4;
    if (c == 0) GatherQ6_KPanelScales<kPanelRows>(rows[0], offsets, block_at, &scales);
    LoadQ6_KPanelBlock(rows, block_at + kQ6_KQlAt + 64 * h + 32 * (c % 2),
                       block_at + kQ6_KQhAt + 32 * h, c, scales, out);
  }
};

// q6_K from its copy: the scale words and d loaded once per super-block, a chunk's values
// as regrouped at load (LoadQ6_KCopyBlock), q in [0, 63] against the signed activations, each
// half's dot from the x row's -32 * (sum of the half's activations) (Q6_KHalfOffsets): the
// same exact integer dots as Q6_KPanel's, with no transpose, gather or weight sums.
struct Q6_KCopyPanel : PanelCopyOf {
  static constexpr bool kMins = false;
  static constexpr size_t kOffsetsPerBlock = 2;
  Q6_KPanelScales scales;
  using PanelCopyOf::PanelCopyOf;
  static HWY_INLINE PanelF Dot(const PanelBlock& block, const int8_t* a, PanelStarts start,
                               float s, PanelF acc) {
    return PanelBlockDotHalves<true>(block, a, start, s, acc);
  }
  HWY_INLINE PanelStarts Start(const PanelBlock&, const int32_t* offsets) const {
    return {PanelSetI(offsets[0]), PanelSetI(offsets[1])};
  }
  HWY_INLINE void Load(size_t b, PanelBlock* out) {
    const uint8_t* super = group + b / kSuperBlocks * w.block_bytes;
    const size_t c = b % kSuperBlocks;
    if (c == 0) LoadQ6_KCopyScales<kPanelRows>(super, first, &scales);
    LoadQ6_KCopyBlock<kPanelRows>(super, first, c, scales, out);
  }
  HWY_INLINE void Prefetch(size_t n, size_t b) const { PrefetchSuperBlockSlice(n, b); }
};
#endif

#if defined(ATTNRT_I8_Q8_PANELS)
// q8 from its rows: activations + 128 against the signed weights, each row's dot starting
// from the block's -128 * sum (block.start, LoadQ8PanelBlock's).
struct Q8Panel {
  static constexpr bool kMins = false;
  static constexpr size_t kOffsetsPerBlock = 1;
  const Q8Rows& w;
  const uint8_t* rows[kPanelRows];
  const uint16_t* scale_rows[kPanelRows];
  __m512i scale_offsets;

  Q8Panel(const Q8Rows& weights, size_t n, size_t count) : w(weights) {
    for (size_t r = 0; r < kPanelRows; ++r) {
      const size_t row = n + HWY_MIN(r, count - 1);
      rows[r] = w.Row(row);
      scale_rows[r] = w.scales + row * w.blocks;
    }
    scale_offsets = PanelOffsets(reinterpret_cast<const void* const*>(scale_rows), kQ8LaneRow);
  }
  static HWY_INLINE PanelF RowOrder(PanelF v) { return PanelRowOrder(v, kQ8RowLane); }
  static HWY_INLINE __m512 Dot(const PanelBlock& block, const int8_t* a, __m512i start, float s,
                               __m512 acc) {
    return PanelBlockDot<false>(block, a, start, s, acc);
  }
  // (No activation offsets here: `o` is not read.)
  HWY_INLINE __m512i Start(const PanelBlock& block, const int32_t*) const { return block.start; }
  HWY_INLINE void Load(size_t b, PanelBlock* out) const {
    LoadQ8PanelBlock(rows, scale_rows, scale_offsets, w.K, b, out);
  }
  // A panel's values are 16 K contiguous bytes, read at 16 * 32 per block; its scales 16 *
  // blocks halves, 16 per block.
  HWY_INLINE void Prefetch(size_t n, size_t b) const {
    constexpr size_t kPerBlock = kPanelRows * kI8Block;
    const uint8_t* at = w.Row(n) + b * kPerBlock;
    for (size_t i = 0; i < kPerBlock; i += 64) PrefetchWeights(at + i);
    if (b % 2 == 0) PrefetchWeights(w.scales + n * w.blocks + b * kPanelRows);
  }
};

#endif

template <size_t X, class Panel>
HWY_INLINE void PanelRows(const LinearParams& p, Panel& panel, size_t blocks,
                          const Layout& l, size_t m0, size_t n, size_t count, const float* act) {
  const int8_t* q = reinterpret_cast<const int8_t*>(act + l.q);
  const float* d = act + l.d;
  const int32_t* o = reinterpret_cast<const int32_t*>(act + l.o);
  const float* f = act + l.f;
  const size_t f_stride = l.supers * int8_linear::kMinLanes;
  const bool prefetch = n + (kPrefetchPanels + 1) * kPanelRows <= p.out;
  const size_t ahead = n + kPrefetchPanels * kPanelRows;
  // The panel's float vectors as Highway's (kPanelRows lanes: AVX-512 or AVX2).
  const hn::CappedTag<float, kPanelRows> df;
  using V = hn::Vec<decltype(df)>;
  static_assert(sizeof(V) == sizeof(PanelF), "one panel row per lane");
  V acc[X];
  for (size_t j = 0; j < X; ++j) acc[j] = hn::Zero(df);
  for (size_t b = 0; b < blocks; ++b) {
    if (prefetch) panel.Prefetch(ahead, b);
    PanelBlock block;
    panel.Load(b, &block);
    for (size_t j = 0; j < X; ++j) {
      const size_t at = j * l.blocks + b;
      acc[j] = V{Panel::Dot(block, q + at * kI8Block,
                            panel.Start(block, o + at * Panel::kOffsetsPerBlock), d[at],
                            acc[j].raw)};
      if constexpr (Panel::kMins) {
        const float sum = f[j * f_stride + BlockSumIndex(b)];
        acc[j] = hn::NegMulAdd(V{block.min}, hn::Set(df, sum), acc[j]);
      }
    }
  }
  const auto live = hn::FirstN(df, count);
  const V bias = p.bias != nullptr ? hn::MaskedLoad(live, df, p.bias + n) : hn::Zero(df);
  for (size_t j = 0; j < X; ++j) {
    const V sums = V{Panel::RowOrder(acc[j].raw)};
    hn::BlendedStore(hn::Add(sums, bias), live, df, p.y + (m0 + j) * p.y_stride + n);
  }
}

template <class Panel, class Weights>
void PanelColumns(const LinearParams& p, const Weights& w, const Layout& l, size_t m0,
                  size_t rows, size_t n0, size_t n1, const float* act) {
  static_assert(int8_linear::kGroupRows % kPanelRows == 0, "items are whole panels");
  static_assert(kChunkRows == 8, "one case per chunk row count below");
  for (size_t n = n0; n < n1; n += kPanelRows) {
    const size_t count = HWY_MIN(kPanelRows, n1 - n);
    Panel panel(w, n, count);
    switch (rows) {
      case 8: PanelRows<8>(p, panel, w.blocks, l, m0, n, count, act); break;
      case 7: PanelRows<7>(p, panel, w.blocks, l, m0, n, count, act); break;
      case 6: PanelRows<6>(p, panel, w.blocks, l, m0, n, count, act); break;
      case 5: PanelRows<5>(p, panel, w.blocks, l, m0, n, count, act); break;
      case 4: PanelRows<4>(p, panel, w.blocks, l, m0, n, count, act); break;
      case 3: PanelRows<3>(p, panel, w.blocks, l, m0, n, count, act); break;
      case 2: PanelRows<2>(p, panel, w.blocks, l, m0, n, count, act); break;
      default: PanelRows<1>(p, panel, w.blocks, l, m0, n, count, act); break;
    }
  }
}

// A type's panels from its copy when the caller gave one (LinearParams::w_packed), else
// from its rows as stored.
template <class CopyPanel, class RowsPanel, class Rows>
HWY_INLINE void CopyOrRowsPanels(const LinearParams& p, const Layout& l, size_t m0, size_t rows,
                                 size_t n0, size_t n1, const float* act) {
  if (p.w_packed != nullptr) {
    PanelColumns<CopyPanel>(p, PanelCopyRows(p), l, m0, rows, n0, n1, act);
  } else {
    PanelColumns<RowsPanel>(p, Rows(p), l, m0, rows, n0, n1, act);
  }
}
#endif  // ATTNRT_I8_Q4_0_PANELS

size_t Int8ScratchFloats(const LinearParams& p) {
  return int8_linear::MakeLayout(p.in, p.w_type).total;
}

// Whether a chunk of `rows` x rows of this type runs in panels on this target (else in the
// row tiles). q4_0: every chunk (tiles for its decode were tried, level from DRAM and slower
// from cache). q8, q4_K and q6_K: chunks of 2 rows or more; a decode step's one row in the
// row tiles, which stream W faster (SmolLM2-135M q8 decode on Zen 4: 7.3 ms against the
// panels' 9.5 ms; q4_K at kquant_512, 3 alternating rounds: 1.77-1.91 ms against 2.1-3.1 ms,
// level from cache), while prefill gains (q4_K prefill of 64 at dim 512 / hidden 1536:
// 35-41 -> 20-22 ms). q4_K from its panel copy (`copy`): every chunk (kquant_512 decode
// 1.83 -> 1.40-1.72 ms). q8 from its copy: every chunk too, since the copy holds q8's own
// bytes (Zen 5, 1 thread, alternating builds: stories15M q8 decode 0.47 -> 0.21 ms from
// cache, SmolLM2-135M level from DRAM), also without VNNI, which has no panels of q8's rows
// (linear_bench on the Zen 5, stories15M's GEMVs of a token, tiles -> copy: AVX3 0.54 ->
// 0.23 ms, AVX2 0.50 -> 0.34 ms; prefill 256x288x768 AVX3 0.80 -> 0.37, AVX2 1.26 -> 1.00
// ms). q6_K from its copy: every chunk (its x-row starts leave a block 8 masked loads, or
// for a half's last chunk 24 loads and 8 operations a word, and the dots; linear_bench on
// the Zen 5, a stories15M token's GEMVs, row tiles -> copy of ql and qh -> regrouped copy:
// AVX3_DL 0.45 -> 0.34 -> 0.25 ms, AVX3 0.51 -> 0.35 -> 0.26, AVX2 0.72 -> 0.56 -> 0.45;
// kquant_512 Q6_K decode, 1 thread: 1.08 -> 0.86 -> 0.80 ms, under --isa avx2 1.85 -> 1.40
// -> 1.27 ms). The two shapes differ only in
// rounding (partial sums per lane against whole-block dots per lane; q4_K's
// mins per block against per super-block).
HWY_INLINE bool UsesPanels(WeightType type, size_t rows, bool copy = false) {
  switch (type) {
#if defined(ATTNRT_I8_Q4_0_PANELS)
    case WeightType::kQ4_0: return true;
#endif
#if defined(ATTNRT_I8_Q4_K_PANELS)
    case WeightType::kQ4_K: return rows >= 2 || copy;
#endif
#if defined(ATTNRT_I8_Q6_K_PANELS)
    case WeightType::kQ6_K: return rows >= 2 || copy;
#endif
#if defined(ATTNRT_I8_Q8_PANELS)
    case WeightType::kQ8: return rows >= 2 || copy;
#elif defined(ATTNRT_I8_Q4_0_PANELS)
    case WeightType::kQ8: return copy;  // no panels of its rows without VNNI
#endif
    default: return false;
  }
}

// The row tiles of the types with one f16 scale per block (q8, q4_0): Helium's on the M55.
template <class Weights>
HWY_INLINE void BlockScaleColumns(const LinearParams& p, const Weights& w, const Layout& l,
                                  size_t m0, size_t rows, size_t n0, size_t n1,
                                  const float* act, float* scratch) {
#if defined(ATTNRT_I8_MVE)
  ColumnsMve(p, w, l, m0, rows, n0, n1, act, scratch);
#else
  (void)scratch;
  Columns(p, w, l, m0, rows, n0, n1, act);
#endif
}

// q6_K's copy panels: per activation block (signed), -32 times the sum of each 16-value half,
// where those halves' dots start (Q6_KCopyPanel), two words a block in the o region.
HWY_INLINE void Q6_KHalfOffsets(const int8_t* HWY_RESTRICT q, size_t blocks,
                                int32_t* HWY_RESTRICT o) {
  for (size_t b = 0; b < 2 * blocks; ++b) {
    int32_t sum = 0;
    for (size_t j = 0; j < kI8Block / 2; ++j) sum += q[b * (kI8Block / 2) + j];
    o[b] = -32 * sum;
  }
}

// Rows m0 .. m0 + rows of x as 8-bit blocks into `act` (Layout's q, d, o, f regions), in
// the form the chunk's tiles or panels read them (UsesPanels: q8's and q6_K's panels take
// the activations + 128, vpdpbusd's unsigned operand; q4_0's and q4_K's nibbles are it).
HWY_INLINE void QuantizeChunk(const LinearParams& p, const Layout& l, size_t m0, size_t rows,
                              float* act) {
  const bool copy = p.w_packed != nullptr;
  const bool panels = UsesPanels(p.w_type, rows, copy);
#if defined(ATTNRT_I8_Q4_0_PANELS)
  const bool q8_copy = p.w_type == WeightType::kQ8 && panels && copy && kQ8CopyStartsFromX;
#else
  const bool q8_copy = false;  // no panels here
#endif
  const bool q6_K_copy = p.w_type == WeightType::kQ6_K && panels && copy;
  const bool offsets = (p.w_type == WeightType::kQ4_0 && Q4_0Rows::kNibbles) || q8_copy;
  const bool unsigned_activations =
      panels && !copy && (p.w_type == WeightType::kQ8 || p.w_type == WeightType::kQ6_K);
  int32_t* o = reinterpret_cast<int32_t*>(act + l.o);
  for (size_t m = 0; m < rows; ++m) {
    int8_t* q = reinterpret_cast<int8_t*>(act + l.q) + m * l.blocks * kI8Block;
    QuantizeRow(p.x + (m0 + m) * p.x_stride, p.in, l.blocks, q, act + l.d + m * l.blocks,
                offsets ? o + m * l.blocks : nullptr, unsigned_activations,
                l.supers != 0 ? act + l.f + m * l.supers * int8_linear::kMinLanes : nullptr);
    if (q6_K_copy) Q6_KHalfOffsets(q, l.blocks, o + 2 * m * l.blocks);
  }
}

// x prepared once for every range of the call (LinearParams::x_prepared): when its rows
// are one chunk, each range would quantize the same rows again, and a split decode GEMV
// hands a worker about 8 ranges (on the Zen 5, 2 threads, SmolLM2-135M q4_0: 17% of the
// step in QuantizeRow). More rows: each range quantizes its own chunks, as before.
size_t Int8PreparedFloats(const LinearParams& p) {
  if (p.rows == 0 || p.rows > kChunkRows || int8_linear::WorkItems(p) == 0) return 0;
  return int8_linear::MakeLayout(p.in, p.w_type).dw;  // the q, d, o and f regions
}

void Int8Prepare(const LinearParams& p, float* dst) {
  if (Int8PreparedFloats(p) == 0) return;
  QuantizeChunk(p, int8_linear::MakeLayout(p.in, p.w_type), 0, p.rows, dst);
}

void Int8Run(const LinearParams& p, size_t begin, size_t end, float* scratch) {
  const size_t groups = int8_linear::Groups(p);
  end = HWY_MIN(end, int8_linear::WorkItems(p));  // 0 for a type this kernel does not read
  const Layout l = int8_linear::MakeLayout(p.in, p.w_type);
  const bool prepared = p.x_prepared != nullptr && p.rows <= kChunkRows;
  // The chunk's activations: the caller's prepared x (its one chunk), or this range's own.
  const float* act = prepared ? p.x_prepared : scratch;
  size_t item = begin;
  while (item < end) {
    const size_t chunk = item / groups;
    const size_t g0 = item % groups;
    const size_t g1 = HWY_MIN(groups, g0 + (end - item));
    const size_t m0 = chunk * kChunkRows;
    const size_t rows = HWY_MIN(kChunkRows, p.rows - m0);
    [[maybe_unused]] const bool panels = UsesPanels(p.w_type, rows, p.w_packed != nullptr);
    if (!prepared) QuantizeChunk(p, l, m0, rows, scratch);
    const size_t n0 = g0 * int8_linear::kGroupRows;
    const size_t n1 = HWY_MIN(p.out, g1 * int8_linear::kGroupRows);
    item += g1 - g0;
    // Each type in the panels where UsesPanels says so (the #if: whether this target has
    // them), else in the row tiles. The k-quants' tiles are the generic ones on every
    // target (Helium's tile is for the types with one f16 scale per block).
    switch (p.w_type) {
      case WeightType::kQ4_0:
#if defined(ATTNRT_I8_Q4_0_PANELS)
        if (panels) {
          CopyOrRowsPanels<Q4_0CopyPanel, Q4_0Panel, Q4_0Rows>(p, l, m0, rows, n0, n1,
                                                               act);
          break;
        }
#endif
        BlockScaleColumns(p, Q4_0Rows(p), l, m0, rows, n0, n1, act, scratch);
        break;
      case WeightType::kQ4_K:
#if defined(ATTNRT_I8_Q4_K_PANELS)
        if (panels) {
          CopyOrRowsPanels<Q4_KCopyPanel, Q4_KPanel, Q4_KRows>(p, l, m0, rows, n0, n1,
                                                               act);
          break;
        }
#endif
        Columns(p, Q4_KRows(p), l, m0, rows, n0, n1, act);
        break;
      case WeightType::kQ6_K:
#if defined(ATTNRT_I8_Q6_K_PANELS)
        if (panels) {
          CopyOrRowsPanels<Q6_KCopyPanel, Q6_KPanel, Q6_KRows>(p, l, m0, rows, n0, n1, act);
          break;
        }
#endif
        Columns(p, Q6_KRows(p), l, m0, rows, n0, n1, act);
        break;
      default:  // q8 (WorkItems is 0 for a type this kernel does not read)
#if defined(ATTNRT_I8_Q4_0_PANELS)  // q8's copy: on every panel target
        if (panels && p.w_packed != nullptr) {
          PanelColumns<Q8CopyPanel>(p, PanelCopyRows(p), l, m0, rows, n0, n1, act);
          break;
        }
#endif
#if defined(ATTNRT_I8_Q8_PANELS)  // its rows: with VNNI only
        if (panels) {
          PanelColumns<Q8Panel>(p, Q8Rows(p), l, m0, rows, n0, n1, act);
          break;
        }
#endif
        BlockScaleColumns(p, Q8Rows(p), l, m0, rows, n0, n1, act, scratch);
        break;
    }
  }
}

// The panel copy this target reads (LinearParams::w_packed, weight_panels.h): q4_0's, q8's,
// q4_K's and q6_K's where it has panels (AVX2 and the AVX-512 targets).
HWY_INLINE bool ReadsPanelCopy(WeightType type) {
  switch (type) {
#if defined(ATTNRT_I8_Q4_0_PANELS)
    case WeightType::kQ4_0: return true;
    case WeightType::kQ8: return true;
#endif
#if defined(ATTNRT_I8_Q4_K_PANELS)
    case WeightType::kQ4_K: return true;
#endif
#if defined(ATTNRT_I8_Q6_K_PANELS)
    case WeightType::kQ6_K: return true;
#endif
    default: return false;
  }
}

size_t Int8PackedBytes(const LinearParams& p) {
  if (!ReadsPanelCopy(p.w_type)) return 0;
  return PanelCopyBytes(p.out, WeightBlocksPerRow(*FindWeightType(p.w_type), p.in),
                        PanelCopyBlockBytes(p.w_type));
}

const char* Int8Isa() { return hwy::TargetName(HWY_TARGET); }

ATTNRT_I8_END
ATTNRT_HWY_END

#if HWY_ONCE
namespace attnrt {
namespace {

HWY_EXPORT(Int8ScratchFloats);
HWY_EXPORT(Int8Run);
HWY_EXPORT(Int8Isa);
HWY_EXPORT(Int8PackedBytes);
HWY_EXPORT(Int8PreparedFloats);
HWY_EXPORT(Int8Prepare);

size_t ScratchFloats(const LinearParams& p) { return HWY_DYNAMIC_DISPATCH(Int8ScratchFloats)(p); }
size_t WorkItems(const LinearParams& p) { return int8_linear::WorkItems(p); }
void Run(const LinearParams& p, size_t begin, size_t end, float* scratch) {
  HWY_DYNAMIC_DISPATCH(Int8Run)(p, begin, end, scratch);
}
const char* Isa() { return HWY_DYNAMIC_DISPATCH(Int8Isa)(); }
size_t PackedBytes(const LinearParams& p) { return HWY_DYNAMIC_DISPATCH(Int8PackedBytes)(p); }
size_t PreparedFloats(const LinearParams& p) {
  return HWY_DYNAMIC_DISPATCH(Int8PreparedFloats)(p);
}
void Prepare(const LinearParams& p, float* dst) { HWY_DYNAMIC_DISPATCH(Int8Prepare)(p, dst); }
void Pack(const LinearParams& p, void* dst) {
  if (p.w_type == WeightType::kQ8) {
    PackQ8PanelCopy(static_cast<const int8_t*>(p.w), LinearScalePlane(p), p.out, p.in,
                    static_cast<uint8_t*>(dst));
    return;
  }
  if (p.w_type == WeightType::kQ6_K) {
    PackQ6_KPanelCopy(static_cast<const uint8_t*>(p.w), p.out,
                      WeightBlocksPerRow(*FindWeightType(p.w_type), p.in),
                      static_cast<uint8_t*>(dst));
    return;
  }
  PackPanelCopy(static_cast<const uint8_t*>(p.w), p.out,
                WeightBlocksPerRow(*FindWeightType(p.w_type), p.in),
                PanelCopyBlockBytes(p.w_type), PanelCopyF16Fields(p.w_type),
                static_cast<uint8_t*>(dst));
}

}  // namespace

// linear_variants.inc. Rank 3, above every f32-activation kernel (Helium's too): `auto` runs
// q8, q4_0, q4_K and q6_K here on every target, so their results do not depend on the board (on the M55
// it also beats Helium's widening q8 kernel: 0.59 M instructions per LM token against 0.95 M);
// a call that asks for f32 activations (LinearActivations::kF32) skips it
// (quantizes_activations).
// Its packed layout: the panel copies of q4_0, q8, q4_K and q6_K on AVX2 and AVX-512.
extern const LinearKernel kLinearHwyInt8 = {"hwy-int8",  3,         int8_linear::ReadsWeightType,
                                            ScratchFloats, WorkItems, Run,
                                            Isa,         true,      PackedBytes,
                                            Pack,        PreparedFloats, Prepare};

}  // namespace attnrt
#endif  // HWY_ONCE
