// Linear (y = x W^T + bias, W in torch.nn.Linear's N x K layout) with Arm MVE (Helium)
// intrinsics, for the Cortex-M55 (128-bit vectors: 4 float lanes, 8 vector registers).
//
// Work item = a group of 4 output columns (4 weight rows) over all rows of x. For each
// row of x the 4 weight rows are summed against it with vectors along k (one x load per
// 4 FMAs, as helium-flash's Dot4). f32, bf16 and q8 rows are read in place in their
// stored type and widened in registers by widening loads:
//   f32   VLDRW;
//   bf16  VLDRH.U32, VSHL #16;
//   q8    VLDRB.S32 (sign-extending), VCVT.F32.S32.
// f16 rows are widened once per group into scratch (4 x K floats; f16_mve.h: integer
// steps, since the toolchain misassembles VCVTB) and summed as f32: the exact widening
// needs too many registers to sit inside the 4-row loop (it spilled, 8x f32's work).
// MVE has no float add-across: the 4 accumulators are stored and read back with VLD4
// (transposing), so 3 vector adds give the 4 sums as one vector whose lane i is output
// column n + i; bias is added as a vector and the result stored with VCTP predication.
// q8: per block of 32 weights the same transposed sum gives the 4 rows' block sums, one
// vector of their 4 scales (gathered and widened once per group into scratch, f16_mve.h)
// scales them, and one FMA adds them to the result vector: the scale is applied to the block's partial sum, as the
// Highway code does, and the register tile (4 partial sums, x, w, result) fits in the 8
// vector registers.
// Tails (K % 4, a short last q8 block) use zeroing VCTP loads (lanes past K read no
// memory and add 0); a short last group (N % 4) repeats its last weight row and stores
// only its real columns.
//
// Summation order of every output element: lane e of its accumulator sums k = e mod 4 in
// order (q8: within each block), then (l0 + l1) + (l2 + l3), then (q8) block by block;
// bias last. The same for M = 1 and M > 1. It depends on K and the type only, never on the group the column falls in or
// on how items are split, so any split of the items gives bit-identical results.
// No allocation, no exceptions, no printing. Compiled to nothing without MVE float.
#include "kernels/helium/linear_helium.h"

#if ATTNRT_HELIUM
#include <arm_mve.h>

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/weight_q8.h"
#include "attnrt/kernels/linear_kernel.h"
#include "kernels/helium/f16_mve.h"

namespace attnrt {
namespace helium {
namespace {

constexpr size_t kLanes = 4;
constexpr size_t kGroup = 4;      // output columns per work item (one result vector)
constexpr size_t kPartial = 16;   // scratch floats: the 4 accumulators for VLD4

#define ATTNRT_HELIUM_NOINLINE __attribute__((noinline))

// Weight loads: 4 consecutive weights of a row as 4 f32 lanes; LoadZ reads only the
// lanes of `live` and zeroes the rest.
struct F32W {
  using T = float;
  static float32x4_t Load(const float* w) { return vld1q_f32(w); }
  static float32x4_t LoadZ(const float* w, mve_pred16_t live) { return vldrwq_z_f32(w, live); }
};
struct BF16W {
  using T = uint16_t;
  static float32x4_t Widen(uint32x4_t h) { return vreinterpretq_f32_u32(vshlq_n_u32(h, 16)); }
  static float32x4_t Load(const uint16_t* w) { return Widen(vldrhq_u32(w)); }
  static float32x4_t LoadZ(const uint16_t* w, mve_pred16_t live) {
    return Widen(vldrhq_z_u32(w, live));
  }
};
struct Q8W {
  using T = int8_t;
  static float32x4_t Load(const int8_t* w) { return vcvtq_f32_s32(vldrbq_s32(w)); }
  static float32x4_t LoadZ(const int8_t* w, mve_pred16_t live) {
    return vcvtq_f32_s32(vldrbq_z_s32(w, live));
  }
};

// Lane i = the sum of the 4 lanes of a_i: a transposing reload (VLD4) and 3 adds.
inline float32x4_t SumEach(float32x4_t a0, float32x4_t a1, float32x4_t a2, float32x4_t a3,
                           float* partial) {
  vst1q_f32(partial, a0);
  vst1q_f32(partial + 4, a1);
  vst1q_f32(partial + 8, a2);
  vst1q_f32(partial + 12, a3);
  const float32x4x4_t t = vld4q_f32(partial);  // t.val[e][i] = lane e of a_i
  return vaddq_f32(vaddq_f32(t.val[0], t.val[1]), vaddq_f32(t.val[2], t.val[3]));
}

// a_i += sum over k < n of x[k] * w_i[k], for 4 weight rows: whole vectors, then the
// lanes left with zeroing loads (the lanes past n multiply 0 by 0). The pointers step, so
// every load is a post-incrementing one, and run on past the whole vectors. The loop stays
// rolled (unroll 1, as Q8Block's own loop was: its 8 steps would otherwise be peeled).
template <class W>
__attribute__((always_inline)) inline void Fma4Rows(const float*& x, const typename W::T*& w0,
                                                    const typename W::T*& w1,
                                                    const typename W::T*& w2,
                                                    const typename W::T*& w3, size_t n,
                                                    float32x4_t& a0, float32x4_t& a1,
                                                    float32x4_t& a2, float32x4_t& a3) {
#pragma GCC unroll 1
  for (size_t v = n / kLanes; v > 0; --v) {
    const float32x4_t xv = vld1q_f32(x);
    a0 = vfmaq_f32(a0, xv, W::Load(w0));
    a1 = vfmaq_f32(a1, xv, W::Load(w1));
    a2 = vfmaq_f32(a2, xv, W::Load(w2));
    a3 = vfmaq_f32(a3, xv, W::Load(w3));
    x += kLanes, w0 += kLanes, w1 += kLanes, w2 += kLanes, w3 += kLanes;
  }
  if (n % kLanes != 0) {
    const mve_pred16_t live = vctp32q(n % kLanes);
    const float32x4_t xv = vldrwq_z_f32(x, live);
    a0 = vfmaq_f32(a0, xv, W::LoadZ(w0, live));
    a1 = vfmaq_f32(a1, xv, W::LoadZ(w1, live));
    a2 = vfmaq_f32(a2, xv, W::LoadZ(w2, live));
    a3 = vfmaq_f32(a3, xv, W::LoadZ(w3, live));
  }
}

// Lane i of the result: sum over k < n of x[k] * w_i[k], for 4 weight rows.
template <class W>
__attribute__((always_inline)) inline float32x4_t Sum4(const float* x, const typename W::T* w0,
                                                       const typename W::T* w1,
                                                       const typename W::T* w2,
                                                       const typename W::T* w3, size_t n,
                                                       float* partial) {
  float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0;
  Fma4Rows<W>(x, w0, w1, w2, w3, n, a0, a1, a2, a3);
  return SumEach(a0, a1, a2, a3, partial);
}

// One row of x against 4 weight rows (f32, f16, bf16). Out of line, as is Dot4Q8: inlined
// into the column loops, GCC 12 runs out of core registers and reloads the row pointers
// from the stack on every iteration (as helium-flash's README notes for its tile steps).
template <class W>
ATTNRT_HELIUM_NOINLINE float32x4_t Dot4(const float* x, const typename W::T* w0,
                                         const typename W::T* w1, const typename W::T* w2,
                                         const typename W::T* w3, size_t K, float* partial) {
  return Sum4<W>(x, w0, w1, w2, w3, K, partial);
}

// One block of len <= kQ8Block weights of 4 q8 rows: acc += (their 4 sums) * (their 4
// scales, scale4[0..3]). The pointers run on to the next block (post-incrementing loads throughout).
__attribute__((always_inline)) inline float32x4_t Q8Block(
    float32x4_t acc, const float*& x, const int8_t*& q0, const int8_t*& q1, const int8_t*& q2,
    const int8_t*& q3, const float* scale4, size_t len, float* partial) {
  float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0;
  Fma4Rows<Q8W>(x, q0, q1, q2, q3, len, a0, a1, a2, a3);
  return vfmaq_f32(acc, SumEach(a0, a1, a2, a3, partial), vld1q_f32(scale4));
}


// q8: lane i = sum over blocks b of (sum_{k in b} x[k] * q_i[k]) * scale_i[b], with
// scale4[4 b + i] = scale_i[b] as f32 (WidenQ8Scales). Full blocks have a constant length
// (8 steps); a short last block, if any, goes through the same code with its length.
ATTNRT_HELIUM_NOINLINE float32x4_t Dot4Q8(const float* x, const int8_t* q0, const int8_t* q1,
                                           const int8_t* q2, const int8_t* q3,
                                           const float* scale4, size_t K, float* partial) {
  float32x4_t acc = vdupq_n_f32(0.0f);
#pragma GCC unroll 1
  for (size_t b = K / kQ8Block; b > 0; --b, scale4 += kGroup) {
    acc = Q8Block(acc, x, q0, q1, q2, q3, scale4, kQ8Block, partial);
  }
  if (K % kQ8Block != 0) {
    acc = Q8Block(acc, x, q0, q1, q2, q3, scale4, K % kQ8Block, partial);
  }
  return acc;
}

// The f16 scales of 4 rows widened once per group: out[4 b + i] = scale of block b of row
// i. `s`: row 0's scales; `offsets`: halfwords from a scale of row 0 to row i's. Kept out
// of Dot4Q8: the widening's temporaries and constants there made its inner loop spill.
ATTNRT_HELIUM_NOINLINE void WidenQ8Scales(const uint16_t* s, uint32x4_t offsets, size_t blocks,
                                          float* out) {
  const int16_t* h = reinterpret_cast<const int16_t*>(s);
  for (size_t b = 0; b < blocks; ++b, out += kGroup) {
    vst1q_f32(out, F16ToF32Mve(vldrhq_gather_shifted_offset_s32(h + b, offsets)));
  }
}

// Columns [n0, n1) of y for every row of x; n0 is a multiple of kGroup. `prepare(first
// row, count)` runs once per group; `group(x, first row, count, partial)` returns the 4
// sums of one row of x against the group's rows.
template <class Group, class Prepare>
inline void Columns(const LinearParams& p, size_t n0, size_t n1, float* partial,
                    const Group& group, const Prepare& prepare) {
  for (size_t n = n0; n < n1; n += kGroup) {
    const size_t cols = n1 - n < kGroup ? n1 - n : kGroup;
    prepare(n, cols);
    const mve_pred16_t live = vctp32q(cols);
    const float32x4_t bias =
        p.bias != nullptr ? vldrwq_z_f32(p.bias + n, live) : vdupq_n_f32(0.0f);
    const float* x = p.x;
    float* y = p.y + n;
    for (size_t m = 0; m < p.rows; ++m, x += p.x_stride, y += p.y_stride) {
      vstrwq_p_f32(y, vaddq_f32(group(x, n, cols, partial), bias), live);
    }
  }
}

template <class W>
ATTNRT_HELIUM_NOINLINE void ColumnsOf(const LinearParams& p, size_t n0, size_t n1,
                                         float* partial) {
  using T = typename W::T;
  const size_t K = p.in;
  const T* w = static_cast<const T*>(p.w);
  Columns(p, n0, n1, partial, [&](const float* x, size_t n, size_t cols, float* part) {
    const T* w0 = w + n * K;
    const T* w1 = cols > 1 ? w0 + K : w0;
    const T* w2 = cols > 2 ? w1 + K : w1;
    const T* w3 = cols > 3 ? w2 + K : w2;
    return Dot4<W>(x, w0, w1, w2, w3, K, part);
  }, [](size_t, size_t) {});
}

ATTNRT_HELIUM_NOINLINE void ColumnsQ8(const LinearParams& p, size_t n0, size_t n1,
                                      float* scratch) {
  const size_t K = p.in;
  const size_t blocks = Q8BlocksPerRow(K);
  const int8_t* q = static_cast<const int8_t*>(p.w);
  const uint16_t* scales = LinearScalePlane(p);
  float* scale4 = scratch + kPartial;
  Columns(p, n0, n1, scratch, [&](const float* x, size_t n, size_t cols, float* part) {
    const int8_t* q0 = q + n * K;
    const int8_t* q1 = cols > 1 ? q0 + K : q0;
    const int8_t* q2 = cols > 2 ? q1 + K : q1;
    const int8_t* q3 = cols > 3 ? q2 + K : q2;
    return Dot4Q8(x, q0, q1, q2, q3, scale4, K, part);
  }, [&](size_t n, size_t cols) {
    // A short group repeats its last row, as the value pointers do.
    const uint32_t b = static_cast<uint32_t>(blocks);
    const uint32_t d1 = cols > 1 ? 1 : 0, d2 = cols > 2 ? 2 : d1, d3 = cols > 3 ? 3 : d2;
    const uint32_t offsets[4] = {0, d1 * b, d2 * b, d3 * b};
    WidenQ8Scales(scales + n * blocks, vld1q_u32(offsets), blocks, scale4);
  });
}

// One f16 row widened to f32 (f16_mve.h).
ATTNRT_HELIUM_NOINLINE void WidenF16Row(const uint16_t* in, size_t n, float* out) {
  const int16_t* h = reinterpret_cast<const int16_t*>(in);
  for (size_t v = n / kLanes; v > 0; --v, h += kLanes, out += kLanes) {
    vst1q_f32(out, F16ToF32Mve(vldrhq_s32(h)));
  }
  if (n % kLanes != 0) {
    const mve_pred16_t live = vctp32q(n % kLanes);
    vstrwq_p_f32(out, F16ToF32Mve(vldrhq_z_s32(h, live)), live);
  }
}

// f16: the exact widening takes ten vector instructions and three temporaries per 4
// weights; inside Dot4's 4-row loop that spilled to the stack on every step (8 vector
// registers), 8x the instructions of f32. So each group's rows are widened once into
// scratch (K floats per row) and summed by the f32 Dot4: the same order as f32 over the
// widened values, for every M, and M > 1 widens once per group, not once per row of x.
ATTNRT_HELIUM_NOINLINE void ColumnsF16(const LinearParams& p, size_t n0, size_t n1,
                                       float* scratch) {
  const size_t K = p.in;
  const uint16_t* w = static_cast<const uint16_t*>(p.w);
  float* stage = scratch + kPartial;
  Columns(p, n0, n1, scratch, [&](const float* x, size_t, size_t cols, float* part) {
    const float* w1 = cols > 1 ? stage + K : stage;
    const float* w2 = cols > 2 ? stage + 2 * K : w1;
    const float* w3 = cols > 3 ? stage + 3 * K : w2;
    return Dot4<F32W>(x, stage, w1, w2, w3, K, part);
  }, [&](size_t n, size_t cols) {
    for (size_t i = 0; i < cols; ++i) WidenF16Row(w + (n + i) * K, K, stage + i * K);
  });
}

}  // namespace

// Scratch: the 16 floats the transposing reload goes through; f16 adds 4 widened rows,
// q8 the 4 rows' scales as f32.
size_t LinearScratchFloats(const LinearParams& p) {
  if (p.w_type == WeightType::kF16) return kPartial + kGroup * p.in;
  if (p.w_type == WeightType::kQ8) return kPartial + kGroup * Q8BlocksPerRow(p.in);
  return kPartial;
}

size_t LinearWorkItems(const LinearParams& p) {
  // A code outside WeightType has no work: callers check types where they load them.
  if (p.rows == 0 || WeightTypeName(p.w_type) == nullptr) return 0;
  return (p.out + kGroup - 1) / kGroup;
}

void LinearRun(const LinearParams& p, size_t begin, size_t end, float* scratch) {
  const size_t items = helium::LinearWorkItems(p);
  if (end > items) end = items;
  if (begin >= end) return;
  const size_t n0 = begin * kGroup;
  const size_t n1 = end * kGroup < p.out ? end * kGroup : p.out;
  switch (p.w_type) {
    case WeightType::kF32: return ColumnsOf<F32W>(p, n0, n1, scratch);
    case WeightType::kF16: return ColumnsF16(p, n0, n1, scratch);
    case WeightType::kBF16: return ColumnsOf<BF16W>(p, n0, n1, scratch);
    case WeightType::kQ8: return ColumnsQ8(p, n0, n1, scratch);
  }
}

const char* LinearIsa() { return "MVE"; }

}  // namespace helium

namespace {
// Any other type falls to the next-ranked kernel (Highway).
bool HeliumSupports(WeightType t) { return helium::ReadsWeightType(t); }
}  // namespace

// linear_variants.inc. Rank 2: above Highway's f32-activation kernel, whose code on an M55
// is SCALAR; below its integer kernel (rank 3), which `auto` runs for q8 as on every other
// target, so the board's q8 tokens are the host's; on the M55 that kernel's Helium path
// (VMLADAV, kernels/hwy/linear_int8.cc) takes 0.59 M instructions per LM token against this
// kernel's 0.95 M. A q8 call that asks for f32 activations still runs here.
extern const LinearKernel kLinearHelium = {
    "helium", 2, HeliumSupports, helium::LinearScratchFloats, helium::LinearWorkItems,
    helium::LinearRun, helium::LinearIsa, false, nullptr, nullptr, nullptr, nullptr};
}  // namespace attnrt

#endif  // ATTNRT_HELIUM
