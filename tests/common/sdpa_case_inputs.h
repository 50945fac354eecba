// The rules that turn an SdpaCase (sdpa_case.h) into input tensors, shared by the
// host tester and the firmware images so a field means the same on both: the tensor
// shapes, which mask rows are dead and what a kept or masked entry holds, the ALiBi
// slopes and sinks, the extreme inputs, and where the bad values go. The random draws
// come from the caller (each harness keeps its own generator), and every buffer is
// the caller's: no heap, float arithmetic only.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <limits>

#include "attnrt/runtime/tensor_shape.h"
#include "common/sdpa_case.h"

namespace attnrt::testing {

inline TensorShape QueryShape(const SdpaCase& c) { return {4, {c.batch, c.q_heads, c.L, c.E}}; }
inline TensorShape KeyShape(const SdpaCase& c) { return {4, {c.batch, c.kv_heads, c.S, c.E}}; }
inline TensorShape ValueShape(const SdpaCase& c) { return {4, {c.batch, c.kv_heads, c.S, c.Ev}}; }

inline TensorShape MaskTensorShape(const SdpaCase& c) {
  switch (c.mask_shape) {
    case MaskShape::kLS: return {2, {c.L, c.S, 0, 0}};
    case MaskShape::kBHLS: return {4, {c.batch, c.q_heads, c.L, c.S}};
    case MaskShape::kB1LS: return {4, {c.batch, 1, c.L, c.S}};
    case MaskShape::kB11S: return {4, {c.batch, 1, 1, c.S}};
    case MaskShape::kL1: return {2, {c.L, 1, 0, 0}};
  }
  return {};
}

inline size_t ElementCount(const TensorShape& s) {
  size_t n = 1;
  for (size_t i = 0; i < s.rank; ++i) n *= s.dims[i];
  return n;
}

// Fills the `count` entries of the case's mask (flat, in MaskTensorShape's layout),
// both forms at once (either pointer may be null): a row of the mask (its last
// dimension) is dead when dead_every says so; otherwise each entry is kept with
// keep_probability, and a kept float entry is a bias in [-2, 2) (-FLT_MAX for
// kLowestMask), a masked one -inf. `unit()` returns a draw in [0, 1).
template <class UnitDraw>
void FillMask(const SdpaCase& c, size_t count, UnitDraw&& unit, float* mask_f, uint8_t* mask_b) {
  const size_t row_length = MaskTensorShape(c).FromRight(0);
  for (size_t i = 0; i < count; ++i) {
    const size_t row = i / row_length;
    const bool dead = c.dead_every != 0 && row % c.dead_every == c.dead_every - 1;
    const bool keep = !dead && unit() < c.keep_probability;
    const float bias = c.extreme == ExtremeKind::kLowestMask ? std::numeric_limits<float>::lowest()
                                                             : unit() * 4.0f - 2.0f;
    if (mask_b != nullptr) mask_b[i] = keep ? 1 : 0;
    if (mask_f != nullptr) mask_f[i] = keep ? bias : -std::numeric_limits<float>::infinity();
  }
}

// 2^-x for x >= 0 with float arithmetic only (the boards have no FP64 pow): whole
// halvings, then e^(-f ln 2) for the fraction f by its Taylor series (error < 1e-9).
inline float NegativePowerOfTwo(float x) {
  float whole = 1.0f;
  for (; x >= 1.0f; x -= 1.0f) whole *= 0.5f;
  const float y = x * 0.69314718f;
  float term = 1.0f, sum = 1.0f;
  for (int k = 1; k <= 10; ++k) sum += (term *= -y / static_cast<float>(k));
  return whole * sum;
}

// The ALiBi slope of query head h: alibi_scale * 2^(-8 (h + 1) / Hq).
inline float AlibiSlope(const SdpaCase& c, size_t h) {
  return c.alibi_scale * NegativePowerOfTwo(8.0f * static_cast<float>(h + 1) /
                                            static_cast<float>(c.q_heads));
}

// A sink logit from a unit random draw (mean 0, variance 1).
inline float SinkLogit(const SdpaCase& c, float unit_draw) {
  return unit_draw * c.sink_magnitude + c.sink_offset;
}

// kHugeNegative's query and key elements from draws u in [0, 1).
inline float HugeNegativeQuery(float u) { return 1e31f * (0.5f + u); }
inline float HugeNegativeKey(float u) { return -0.5f - u; }

// A harness's filled inputs (flat, in the shapes above) for WriteBadValues; either
// mask pointer may be null.
struct CaseBuffers {
  float* q;
  size_t q_count;
  float* k;
  size_t k_count;
  float* v;
  size_t v_count;
  float* mask_f;
  uint8_t* mask_b;
  size_t mask_count;
};

// Writes the case's bad values over the filled inputs: the nonfinite_keys and
// nonfinite_queries patterns, then each Poison. Returns false (a case bug, nothing
// for a kernel to answer) for a poison outside its tensor or too many of them.
inline bool WriteBadValues(const SdpaCase& c, const CaseBuffers& b) {
  const float inf = std::numeric_limits<float>::infinity();
  const float bad[3] = {inf, -inf, std::numeric_limits<float>::quiet_NaN()};
  for (size_t row = 3, n = 0; c.nonfinite_keys && c.E > 0 && row < b.k_count / c.E; row += 4) {
    b.k[row * c.E] = bad[n++ % 3];
  }
  for (size_t row = 2, n = 0; c.nonfinite_queries && c.E > 0 && row < b.q_count / c.E; row += 3) {
    b.q[row * c.E] = bad[n++ % 3];
  }
  if (c.poison_count > kMaxBadValues) return false;
  for (size_t i = 0; i < c.poison_count; ++i) {
    const BadValue& p = c.poison[i];
    float* data = p.tensor == 'q' ? b.q : p.tensor == 'k' ? b.k : p.tensor == 'v' ? b.v : nullptr;
    const size_t count = p.tensor == 'q'   ? b.q_count
                         : p.tensor == 'k' ? b.k_count
                         : p.tensor == 'v' ? b.v_count
                         : p.tensor == 'm' ? b.mask_count
                                           : 0;
    if (p.index >= count) return false;
    if (data != nullptr) data[p.index] = p.value;
    if (p.tensor == 'm' && b.mask_f != nullptr) b.mask_f[p.index] = p.value;
    if (p.tensor == 'm' && b.mask_b != nullptr) b.mask_b[p.index] = p.value != 0.0f ? 1 : 0;
  }
  return true;
}

}  // namespace attnrt::testing
