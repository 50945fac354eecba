// helium-flash: online-softmax attention written with Arm MVE (Helium) intrinsics, for
// the Cortex-M55 (128-bit vectors: 4 float lanes, 8 vector registers).
//
// One query row at a time; for each tile of up to kTileKeys keys the row may see:
//   scores    s_j = scale * q.k_j (+ mask)          4 keys at a time, vectors along E
//   softmax   m' = max(m, max_j s_j), alpha = e^(m - m'), p_j = e^(s_j - m'),
//             l = l * alpha + sum_j p_j
//   P.V       acc = acc * alpha + sum_j p_j v_j       vectors along Ev, 16 columns in registers
// and out = acc / l after the last tile. Scratch is one tile of scores, a 16-float
// reduction buffer and one accumulator row: it depends on Ev, never on L or S.
//
// Why vectors along E and Ev, not along queries as hwy-flash does: with 8 vector
// registers the register tiles are small either way (Dot4's loop issues 10 instructions
// per 16 multiply-adds; a 2 keys x 8 queries tile would issue 9), and lanes along
// queries would leave 3 of 4 lanes idle at L = 1, the decode step a firmware KV cache
// runs. A dot product along E ends in a horizontal sum, which MVE has no float
// instruction for; Dot4 pays it once per 4 keys with a transposing reload (VLD4).
// Non-finite inputs follow PyTorch as the other variants do: a NaN or +inf score of a
// key the row may attend makes the row NaN, -inf weighs 0 (see ScoreTile, exp_mve.h).
// Causal and window: a row only visits the keys the rules let it see, so tiles past the
// diagonal or before the window are never touched and no causal mask is ever computed.
// ALiBi and softcap go element by element through ApplyMask; a sink only changes the
// final normalization.
// Tails (E, Ev, the last keys of a tile) use tail predication (VCTP) with zeroing
// loads: lanes past the end read no memory and add nothing.
//
// Compiled to nothing, and not listed (kernels/sdpa_variants.inc), without MVE float.
#include "attnrt/kernels/helium.h"
#include "attnrt/kernels/sdpa_kernel.h"

#if ATTNRT_HELIUM
#include <arm_mve.h>

#include <cstddef>
#include <cstdint>

#include "kernels/blocked/sdpa_blocks.h"
#include "kernels/blocked/sdpa_mask.h"
#include "kernels/helium/exp_mve.h"

namespace attnrt {
namespace helium {
namespace {

constexpr size_t kLanes = 4;
constexpr size_t kItemRows = 16;   // queries per work item (the unit workers are handed)
constexpr size_t kTileKeys = 64;   // keys per online-softmax step
constexpr size_t kBlockCols = 16;  // accumulator columns P.V keeps in registers (4 vectors)

size_t RoundUp(size_t n, size_t m) { return (n + m - 1) / m * m; }

// The per-tile steps stay out of line: inlined into the row loop, GCC 12 runs out of
// core registers and spills the pointers of the inner loops to the stack (22% more
// instructions at L = S = 64, E = 32); a call per tile of 64 keys is noise.
#define ATTNRT_HELIUM_PER_TILE __attribute__((noinline))

// Scratch in floats: scores [kTileKeys] | partial sums [16] | accumulator [Ev rounded up
// to 16]. Every region is a multiple of 16 floats, so each starts 64-byte aligned, and
// the padded accumulator can be loaded and stored without predication.
constexpr size_t kScoresAt = 0;
constexpr size_t kPartialAt = kScoresAt + kTileKeys;
constexpr size_t kAccAt = kPartialAt + 16;

size_t ScratchFloats(const SdpaParams& p) { return kAccAt + RoundUp(p.v_dim, kBlockCols); }

size_t WorkItems(const SdpaParams& p) { return QueryBlockCount(p, kItemRows); }

// How a row of the mask is read. Masks whose keys are contiguous (column stride 1) are
// applied 4 keys at a time; any other stride (0: broadcast over keys) goes element by
// element through ApplyMask, the definition every variant shares.
enum class MaskRead { kNone, kBool, kAdditive, kScalar };

MaskRead MaskReadOf(const SdpaParams& p) {
  // ALiBi and softcap change every score: element by element through ApplyMask.
  if (HasScoreTransform(p)) return MaskRead::kScalar;
  if (p.mask_kind == MaskKind::kNone) return MaskRead::kNone;
  if (p.mask_strides.col != 1) return MaskRead::kScalar;
  return p.mask_kind == MaskKind::kBool ? MaskRead::kBool : MaskRead::kAdditive;
}

// What every tile of one query row needs.
struct Row {
  const SdpaParams* p;
  size_t h;               // query head (ALiBi slope)
  size_t i;               // query index
  const float* q;         // the query (E floats)
  const float* k;         // key 0 of the kv head
  const uint8_t* mask;    // the mask row, or nullptr
  MaskRead mask_read;
};

float SumLanes(float32x4_t x) {
  return (vgetq_lane_f32(x, 0) + vgetq_lane_f32(x, 1)) +
         (vgetq_lane_f32(x, 2) + vgetq_lane_f32(x, 3));
}

// The dot products of q with 4 keys, as one vector (lane t = q.k_t). Each key gets a
// vector of partial sums along E; storing the 4 of them and reading them back with
// VLD4 (de-interleaving) transposes them, so 3 vector adds finish all 4 sums.
float32x4_t Dot4(const float* q, const float* k0, const float* k1, const float* k2,
                 const float* k3, size_t dim, float* partial) {
  float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0;
  // Pointers step instead of one index, so each load is a post-incrementing VLDRW.
  for (size_t e = dim / kLanes; e > 0; --e) {
    const float32x4_t qe = vld1q_f32(q);
    a0 = vfmaq_f32(a0, qe, vld1q_f32(k0));
    a1 = vfmaq_f32(a1, qe, vld1q_f32(k1));
    a2 = vfmaq_f32(a2, qe, vld1q_f32(k2));
    a3 = vfmaq_f32(a3, qe, vld1q_f32(k3));
    q += kLanes, k0 += kLanes, k1 += kLanes, k2 += kLanes, k3 += kLanes;
  }
  if (dim % kLanes != 0) {  // E tail: zeroing loads, the lanes past E multiply 0 by 0
    const mve_pred16_t live = vctp32q(dim % kLanes);
    const float32x4_t qe = vldrwq_z_f32(q, live);
    a0 = vfmaq_f32(a0, qe, vldrwq_z_f32(k0, live));
    a1 = vfmaq_f32(a1, qe, vldrwq_z_f32(k1, live));
    a2 = vfmaq_f32(a2, qe, vldrwq_z_f32(k2, live));
    a3 = vfmaq_f32(a3, qe, vldrwq_z_f32(k3, live));
  }
  vst1q_f32(partial, a0);
  vst1q_f32(partial + 4, a1);
  vst1q_f32(partial + 8, a2);
  vst1q_f32(partial + 12, a3);
  const float32x4x4_t t = vld4q_f32(partial);  // t.val[e][key] = partial sum e of key
  return vaddq_f32(vaddq_f32(t.val[0], t.val[1]), vaddq_f32(t.val[2], t.val[3]));
}

// Scores of keys [j0, j0 + n) for one query into s[0, RoundUp(n, 4)): scaled and
// masked as ApplyMask defines it (kMaskedScore, -inf, for a masked key; finite
// scores, however negative, stay); the lanes past n hold kMaskedScore. Returns
// max(m, every score of the tile): -inf while no key is allowed, +inf when a score
// is +inf (ExpTile then makes the row NaN through exp(inf - inf)), or NaN when a
// score the row may attend is NaN: PyTorch's softmax makes that row NaN, and a NaN
// max does here (VMAXNM alone would skip a NaN).
ATTNRT_HELIUM_PER_TILE float ScoreTile(const Row& row, size_t j0, size_t n, float m, float* s,
                                       float* partial) {
  const SdpaParams& p = *row.p;
  const size_t ks = p.k_strides.row;
  const float32x4_t masked = vdupq_n_f32(kMaskedScore);
  float32x4_t tile_max = masked;
  // 0 unless a score is NaN: lanes where s != s take s. (Not poison + s * 0: masked
  // scores are -inf, and -inf * 0 is NaN.)
  float32x4_t poison = vdupq_n_f32(0.0f);
  for (size_t j = 0; j < n; j += kLanes) {
    const size_t left = n - j;
    const mve_pred16_t live = vctp32q(left);  // all lanes unless this is the short last group
    // Missing keys of a short group reuse the last key: readable memory, masked below.
    const float* k0 = row.k + (j0 + j) * ks;
    const float* k1 = left > 1 ? k0 + ks : k0;
    const float* k2 = left > 2 ? k1 + ks : k1;
    const float* k3 = left > 3 ? k2 + ks : k2;
    float32x4_t sc = vmulq_n_f32(Dot4(row.q, k0, k1, k2, k3, p.qk_dim, partial), p.scale);
    switch (row.mask_read) {
      case MaskRead::kNone:
        break;
      case MaskRead::kBool: {  // 4 mask bytes widened to 4 lanes; 0 = may not attend
        const uint32x4_t keep = vldrbq_z_u32(row.mask + j0 + j, live);
        sc = vpselq_f32(sc, masked, vcmpneq_n_u32(keep, 0));
        break;
      }
      case MaskRead::kAdditive: {  // -inf entries (or sums) are kMaskedScore already
        const float* bias = reinterpret_cast<const float*>(row.mask) + j0 + j;
        sc = vaddq_f32(sc, vldrwq_z_f32(bias, live));
        break;
      }
      case MaskRead::kScalar: {
        vst1q_f32(s + j, sc);
        for (size_t t = 0; t < kLanes && t < left; ++t) {
          s[j + t] = ApplyMask(p, row.mask, row.h, row.i, j0 + j + t, s[j + t]);
        }
        sc = vld1q_f32(s + j);
        break;
      }
    }
    if (left < kLanes) sc = vpselq_f32(sc, masked, live);
    vst1q_f32(s + j, sc);
    tile_max = vmaxnmq_f32(tile_max, sc);
    poison = vpselq_f32(poison, sc, vcmpeqq_f32(sc, sc));  // EQ is false for unordered
  }
  return vmaxnmvq_f32(m, tile_max) + SumLanes(poison);
}

// s_j = e^(s_j - m) over the padded tile, in place; returns the sum. Masked keys and
// padding lanes (kMaskedScore, -inf) come out as exactly 0; m is never -inf.
ATTNRT_HELIUM_PER_TILE float ExpTile(float* s, size_t n, float m) {
  float32x4_t sum = vdupq_n_f32(0.0f);
  for (size_t j = 0; j < n; j += kLanes) {
    const float32x4_t e = ExpMve(vsubq_n_f32(vld1q_f32(s + j), m));
    vst1q_f32(s + j, e);
    sum = vaddq_f32(sum, e);
  }
  return SumLanes(sum);
}

// acc[0, 16) = acc * alpha + sum_j p_j v_j[0, 16) over n keys: the 4 accumulator
// vectors stay in registers for the whole tile; each key costs 4 loads and 4
// multiply-adds with p_j as the scalar operand (VFMA Qd, Qn, Rm).
void AccumulateBlock16(const float* pr, size_t n, const float* v, size_t vs, float alpha,
                       float* acc) {
  float32x4_t o0 = vmulq_n_f32(vld1q_f32(acc), alpha);
  float32x4_t o1 = vmulq_n_f32(vld1q_f32(acc + 4), alpha);
  float32x4_t o2 = vmulq_n_f32(vld1q_f32(acc + 8), alpha);
  float32x4_t o3 = vmulq_n_f32(vld1q_f32(acc + 12), alpha);
  for (size_t j = 0; j < n; ++j, v += vs) {
    const float pj = pr[j];
    o0 = vfmaq_n_f32(o0, vld1q_f32(v), pj);
    o1 = vfmaq_n_f32(o1, vld1q_f32(v + 4), pj);
    o2 = vfmaq_n_f32(o2, vld1q_f32(v + 8), pj);
    o3 = vfmaq_n_f32(o3, vld1q_f32(v + 12), pj);
  }
  vst1q_f32(acc, o0);
  vst1q_f32(acc + 4, o1);
  vst1q_f32(acc + 8, o2);
  vst1q_f32(acc + 12, o3);
}

// The same for one vector of min(cols, 4) columns (the Ev tail past the last full block):
// zeroing loads keep the lanes past Ev off the value rows.
void AccumulateVector(const float* pr, size_t n, const float* v, size_t vs, size_t cols,
                      float alpha, float* acc) {
  const mve_pred16_t live = vctp32q(cols);
  float32x4_t o = vmulq_n_f32(vld1q_f32(acc), alpha);
  for (size_t j = 0; j < n; ++j, v += vs) o = vfmaq_n_f32(o, vldrwq_z_f32(v, live), pr[j]);
  vst1q_f32(acc, o);
}

ATTNRT_HELIUM_PER_TILE void AccumulatePV(const float* pr, size_t n, const float* v, size_t vs,
                                         size_t v_dim, float alpha, float* acc) {
  size_t c = 0;
  for (; c + kBlockCols <= v_dim; c += kBlockCols) {
    AccumulateBlock16(pr, n, v + c, vs, alpha, acc + c);
  }
  for (; c < v_dim; c += kLanes) AccumulateVector(pr, n, v + c, vs, v_dim - c, alpha, acc + c);
}

void AttendRow(const SdpaParams& p, size_t b, size_t h, size_t i, MaskRead mask_read,
               float* scratch) {
  const size_t g = h / (p.q_heads / p.kv_heads);
  Row row;
  row.p = &p;
  row.h = h;
  row.i = i;
  row.q = p.q + b * p.q_strides.batch + h * p.q_strides.head + i * p.q_strides.row;
  row.k = p.k + b * p.k_strides.batch + g * p.k_strides.head;
  row.mask = mask_read == MaskRead::kNone ? nullptr : MaskRowBytes(p, b, h, i);
  row.mask_read = mask_read;
  const float* v = p.v + b * p.v_strides.batch + g * p.v_strides.head;
  const size_t vs = p.v_strides.row;
  float* s = scratch + kScoresAt;
  float* partial = scratch + kPartialAt;
  float* acc = scratch + kAccAt;

  const size_t acc_floats = RoundUp(p.v_dim, kBlockCols);
  for (size_t c = 0; c < acc_floats; c += kLanes) vst1q_f32(acc + c, vdupq_n_f32(0.0f));
  float m = kMaskedScore;  // running max: -inf until a key is allowed
  float l = 0.0f;          // running sum of e^(s - m)
  // The row visits exactly the keys the causal rule and the window leave it.
  const size_t key_end = CausalVisibleKeys(p, i);
  for (size_t j0 = VisibleKeyBegin(p, i); j0 < key_end; j0 += kTileKeys) {
    const size_t n = key_end - j0 < kTileKeys ? key_end - j0 : kTileKeys;
    const float m_new = ScoreTile(row, j0, n, m, s, partial);
    // No key allowed so far: nothing to add, and m - m_new would be -inf - -inf.
    if (RowIsDeadMax(m_new)) continue;
    // 0 on the first tile with an allowed key (acc and l are still 0), 1 while the max holds.
    const float alpha = ExpMveScalar(m - m_new);
    l = l * alpha + ExpTile(s, n, m_new);
    m = m_new;
    AccumulatePV(s, n, v + j0 * vs, vs, p.v_dim, alpha, acc);
  }

  // A row that never saw an allowed key has l == 0: its output is zeros, not NaN.
  // A sink joins the denominator only (OutputScale).
  const float inv = OutputScale(m, l, SinkOf(p, h));
  float* out = p.out + b * p.out_strides.batch + h * p.out_strides.head + i * p.out_strides.row;
  for (size_t c = 0; c < p.v_dim; c += kLanes) {
    vstrwq_p_f32(out + c, vmulq_n_f32(vld1q_f32(acc + c), inv), vctp32q(p.v_dim - c));
  }
}

void Run(const SdpaParams& p, size_t begin, size_t end, float* scratch, float*) {
  const MaskRead mask_read = MaskReadOf(p);
  for (size_t item = begin; item < end; ++item) {
    const QueryBlock qb = QueryBlockAt(p, kItemRows, item);
    for (size_t r = 0; r < qb.rows; ++r) {
      AttendRow(p, qb.batch, qb.head, qb.first_row + r, mask_read, scratch);
    }
  }
}

const char* Isa() { return "MVE"; }
bool Available() { return true; }  // compiled only for cores that have MVE float

}  // namespace
}  // namespace helium

// f32 K/V only (reads_typed_kv false): a typed KV cache falls back to the Highway kernels.
extern const SdpaKernel kSdpaHeliumFlash = MakeSdpaKernel(
    {"helium-flash", SdpaAlgorithm::kFlash, SdpaFamily::kHelium, /*returns_weights=*/false,
     /*reads_typed_kv=*/false},
    {helium::Isa, helium::Available, helium::ScratchFloats, helium::WorkItems, helium::Run});

}  // namespace attnrt

#endif  // ATTNRT_HELIUM
