// hwy-decode: attention for a few queries against a long key sequence (KV-cache
// decoding), with the keys split across workers.
//
// One work item = (batch, key/value head, block of up to kDecodeRows query rows that
// share that key/value head, split of at most kDecodeSplitKeys keys). The rows of a
// block are the (query head, query row) pairs of one grouped-query group, so with
// GQA every K and V byte is read once per group rather than once per query head.
// Inside an item, keys go in chunks of kDecodeChunkKeys: scores q.k_j for every row
// of the block (vectorized along E straight from the K rows, up to eight dot products
// at a time whose horizontal sums share their shuffles), masks, an online-softmax step
// per row, then P.V straight from the V rows into the rows' accumulators. Nothing is
// packed: K and V stream through once, exactly as stored, with software prefetch
// running ahead of both streams of an f32 cache (kSoftwarePrefetch) when the call
// reads more than kPrefetchMinBytes of K and V (DecodeShape::prefetch).
// An item that covers all keys of its rows (one split) writes the output
// itself. Otherwise it writes a partial result per row, (acc[Ev], m, l),
// into the shared buffer, and Finish merges the splits of each row serially:
//   m = max m_s,  l = sum l_s exp(m_s - m),  out = sum acc_s exp(m_s - m) / l.
// A split without any allowed key has m = kMaskedScore (-inf), l = 0, acc = 0, so
// its weight exp(m_s - m) is 0 next to a live split and it contributes nothing;
// when every split is dead, m is -inf and 0 is subtracted instead (no -inf - -inf).
// Traffic (L = 1, S = 8192, H = 8, E = Ev = 64): K + V are 32 MiB for 16.8 MFLOP,
// half a flop per byte, so the kernel is bound by the memory read of K and V
// (measured: about 1.05x the time of a plain vectorized read of the same bytes);
// scratch and the shared partials (B * Hq * L * splits * (Ev + 2) floats, splits
// capped so there are about kDecodeTargetItems items) stay in L1/L2. Scratch does
// not depend on L or S. Correct for any L, but K and V are read once per block of
// kDecodeRows rows, so long query blocks belong to hwy-flash.
// Causal and window: splits cover only the keys some row may see (a window of W
// keys: the last W + L - 1), an item reads only keys its rows may see, and splits
// wholly outside all their rows' ranges touch no K or V at all. Masks, ALiBi and
// softcap go element by element over each chunk's scores (MaskRow); a sink only
// changes the final normalization (OutputScale), in the item or in Finish.
// Typed KV cache (SdpaParams::kv_type): K and V are read as stored (f16: 2 bytes,
// q8: 1 byte per element) and widened in registers as they are loaded (f16 by
// PromoteTo, int8 via int32 to float), so a decode step streams half or a quarter
// of the f32 bytes. q8's per-key row scale is folded in per score, not per
// element: s_j = scale_k[j] * (q . k_j), and p_j * scale_v[j] is the weight of the
// int8 row v_j in P.V (the softmax sum l keeps the unscaled p_j): 2 multiplies
// per key and row instead of E + Ev.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/sdpa_decode.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cmath>
#include <initializer_list>

#include "attnrt/kernels/kv_store.h"
#include "hwy/cache_control.h"
#include "kernels/hwy/kv_load-inl.h"
#include "kernels/hwy/sdpa_tiles-inl.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

constexpr size_t kDecodeSplitKeys = 1024;  // keys per work item, at most
// Keys are split only until there are this many work items: splits exist to give
// every worker a share when B * Hkv * blocks is small (decode: B = 1, H = 8 gives 8
// items), and each split costs (Ev + 2) floats of shared partials per query row.
// Without the cap a long query block would keep B * Hq * L * S / 1024 partials
// (L = S = 8192, H = 8: 138 MB) for parallelism it already has. 64 covers every
// host we target with several items per worker for load balance.
constexpr size_t kDecodeTargetItems = 64;
constexpr size_t kDecodeChunkKeys = 64;    // keys per online-softmax step
// K rows are prefetched this many keys ahead of their dot products: about one
// memory latency's worth of streaming at L3/DRAM bandwidth (16 rows of 256 B).
constexpr size_t kPrefetchKeys = 16;
// Software prefetch (f32 K and V) pays only when they stream from DRAM. It costs
// about as many instructions per key as the dot products and P.V together (E = 64:
// 55 of 111), and with K and V in L3 the hardware prefetchers keep up without it,
// so the call skips it when its K and V bytes (distinct bytes, all heads) are at
// most this many: a decode step that reads a short cache or a window's last W keys,
// which repeated steps find in the last-level cache. Measured on AMD EPYC Zen 3
// (32 MiB L3 shared by the CCD, 512 KiB L2), one thread, 8 heads, E = Ev = 64,
// CPU time without / with prefetch, interleaved runs (medians of 5):
//   1 MiB (window 256 of S = 8192)            0.87
//   2 MiB (S = 512; window 512)               0.83; 0.85  (1.39x -> 1.19x the read)
//   4 MiB (S = 1024; window 1024)             0.80; 0.87
//   8 MiB (S = 2048; window 2048)             0.89; 0.86
//   16 MiB (S = 4096; window 4096)            0.90 to 1.12; 0.93 to 0.99
//   32 MiB (S = 8192, from DRAM)              1.32
// At 16 MiB the answer depends on what else holds the L3 (here another core
// building), so the threshold stays a factor 2 below it.
constexpr size_t kPrefetchMinBytes = size_t{8} << 20;
constexpr size_t kDecodeRows = 4;  // query rows per work item (one K/V read)

// How a call is cut into work items and partial results.
struct DecodeShape {
  size_t group;   // query heads per key/value head
  size_t rows;    // query rows sharing one key/value head: group * L
  size_t blocks;  // blocks of up to kDecodeRows rows per key/value head
  size_t splits;  // key splits per row, at least 1 (S == 0 still writes zeros)
  size_t split_keys;  // keys per split (the last may have fewer), chunk multiple
  size_t key_begin;   // first key any query row of the call may see (window)
  size_t key_end;     // one past the last such key (causal rule)
  size_t record;  // floats of one partial result (acc[Ev], m, l), cache-line padded
  bool prefetch;  // f32 K and V get software prefetch (more than kPrefetchMinBytes)
};

// first * factors..., saturating at SIZE_MAX instead of wrapping.
HWY_INLINE size_t SaturatingProduct(size_t first, std::initializer_list<size_t> factors) {
  size_t n = first;
  for (size_t factor : factors) {
    if (__builtin_mul_overflow(n, factor, &n)) return ~size_t{0};
  }
  return n;
}

DecodeShape MakeDecodeShape(const SdpaParams& p) {
  DecodeShape shape;
  shape.group = p.kv_heads == 0 ? 0 : p.q_heads / p.kv_heads;
  shape.rows = shape.group * p.q_len;
  shape.blocks = (shape.rows + kDecodeRows - 1) / kDecodeRows;
  // Splits cover only the keys some query may see: with a window of W keys the
  // decode step reads the last W (+ L - 1) keys, however long the cache.
  shape.key_end = p.q_len == 0 ? 0 : CausalVisibleKeys(p, p.q_len - 1);
  shape.key_begin = HWY_MIN(VisibleKeyBegin(p, 0), shape.key_end);
  const size_t span = shape.key_end - shape.key_begin;
  const size_t max_splits = (span + kDecodeSplitKeys - 1) / kDecodeSplitKeys;
  const size_t items = p.batch * p.kv_heads * shape.blocks;
  const size_t wanted = items == 0 ? 1 : (kDecodeTargetItems + items - 1) / items;
  shape.splits = HWY_MAX(size_t{1}, HWY_MIN(max_splits, wanted));
  shape.split_keys = RoundUp((span + shape.splits - 1) / shape.splits, kDecodeChunkKeys);
  shape.record = AlignFloats(p.v_dim + 2);
  // Bytes of f32 K and V the call reads (saturated: then it prefetches).
  shape.prefetch = SaturatingProduct(span, {sizeof(float), p.batch, p.kv_heads,
                                            p.qk_dim + p.v_dim}) > kPrefetchMinBytes;
  return shape;
}

// Index of the partial result of query (b, h, i) over key split `split`.
HWY_INLINE size_t RecordIndex(const SdpaParams& p, const DecodeShape& shape, size_t b, size_t h,
                              size_t i, size_t split) {
  return ((b * p.q_heads + h) * p.q_len + i) * shape.splits + split;
}

struct DecodeLayout {
  size_t ldq, lds, lda;  // row widths: scaled queries, chunk scores, accumulators
  size_t q, s, acc, m, l;  // region offsets in floats
  size_t total;
};

DecodeLayout MakeDecodeLayout(const SdpaParams& p) {
  DecodeLayout layout;
  layout.ldq = AlignFloats(p.qk_dim);
  // RowMax and ExpRowAndSum touch scores up to a whole vector past the chunk.
  layout.lds = AlignFloats(RoundUp(kDecodeChunkKeys, hn::Lanes(DF())));
  // Whole vectors (ScaleRow rescales accumulator rows a vector at a time over all
  // lda floats): AlignFloats pads to 16 floats, a multiple of every lane count DF
  // allows (static_assert below). Uncapped, 32 or 64 lanes (1024- and 2048-bit
  // SVE) made the last vector of a row rescale the next row's accumulator, and
  // from the last row m and l.
  static_assert(kRegionAlignFloats % kMaxFloatLanes == 0, "padded rows are whole vectors");
  layout.lda = AlignFloats(p.v_dim);
  layout.q = 0;
  layout.s = layout.q + kDecodeRows * layout.ldq;
  layout.acc = layout.s + kDecodeRows * layout.lds;
  layout.m = layout.acc + kDecodeRows * layout.lda;
  layout.l = layout.m + AlignFloats(kDecodeRows);
  layout.total = layout.l + AlignFloats(kDecodeRows);
  return layout;
}

size_t DecodeScratchFloats(const SdpaParams& p) { return MakeDecodeLayout(p).total; }

size_t DecodeWorkItems(const SdpaParams& p) {
  const DecodeShape shape = MakeDecodeShape(p);
  return p.batch * p.kv_heads * shape.blocks * shape.splits;
}

// Floats of the shared partial results; 0 when every row fits one split. Saturates
// instead of wrapping so the runtime's checked size math reports the overflow.
size_t DecodeSharedFloats(const SdpaParams& p) {
  const DecodeShape shape = MakeDecodeShape(p);
  if (shape.splits == 1) return 0;
  return SaturatingProduct(shape.record, {p.batch, p.q_heads, p.q_len, shape.splits});
}

// out[x] = sum of the lanes of a_x, x < 4. Two blockwise interleave-and-add steps
// leave in every 128-bit block that block's partial sums of the four vectors;
// the blocks are then added as 4-lane vectors (the compiler keeps the buffer in
// registers). On AVX-512 that is 9 shuffles for four sums where four SumOfLanes
// take about 20, and x86 runs shuffles on one port: the four-row (GQA) items
// got about 13% faster with K and V in cache.
HWY_INLINE void SumOfLanes4(hn::Vec<DF> a0, hn::Vec<DF> a1, hn::Vec<DF> a2, hn::Vec<DF> a3,
                            float* HWY_RESTRICT out) {
  const DF d;
#if HWY_TARGET == HWY_SCALAR
  out[0] = hn::GetLane(a0);
  out[1] = hn::GetLane(a1);
  out[2] = hn::GetLane(a2);
  out[3] = hn::GetLane(a3);
  (void)d;
#else
  const hn::Repartition<uint64_t, DF> d64;
  // Per block: [a0_0 + a0_2, a1_0 + a1_2, a0_1 + a0_3, a1_1 + a1_3], same for a2, a3.
  const auto s01 = hn::Add(hn::InterleaveLower(d, a0, a1), hn::InterleaveUpper(d, a0, a1));
  const auto s23 = hn::Add(hn::InterleaveLower(d, a2, a3), hn::InterleaveUpper(d, a2, a3));
  // Per block: [sum of a0's 4 lanes, a1's, a2's, a3's].
  const auto w01 = hn::BitCast(d64, s01);
  const auto w23 = hn::BitCast(d64, s23);
  const auto blocks = hn::Add(hn::BitCast(d, hn::InterleaveLower(d64, w01, w23)),
                              hn::BitCast(d, hn::InterleaveUpper(d64, w01, w23)));
  HWY_ALIGN float buffer[hn::MaxLanes(d)];
  hn::Store(blocks, d, buffer);
  const hn::FixedTag<float, 4> d4;
  auto sum = hn::Load(d4, buffer);
  for (size_t b = 4; b < hn::Lanes(d); b += 4) sum = hn::Add(sum, hn::Load(d4, buffer + b));
  hn::StoreU(sum, d4, out);
#endif
}

// Scores of kKeys consecutive keys (k_j at k + j * k_row_stride) against the
// kRows rows (q_r, already scaled, at qs + r * ldq): s[r * lds + j] = q_r . k_j.
// The kRows * kKeys <= 8 dot products are independent accumulators, so up to 8
// FMA chains are in flight at once (the FMA latency times the two FMA ports),
// and their horizontal sums are done four at a time. Accumulators past
// kRows * kKeys are dead code the compiler drops; they are named values, not
// arrays, so the code also builds for SVE.
template <size_t kRows, size_t kKeys, typename T>
HWY_INLINE void ScoreStep(const T* HWY_RESTRICT k, size_t k_row_stride, size_t dim,
                          const float* HWY_RESTRICT qs, size_t ldq, float* HWY_RESTRICT s,
                          size_t lds) {
  static_assert(kRows * kKeys <= 8, "eight accumulators");
  constexpr size_t kDots = kRows * kKeys;
  const DF d;
  const size_t N = hn::Lanes(d);
  const size_t vec_end = dim / N * N;
  // Dot product x pairs row x % kRows with key x / kRows.
  const T* HWY_RESTRICT k0 = k;
  const T* HWY_RESTRICT k1 = k + (1 / kRows) * k_row_stride;
  const T* HWY_RESTRICT k2 = k + (2 / kRows) * k_row_stride;
  const T* HWY_RESTRICT k3 = k + (3 / kRows) * k_row_stride;
  const T* HWY_RESTRICT k4 = k + (4 / kRows) * k_row_stride;
  const T* HWY_RESTRICT k5 = k + (5 / kRows) * k_row_stride;
  const T* HWY_RESTRICT k6 = k + (6 / kRows) * k_row_stride;
  const T* HWY_RESTRICT k7 = k + (7 / kRows) * k_row_stride;
  const float* HWY_RESTRICT q0 = qs;
  const float* HWY_RESTRICT q1 = qs + (1 % kRows) * ldq;
  const float* HWY_RESTRICT q2 = qs + (2 % kRows) * ldq;
  const float* HWY_RESTRICT q3 = qs + (3 % kRows) * ldq;
  const float* HWY_RESTRICT q4 = qs + (4 % kRows) * ldq;
  const float* HWY_RESTRICT q5 = qs + (5 % kRows) * ldq;
  const float* HWY_RESTRICT q6 = qs + (6 % kRows) * ldq;
  const float* HWY_RESTRICT q7 = qs + (7 % kRows) * ldq;
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  auto a4 = hn::Zero(d), a5 = hn::Zero(d), a6 = hn::Zero(d), a7 = hn::Zero(d);
  for (size_t e = 0; e < vec_end; e += N) {
    a0 = hn::MulAdd(hn::Load(d, q0 + e), LoadWide(d, k0 + e), a0);
    if (kDots > 1) a1 = hn::MulAdd(hn::Load(d, q1 + e), LoadWide(d, k1 + e), a1);
    if (kDots > 2) a2 = hn::MulAdd(hn::Load(d, q2 + e), LoadWide(d, k2 + e), a2);
    if (kDots > 3) a3 = hn::MulAdd(hn::Load(d, q3 + e), LoadWide(d, k3 + e), a3);
    if (kDots > 4) a4 = hn::MulAdd(hn::Load(d, q4 + e), LoadWide(d, k4 + e), a4);
    if (kDots > 5) a5 = hn::MulAdd(hn::Load(d, q5 + e), LoadWide(d, k5 + e), a5);
    if (kDots > 6) a6 = hn::MulAdd(hn::Load(d, q6 + e), LoadWide(d, k6 + e), a6);
    if (kDots > 7) a7 = hn::MulAdd(hn::Load(d, q7 + e), LoadWide(d, k7 + e), a7);
  }
  float t[8];
  if (kDots == 1) {
    t[0] = hn::GetLane(hn::SumOfLanes(d, a0));
  } else {
    SumOfLanes4(a0, a1, a2, a3, t);
    if (kDots > 4) SumOfLanes4(a4, a5, a6, a7, t + 4);
  }
  for (size_t e = vec_end; e < dim; ++e) {
    t[0] += q0[e] * Wide(k0[e]);
    if (kDots > 1) t[1] += q1[e] * Wide(k1[e]);
    if (kDots > 2) t[2] += q2[e] * Wide(k2[e]);
    if (kDots > 3) t[3] += q3[e] * Wide(k3[e]);
    if (kDots > 4) t[4] += q4[e] * Wide(k4[e]);
    if (kDots > 5) t[5] += q5[e] * Wide(k5[e]);
    if (kDots > 6) t[6] += q6[e] * Wide(k6[e]);
    if (kDots > 7) t[7] += q7[e] * Wide(k7[e]);
  }
  s[0] = t[0];
  if (kDots > 1) s[(1 % kRows) * lds + 1 / kRows] = t[1];
  if (kDots > 2) s[(2 % kRows) * lds + 2 / kRows] = t[2];
  if (kDots > 3) s[(3 % kRows) * lds + 3 / kRows] = t[3];
  if (kDots > 4) s[(4 % kRows) * lds + 4 / kRows] = t[4];
  if (kDots > 5) s[(5 % kRows) * lds + 5 / kRows] = t[5];
  if (kDots > 6) s[(6 % kRows) * lds + 6 / kRows] = t[6];
  if (kDots > 7) s[(7 % kRows) * lds + 7 / kRows] = t[7];
}

// One cache line per prefetch; 64 bytes is the line size on every target here.
constexpr size_t kLineBytes = 64;

// Prefetches the lines that start inside the n elements of a row of K or V. Rows
// of one head are usually contiguous, so over consecutive keys this touches every
// line once: an f16 row of 48 values is 1.5 lines, where prefetching each row's
// own lines issued 2 per row (a third of them redundant, more for q8 rows).
template <typename T>
HWY_INLINE void PrefetchRow(const T* row, size_t n) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(row);
  const uintptr_t end = begin + n * sizeof(T);
  for (uintptr_t a = (begin + kLineBytes - 1) & ~uintptr_t{kLineBytes - 1}; a < end; a += kLineBytes) {
    hwy::Prefetch(reinterpret_cast<const char*>(a));
  }
}

// Whether rows of storage type T get software prefetch: f32 only. An f16 or q8
// step streams a half or a quarter of the bytes per key while it does the same
// arithmetic plus the widening, so it is bound by instructions, not by the read,
// and the hardware stream prefetcher keeps up; the prefetch loops (per key and
// stream: align the row start, loop over its lines) were then about half the
// instructions of the f16 step at E = 48 with one query row. Zen 5, one thread,
// CPU time, S = 4096, without vs with software prefetch: 6/6 heads, E = 48: f16
// 101 -> 81 us (also faster at S = 65536, out of L3), q8 86 -> 72 us; 8/4 heads,
// E = 64: f16 119 -> 103 us, q8 105 -> 92 us; f32 25% slower without it.
template <typename T>
constexpr bool kSoftwarePrefetch = sizeof(T) == sizeof(float);

// s_r[j] = q_r . k_j for j < keys and the kRows rows (s_r at s + r * lds).
// For f32 rows (kSoftwarePrefetch), software prefetch keeps both streams ahead
// of their use: the K row kPrefetchKeys ahead (as long as it is one of the item's
// `item_keys` keys from k on), and each key's value row as its score is
// computed, since P.V reads it right after the chunk's scores. The plain hardware
// stream prefetch alone left the f32 kernel a few percent slower than a plain
// read of K and V streaming from DRAM; `prefetch` is false for calls that read
// few enough bytes to find them in cache (kPrefetchMinBytes).
template <size_t kRows, typename T>
HWY_INLINE void DecodeScores(const T* HWY_RESTRICT k, size_t k_row_stride, size_t keys,
                             size_t item_keys, bool prefetch, size_t dim,
                             const float* HWY_RESTRICT qs, size_t ldq, const T* HWY_RESTRICT v,
                             size_t v_row_stride, size_t v_dim, float* HWY_RESTRICT s,
                             size_t lds) {
  // Keys per step: up to 8 dot products in flight. An f32 step keeps 4: its
  // per-key prefetch of 8 K and V rows ahead of the step was 3.5% slower with K
  // and V in L3 (S = 4096, 8 heads, Zen 3), where typed rows gain 7-12%.
  constexpr size_t kKeys = (kSoftwarePrefetch<T> ? 4 : 8) / kRows;
  size_t j = 0;
  for (; j + kKeys <= keys; j += kKeys) {
    for (size_t u = j; kSoftwarePrefetch<T> && prefetch && u < j + kKeys; ++u) {
      if (u + kPrefetchKeys < item_keys) PrefetchRow(k + (u + kPrefetchKeys) * k_row_stride, dim);
      PrefetchRow(v + u * v_row_stride, v_dim);
    }
    ScoreStep<kRows, kKeys>(k + j * k_row_stride, k_row_stride, dim, qs, ldq, s + j, lds);
  }
  for (; j < keys; ++j) {
    ScoreStep<kRows, 1>(k + j * k_row_stride, k_row_stride, dim, qs, ldq, s + j, lds);
  }
}

// a0 += w * v0 and a1 += w * v1: one probability w against two vectors of a value row.
template <class V>
HWY_INLINE void AddWeighted2(DF d, float w, V v0, V v1, V& a0, V& a1) {
  const V ws = hn::Set(d, w);
  a0 = hn::MulAdd(ws, v0, a0);
  a1 = hn::MulAdd(ws, v1, a1);
}

// acc_r[c] += sum_{j < keys} p_r[j] * v_j[c] for the kRows rows (p_r at
// p + r * lds, acc_r at acc + r * lda). Two vectors of columns at a time keep
// 2 * kRows accumulators in registers while each V vector is loaded once.
template <size_t kRows, typename T>
HWY_INLINE void DecodeValues(const T* HWY_RESTRICT v, size_t v_row_stride, size_t keys,
                             size_t dim, const float* HWY_RESTRICT p, size_t lds,
                             float* HWY_RESTRICT acc, size_t lda) {
  const DF d;
  const size_t N = hn::Lanes(d);
  size_t c = 0;
  // One row: four vectors of columns, even and odd keys apart, keep 8 FMA chains
  // in flight. Two vectors (4 chains) left P.V waiting on the FMA latency: about 8
  // cycles per key at E = 64 on AVX2, twice what the FMA ports allow.
  for (; kRows == 1 && c + 4 * N <= dim; c += 4 * N) {
    auto a0 = hn::Load(d, acc + c), a1 = hn::Load(d, acc + c + N);
    auto a2 = hn::Load(d, acc + c + 2 * N), a3 = hn::Load(d, acc + c + 3 * N);
    auto b0 = hn::Zero(d), b1 = hn::Zero(d), b2 = hn::Zero(d), b3 = hn::Zero(d);
    size_t j = 0;
    for (; j + 2 <= keys; j += 2) {
      const T* HWY_RESTRICT vj = v + j * v_row_stride + c;
      const T* HWY_RESTRICT vk = vj + v_row_stride;
      auto w = hn::Set(d, p[j]);
      a0 = hn::MulAdd(w, LoadWide(d, vj), a0);
      a1 = hn::MulAdd(w, LoadWide(d, vj + N), a1);
      a2 = hn::MulAdd(w, LoadWide(d, vj + 2 * N), a2);
      a3 = hn::MulAdd(w, LoadWide(d, vj + 3 * N), a3);
      w = hn::Set(d, p[j + 1]);
      b0 = hn::MulAdd(w, LoadWide(d, vk), b0);
      b1 = hn::MulAdd(w, LoadWide(d, vk + N), b1);
      b2 = hn::MulAdd(w, LoadWide(d, vk + 2 * N), b2);
      b3 = hn::MulAdd(w, LoadWide(d, vk + 3 * N), b3);
    }
    if (j < keys) {
      const T* HWY_RESTRICT vj = v + j * v_row_stride + c;
      const auto w = hn::Set(d, p[j]);
      a0 = hn::MulAdd(w, LoadWide(d, vj), a0);
      a1 = hn::MulAdd(w, LoadWide(d, vj + N), a1);
      a2 = hn::MulAdd(w, LoadWide(d, vj + 2 * N), a2);
      a3 = hn::MulAdd(w, LoadWide(d, vj + 3 * N), a3);
    }
    hn::Store(hn::Add(a0, b0), d, acc + c);
    hn::Store(hn::Add(a1, b1), d, acc + c + N);
    hn::Store(hn::Add(a2, b2), d, acc + c + 2 * N);
    hn::Store(hn::Add(a3, b3), d, acc + c + 3 * N);
  }
  for (; c + 2 * N <= dim; c += 2 * N) {
    auto a00 = hn::Load(d, acc + c), a01 = hn::Load(d, acc + c + N);
    auto a10 = a00, a11 = a01, a20 = a00, a21 = a01, a30 = a00, a31 = a01;
    if (kRows > 1) {
      a10 = hn::Load(d, acc + lda + c);
      a11 = hn::Load(d, acc + lda + c + N);
    }
    if (kRows > 2) {
      a20 = hn::Load(d, acc + 2 * lda + c);
      a21 = hn::Load(d, acc + 2 * lda + c + N);
    }
    if (kRows > 3) {
      a30 = hn::Load(d, acc + 3 * lda + c);
      a31 = hn::Load(d, acc + 3 * lda + c + N);
    }
    size_t j = 0;
    if (kRows <= 2) {
      // With one or two rows, 2 * kRows accumulator chains cannot hide the FMA
      // latency: odd keys go into a second set, added in after the loop.
      auto b00 = hn::Zero(d), b01 = hn::Zero(d), b10 = hn::Zero(d), b11 = hn::Zero(d);
      for (; j + 2 <= keys; j += 2) {
        const T* HWY_RESTRICT vj = v + j * v_row_stride + c;
        const T* HWY_RESTRICT vk = vj + v_row_stride;
        const auto v0 = LoadWide(d, vj);
        const auto v1 = LoadWide(d, vj + N);
        const auto u0 = LoadWide(d, vk);
        const auto u1 = LoadWide(d, vk + N);
        AddWeighted2(d, p[j], v0, v1, a00, a01);
        AddWeighted2(d, p[j + 1], u0, u1, b00, b01);
        if (kRows > 1) {
          AddWeighted2(d, p[lds + j], v0, v1, a10, a11);
          AddWeighted2(d, p[lds + j + 1], u0, u1, b10, b11);
        }
      }
      a00 = hn::Add(a00, b00);
      a01 = hn::Add(a01, b01);
      a10 = hn::Add(a10, b10);
      a11 = hn::Add(a11, b11);
    }
    for (; j < keys; ++j) {
      const T* HWY_RESTRICT vj = v + j * v_row_stride + c;
      const auto v0 = LoadWide(d, vj);
      const auto v1 = LoadWide(d, vj + N);
      AddWeighted2(d, p[j], v0, v1, a00, a01);
      if (kRows > 1) AddWeighted2(d, p[lds + j], v0, v1, a10, a11);
      if (kRows > 2) AddWeighted2(d, p[2 * lds + j], v0, v1, a20, a21);
      if (kRows > 3) AddWeighted2(d, p[3 * lds + j], v0, v1, a30, a31);
    }
    hn::Store(a00, d, acc + c);
    hn::Store(a01, d, acc + c + N);
    if (kRows > 1) {
      hn::Store(a10, d, acc + lda + c);
      hn::Store(a11, d, acc + lda + c + N);
    }
    if (kRows > 2) {
      hn::Store(a20, d, acc + 2 * lda + c);
      hn::Store(a21, d, acc + 2 * lda + c + N);
    }
    if (kRows > 3) {
      hn::Store(a30, d, acc + 3 * lda + c);
      hn::Store(a31, d, acc + 3 * lda + c + N);
    }
  }
  // Columns left over (fewer than two vectors): row by row, vector then scalar.
  for (size_t r = 0; r < kRows; ++r) {
    float* HWY_RESTRICT ar = acc + r * lda;
    const float* HWY_RESTRICT pr = p + r * lds;
    size_t cr = c;
    for (; cr + N <= dim; cr += N) {
      // Two chains (even and odd keys): one alone waits on the FMA latency every
      // key, which made E = 48 on AVX-512 (32 + 16 columns) pay for its last 16
      // nearly as much as for the first 32.
      auto a = hn::Load(d, ar + cr);
      auto b = hn::Zero(d);
      size_t j = 0;
      for (; j + 2 <= keys; j += 2) {
        a = hn::MulAdd(hn::Set(d, pr[j]), LoadWide(d, v + j * v_row_stride + cr), a);
        b = hn::MulAdd(hn::Set(d, pr[j + 1]), LoadWide(d, v + (j + 1) * v_row_stride + cr), b);
      }
      for (; j < keys; ++j) {
        a = hn::MulAdd(hn::Set(d, pr[j]), LoadWide(d, v + j * v_row_stride + cr), a);
      }
      hn::Store(hn::Add(a, b), d, ar + cr);
    }
    for (; cr < dim; ++cr) {
      float a = ar[cr];
      for (size_t j = 0; j < keys; ++j) a += pr[j] * Wide(v[j * v_row_stride + cr]);
      ar[cr] = a;
    }
  }
}

// One online-softmax step of one row: folds chunk scores s[0 .. n) into the
// running max *m and sum *l, turns s into exp(s - m_new), and returns the factor
// exp(m_old - m_use) the row's accumulator must be scaled by, m_use being m_new,
// or 0 while the row has seen no allowed key (m_new = -inf): its probabilities
// and alpha are then exp(-inf) = 0, never exp(-inf - -inf) = NaN.
HWY_INLINE float OnlineSoftmaxStep(float* HWY_RESTRICT s, size_t n, float* m, float* l) {
  const float m_old = *m;
  const float m_new = HWY_MAX(m_old, RowMax(s, n));
  const float m_use = RowIsDeadMax(m_new) ? 0.0f : m_new;
  const float alpha = std::exp(m_old - m_use);
  const float sum = ExpRowAndSum(s, n, m_use);
  *m = m_new;
  *l = *l * alpha + sum;
  return alpha;
}

// y[0 .. n) += a * x[0 .. n) for any n and alignment.
HWY_INLINE void AddScaled(const float* HWY_RESTRICT x, size_t n, float a, float* HWY_RESTRICT y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto va = hn::Set(d, a);
  size_t j = 0;
  for (; j + N <= n; j += N) {
    hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + j), hn::LoadU(d, y + j)), d, y + j);
  }
  for (; j < n; ++j) y[j] += a * x[j];
}

// The query rows of one work item.
struct DecodeRows {
  size_t head[kDecodeRows];     // query head
  size_t row[kDecodeRows];      // query row i
  size_t visible[kDecodeRows];  // keys the causal rule leaves row i
  size_t first[kDecodeRows];    // first key the window leaves row i
};

// x[j] *= scales[j * stride] for j < n: q8's row scales folded into scores or
// probabilities.
HWY_INLINE void MulRowScales(float* HWY_RESTRICT x, size_t n, const float* HWY_RESTRICT scales,
                             size_t stride) {
  for (size_t j = 0; j < n; ++j) x[j] *= scales[j * stride];
}

// The K (or V) row 0 of (b, g), in its storage type T.
template <typename T>
HWY_INLINE const T* KvRows(const float* f32, const void* typed, const Strides3& st, size_t b,
                           size_t g) {
  const void* base = f32 != nullptr ? static_cast<const void*>(f32) : typed;
  return static_cast<const T*>(base) + b * st.batch + g * st.head;
}

template <size_t kRows, typename T>
void DecodeItem(const SdpaParams& p, const DecodeShape& shape, const DecodeLayout& layout, size_t b,
                size_t g, size_t first_row, size_t split, float* HWY_RESTRICT scratch,
                float* HWY_RESTRICT shared) {
  float* HWY_RESTRICT qs = scratch + layout.q;
  float* HWY_RESTRICT s = scratch + layout.s;
  float* HWY_RESTRICT acc = scratch + layout.acc;
  float* HWY_RESTRICT m = scratch + layout.m;
  float* HWY_RESTRICT l = scratch + layout.l;
  DecodeRows rows;
  size_t key_end = 0;
  size_t key_first = p.kv_len;
  for (size_t r = 0; r < kRows; ++r) {
    const size_t t = first_row + r;
    rows.head[r] = g * shape.group + t / p.q_len;
    rows.row[r] = t % p.q_len;
    rows.visible[r] = CausalVisibleKeys(p, rows.row[r]);
    rows.first[r] = VisibleKeyBegin(p, rows.row[r]);
    key_end = HWY_MAX(key_end, rows.visible[r]);
    key_first = HWY_MIN(key_first, rows.first[r]);
    const float* q = p.q + b * p.q_strides.batch + rows.head[r] * p.q_strides.head +
                     rows.row[r] * p.q_strides.row;
    ScaleCopy(q, p.qk_dim, p.scale, qs + r * layout.ldq);
    ZeroFloats(acc + r * layout.lda, layout.lda);
    m[r] = kMaskedScore;
    l[r] = 0.0f;
  }
  const size_t split_begin = shape.key_begin + split * shape.split_keys;
  key_end = HWY_MIN(key_end, HWY_MIN(shape.key_end, split_begin + shape.split_keys));
  // Keys before every row's window are never read.
  const size_t key_begin = HWY_MAX(split_begin, key_first);
  const bool fast_transform = FastScoreTransform(p);
  const bool elementwise = NeedsElementwiseScores(p) && !fast_transform;

  const T* k = KvRows<T>(p.k, p.k_data, p.k_strides, b, g);
  const T* v = KvRows<T>(p.v, p.v_data, p.v_strides, b, g);
  const bool q8 = p.kv_type == KvType::kQ8;
  const float* k_scales = q8 ? p.k_scales + b * p.k_scale_strides.batch + g * p.k_scale_strides.head
                             : nullptr;
  const float* v_scales = q8 ? p.v_scales + b * p.v_scale_strides.batch + g * p.v_scale_strides.head
                             : nullptr;
  for (size_t j0 = key_begin; j0 < key_end; j0 += kDecodeChunkKeys) {
    const size_t n = HWY_MIN(kDecodeChunkKeys, key_end - j0);
    const T* kc = k + j0 * p.k_strides.row;
    const T* vc = v + j0 * p.v_strides.row;
    DecodeScores<kRows>(kc, p.k_strides.row, n, key_end - j0, shape.prefetch, p.qk_dim, qs,
                        layout.ldq, vc, p.v_strides.row, p.v_dim, s, layout.lds);
    for (size_t r = 0; r < kRows; ++r) {
      float* HWY_RESTRICT sr = s + r * layout.lds;
      if (q8) MulRowScales(sr, n, k_scales + j0 * p.k_scale_strides.row, p.k_scale_strides.row);
      if (elementwise) {
        MaskRow(p, b, rows.head[r], rows.row[r], j0, n, sr);
      } else {
        if (fast_transform) TransformRow(p, rows.head[r], rows.row[r], j0, n, sr);
        if (rows.visible[r] < j0 + n) {
          // Keys past this row's causal limit (other rows of the block see them).
          for (size_t j = rows.visible[r] > j0 ? rows.visible[r] - j0 : 0; j < n; ++j) {
            sr[j] = kMaskedScore;
          }
        }
        if (rows.first[r] > j0) {
          // Keys before this row's window.
          const size_t hidden = HWY_MIN(rows.first[r] - j0, n);
          for (size_t j = 0; j < hidden; ++j) sr[j] = kMaskedScore;
        }
      }
      const float alpha = OnlineSoftmaxStep(sr, n, m + r, l + r);
      if (alpha != 1.0f) ScaleRow(acc + r * layout.lda, layout.lda, alpha);
      if (q8) MulRowScales(sr, n, v_scales + j0 * p.v_scale_strides.row, p.v_scale_strides.row);
    }
    DecodeValues<kRows>(vc, p.v_strides.row, n, p.v_dim, s, layout.lds, acc, layout.lda);
  }

  for (size_t r = 0; r < kRows; ++r) {
    const float* HWY_RESTRICT ar = acc + r * layout.lda;
    if (shape.splits == 1) {
      // The item saw every key of the row: normalize straight into the output.
      // A row without any allowed key has l == 0 and gets zeros.
      float* out = p.out + b * p.out_strides.batch + rows.head[r] * p.out_strides.head +
                   rows.row[r] * p.out_strides.row;
      ScaleCopy(ar, p.v_dim, OutputScale(m[r], l[r], SinkOf(p, rows.head[r])), out);
    } else {
      float* HWY_RESTRICT record =
          shared + RecordIndex(p, shape, b, rows.head[r], rows.row[r], split) * shape.record;
      ScaleCopy(ar, p.v_dim, 1.0f, record);
      record[p.v_dim] = m[r];
      record[p.v_dim + 1] = l[r];
    }
  }
}

template <typename T>
void DecodeRunTyped(const SdpaParams& p, size_t begin, size_t end, float* scratch,
                    float* shared) {
  const DecodeShape shape = MakeDecodeShape(p);
  const DecodeLayout layout = MakeDecodeLayout(p);
  for (size_t item = begin; item < end; ++item) {
    // Splits vary fastest, so a worker's run of items streams consecutive keys.
    const size_t split = item % shape.splits;
    const size_t block = (item / shape.splits) % shape.blocks;
    const size_t g = (item / (shape.splits * shape.blocks)) % p.kv_heads;
    const size_t b = item / (shape.splits * shape.blocks * p.kv_heads);
    const size_t first_row = block * kDecodeRows;
    switch (HWY_MIN(kDecodeRows, shape.rows - first_row)) {
      case 1: DecodeItem<1, T>(p, shape, layout, b, g, first_row, split, scratch, shared); break;
      case 2: DecodeItem<2, T>(p, shape, layout, b, g, first_row, split, scratch, shared); break;
      case 3: DecodeItem<3, T>(p, shape, layout, b, g, first_row, split, scratch, shared); break;
      default: DecodeItem<4, T>(p, shape, layout, b, g, first_row, split, scratch, shared); break;
    }
  }
}

void DecodeRun(const SdpaParams& p, size_t begin, size_t end, float* scratch, float* shared) {
  switch (p.kv_type) {
    case KvType::kF16: DecodeRunTyped<uint16_t>(p, begin, end, scratch, shared); break;
    case KvType::kQ8: DecodeRunTyped<int8_t>(p, begin, end, scratch, shared); break;
    default: DecodeRunTyped<float>(p, begin, end, scratch, shared); break;
  }
}

// Merges the per-split partial results of every query row into the output. The
// first split's accumulator (ours to overwrite) collects the weighted sum.
void DecodeFinish(const SdpaParams& p, float* shared) {
  const DecodeShape shape = MakeDecodeShape(p);
  if (shape.splits == 1) return;  // items wrote the output themselves
  const size_t ev = p.v_dim;
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t h = 0; h < p.q_heads; ++h) {
      for (size_t i = 0; i < p.q_len; ++i) {
        float* HWY_RESTRICT first = shared + RecordIndex(p, shape, b, h, i, 0) * shape.record;
        float m = kMaskedScore;
        for (size_t split = 0; split < shape.splits; ++split) {
          m = HWY_MAX(m, first[split * shape.record + ev]);
        }
        // Dead splits (m_s = -inf) weigh exp(-inf - m) = 0 next to a live one; a row
        // with no live split subtracts 0 instead of m = -inf, keeps l == 0 and gets zeros.
        if (RowIsDeadMax(m)) m = 0.0f;
        const float w0 = std::exp(first[ev] - m);
        float l = first[ev + 1] * w0;
        ScaleCopy(first, ev, w0, first);
        for (size_t split = 1; split < shape.splits; ++split) {
          const float* HWY_RESTRICT rec = first + split * shape.record;
          const float w = std::exp(rec[ev] - m);
          l += rec[ev + 1] * w;
          AddScaled(rec, ev, w, first);
        }
        float* out = p.out + b * p.out_strides.batch + h * p.out_strides.head +
                     i * p.out_strides.row;
        // m is 0 for a row without any live split (l == 0): OutputScale sees -inf.
        const float m_row = l > 0.0f || l != l ? m : kMaskedScore;
        ScaleCopy(first, ev, OutputScale(m_row, l, SinkOf(p, h)), out);
      }
    }
  }
}

const char* DecodeIsa() { return hwy::TargetName(HWY_TARGET); }

ATTNRT_HWY_END

#if HWY_ONCE
#include "kernels/hwy/sdpa_export.h"

namespace attnrt {
ATTNRT_EXPORT_HWY_SDPA_KERNEL_WITH_SHARED(Decode, kSdpaHwyDecode, "hwy-decode", kDecode, false, true)
}  // namespace attnrt
#endif  // HWY_ONCE
