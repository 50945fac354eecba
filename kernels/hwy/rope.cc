// hwy RoPE: rotates the pairs of every query/key head by angles read from a table.
//
// Per pair: 2 loads and 2 stores of x, 2 table loads, 4 multiplies (two fused).
// A decode step rotates (heads_q + heads_kv) x head_dim floats, a few KiB, so this
// is never the bottleneck; the point is doing no sin/cos per step.
//
// Half style: the two halves of a head and the cos/sin halves of a table row are
// contiguous, so one vector holds N pairs and the rotation is plain lane math.
// Interleaved style: one vector of x holds N/2 pairs (a0 b0 a1 b1 ...). With c and
// s each duplicated into lane pairs (c0 c0 c1 c1 ...) and the pairs swapped
// (b0 a0 b1 a1 ...), the result is x * c + swapped * (-s0 s0 -s1 s1 ...). No lane
// crosses a pair, so neither shuffle crosses a 128-bit block; the duplication
// widens u32 -> u64 (which does cross blocks, correctly, on every target).
// Each output is one product rounded and then one fused multiply-add, in the same
// order in both styles, so the two styles give bit-identical pairs. The SCALAR
// target has no lane pairs: it runs the interleaved style one pair at a time
// through the same rotation. Partial vectors go through one-vector stack buffers,
// so the tail rounds as the body does and nothing past a head is touched.
// Float-only in the per-target code (Cortex-M has no FP64 unit); RopeTable runs once
// at load time and uses double for the angles.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/rope.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/rope.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// (a, b) -> (a c - b s, a s + b c).
HWY_INLINE void Rotate(VF a, VF b, VF c, VF s, VF& rotated_a, VF& rotated_b) {
  rotated_a = hn::NegMulAdd(b, s, hn::Mul(a, c));
  rotated_b = hn::MulAdd(a, s, hn::Mul(b, c));
}

// Half style: pairs (lo[i], hi[i]) for i < half, lo = head, hi = head + half.
void RotateHalves(float* HWY_RESTRICT head, size_t half, const float* HWY_RESTRICT cos,
                  const float* HWY_RESTRICT sin) {
  const DF d;
  const size_t N = hn::Lanes(d);
  float* HWY_RESTRICT lo = head;
  float* HWY_RESTRICT hi = head + half;
  VF ra, rb;
  size_t i = 0;
  for (; i + N <= half; i += N) {
    Rotate(hn::LoadU(d, lo + i), hn::LoadU(d, hi + i), hn::LoadU(d, cos + i), hn::LoadU(d, sin + i),
           ra, rb);
    hn::StoreU(ra, d, lo + i);
    hn::StoreU(rb, d, hi + i);
  }
  if (i == half) return;
  HWY_ALIGN float a[hn::MaxLanes(DF())] = {};
  HWY_ALIGN float b[hn::MaxLanes(DF())] = {};
  HWY_ALIGN float c[hn::MaxLanes(DF())] = {};
  HWY_ALIGN float s[hn::MaxLanes(DF())] = {};
  const size_t rest = half - i;
  for (size_t j = 0; j < rest; ++j) {
    a[j] = lo[i + j];
    b[j] = hi[i + j];
    c[j] = cos[i + j];
    s[j] = sin[i + j];
  }
  Rotate(hn::Load(d, a), hn::Load(d, b), hn::Load(d, c), hn::Load(d, s), ra, rb);
  hn::Store(ra, d, a);
  hn::Store(rb, d, b);
  for (size_t j = 0; j < rest; ++j) {
    lo[i + j] = a[j];
    hi[i + j] = b[j];
  }
}

#if HWY_TARGET == HWY_SCALAR

// Interleaved style, one pair at a time.
void RotatePairs(float* HWY_RESTRICT head, size_t half, const float* HWY_RESTRICT cos,
                 const float* HWY_RESTRICT sin) {
  const DF d;
  VF ra, rb;
  for (size_t i = 0; i < half; ++i) {
    Rotate(hn::Set(d, head[2 * i]), hn::Set(d, head[2 * i + 1]), hn::Set(d, cos[i]),
           hn::Set(d, sin[i]), ra, rb);
    head[2 * i] = hn::GetLane(ra);
    head[2 * i + 1] = hn::GetLane(rb);
  }
}

#else

// The N/2 floats at p, each in two adjacent lanes: p0 p0 p1 p1 ... Reads N/2 floats.
HWY_INLINE VF LoadDuplicated(const float* HWY_RESTRICT p) {
  const DF d;
  const hn::Repartition<uint64_t, DF> d64;
  const hn::Rebind<uint32_t, decltype(d64)> d32;  // N/2 lanes
  const hn::Rebind<float, decltype(d64)> dh;      // N/2 lanes
  const auto wide = hn::PromoteTo(d64, hn::BitCast(d32, hn::LoadU(dh, p)));
  return hn::BitCast(d, hn::Or(wide, hn::ShiftLeft<32>(wide)));
}

// x = (a0 b0 a1 b1 ...), c and s duplicated: the rotation of Rotate, lane for lane.
HWY_INLINE VF RotateInterleaved(DF d, VF x, VF c, VF s) {
  const VF swapped = hn::Reverse2(d, x);           // b0 a0 b1 a1 ...
  const VF signed_s = hn::OddEven(s, hn::Neg(s));  // -s0 s0 -s1 s1 ...
  return hn::MulAdd(swapped, signed_s, hn::Mul(x, c));
}

// Interleaved style: pairs (head[2i], head[2i + 1]) for i < half.
void RotatePairs(float* HWY_RESTRICT head, size_t half, const float* HWY_RESTRICT cos,
                 const float* HWY_RESTRICT sin) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const size_t pairs = N / 2;  // per vector
  size_t i = 0;
  for (; i + pairs <= half; i += pairs) {
    const VF x = hn::LoadU(d, head + 2 * i);
    hn::StoreU(RotateInterleaved(d, x, LoadDuplicated(cos + i), LoadDuplicated(sin + i)), d,
               head + 2 * i);
  }
  if (i == half) return;
  HWY_ALIGN float x[hn::MaxLanes(DF())] = {};
  HWY_ALIGN float c[hn::MaxLanes(DF())] = {};
  HWY_ALIGN float s[hn::MaxLanes(DF())] = {};
  const size_t rest = half - i;
  for (size_t j = 0; j < rest; ++j) {
    x[2 * j] = head[2 * (i + j)];
    x[2 * j + 1] = head[2 * (i + j) + 1];
    c[j] = cos[i + j];
    s[j] = sin[i + j];
  }
  hn::Store(RotateInterleaved(d, hn::Load(d, x), LoadDuplicated(c), LoadDuplicated(s)), d, x);
  for (size_t j = 0; j < 2 * rest; ++j) head[2 * i + j] = x[j];
}

#endif  // HWY_TARGET == HWY_SCALAR

void RopeRows(float* x, size_t x_stride, size_t rows, size_t heads, size_t head_dim,
              size_t first_position, const float* table, RopeStyle style) {
  if (head_dim % 2 != 0) return;  // no table exists for it (RopeTableFloats is 0)
  const size_t half = head_dim / 2;
  for (size_t r = 0; r < rows; ++r) {
    const float* cos = table + (first_position + r) * head_dim;
    const float* sin = cos + half;
    float* row = x + r * x_stride;
    for (size_t h = 0; h < heads; ++h) {
      if (style == RopeStyle::kInterleaved) {
        RotatePairs(row + h * head_dim, half, cos, sin);
      } else {
        RotateHalves(row + h * head_dim, half, cos, sin);
      }
    }
  }
}

ATTNRT_HWY_END

#if HWY_ONCE
#include <cmath>

#include "kernels/hwy/nn_hwy.h"

namespace attnrt {

HWY_EXPORT(RopeRows);

size_t RopeTableFloats(size_t positions, size_t head_dim) {
  if (head_dim % 2 != 0) return 0;
  if (head_dim != 0 && positions > SIZE_MAX / head_dim) return 0;
  return positions * head_dim;
}

double RopeFrequency(size_t i, size_t head_dim, double theta, const RopeScaling& scaling) {
  const double f = std::pow(theta, -double(2 * i) / double(head_dim));
  if (scaling.kind == RopeScalingKind::kLinear) return f / scaling.factor;
  if (scaling.kind != RopeScalingKind::kLlama3) return f;
  const double kPi = 3.14159265358979323846;
  const double wavelength = 2.0 * kPi / f;
  const double short_bound = scaling.original_max_positions / scaling.high_freq_factor;
  const double long_bound = scaling.original_max_positions / scaling.low_freq_factor;
  if (wavelength < short_bound) return f;
  if (wavelength > long_bound) return f / scaling.factor;
  // high_freq_factor > low_freq_factor (the config reader checks), so no division by 0.
  const double smooth = (scaling.original_max_positions / wavelength - scaling.low_freq_factor) /
                        (scaling.high_freq_factor - scaling.low_freq_factor);
  return (1.0 - smooth) * f / scaling.factor + smooth * f;
}

// Column by column, so pow runs head_dim / 2 times, not once per position.
void RopeTable(size_t positions, size_t head_dim, double theta, float* table,
               const RopeScaling& scaling) {
  if (RopeTableFloats(positions, head_dim) == 0) return;
  const size_t half = head_dim / 2;
  for (size_t i = 0; i < half; ++i) {
    const double frequency = RopeFrequency(i, head_dim, theta, scaling);
    for (size_t p = 0; p < positions; ++p) {
      const double angle = double(p) * frequency;
      table[p * head_dim + i] = static_cast<float>(std::cos(angle));
      table[p * head_dim + half + i] = static_cast<float>(std::sin(angle));
    }
  }
}

void HwyRopeRows(float* x, size_t x_stride, size_t rows, size_t heads, size_t head_dim,
                 size_t first_position, const float* table, RopeStyle style) {
  HWY_DYNAMIC_DISPATCH(RopeRows)(x, x_stride, rows, heads, head_dim, first_position, table, style);
}

}  // namespace attnrt
#endif  // HWY_ONCE
