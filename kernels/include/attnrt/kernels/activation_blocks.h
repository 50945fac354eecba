// Activations quantized to 8-bit blocks, the input side of the integer Linear kernels
// (kernels/hwy/linear_int8.cc): ggml's Q8_0 idea with an f32 scale. A row of K floats is
// cut into blocks of kActivationBlock along k (the last one zero-padded to a whole block);
// block b holds int8 q (-127..127) and an f32 scale d[b], standing for d[b] * q.
//
// The rule, which every target's kernel reproduces bit for bit (tests compute their float64
// reference from this function's output):
//   amax = max |x| over the block; d = amax / 127 (f32 division);
//   q = round_half_even(x * (127 / amax)), the product rounded to f32 first;
//   a block whose amax is below kActivationTiny (2^-100, where 127 / amax heads for f32's
//   overflow and d for its subnormals) is zeros with d = 0: an absolute error below 2^-100
//   per value, far below any f32 output's rounding that such a block can matter to;
//   a block holding a non-finite value gets d = NaN and q = 0, so every output that reads it
//   is NaN (never a finite number made from a NaN or an infinity that saturated to 127).
// |x * 127 / amax| <= 127 * (1 + 2^-23) rounds to at most 127, so q never reaches -128 and a
// pair of products a * w with |w| <= 127 fits int16 (x86's maddubs does not saturate).
// Error: |d * q - x| <= d / 2 = amax / 254 (plus f32 rounding of the scale factors).
//
// Header-only and allocation-free.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace attnrt {

constexpr size_t kActivationBlock = 32;
constexpr float kActivationTiny = 0x1p-100f;

constexpr size_t ActivationBlocks(size_t K) {
  return K / kActivationBlock + (K % kActivationBlock != 0 ? 1 : 0);
}

// q[ActivationBlocks(K) * kActivationBlock] and d[ActivationBlocks(K)] from x[K].
// std::nearbyint in the default rounding mode rounds half to even; the product is a
// named f32 first, so no compiler may fuse it into the rounding.
inline void QuantizeActivationRow(const float* x, size_t K, int8_t* q, float* d) {
  for (size_t b = 0; b < ActivationBlocks(K); ++b) {
    const size_t k0 = b * kActivationBlock;
    const size_t n = K - k0 < kActivationBlock ? K - k0 : kActivationBlock;
    float amax = 0.0f;
    bool finite = true;
    for (size_t i = 0; i < n; ++i) {
      finite = finite && std::isfinite(x[k0 + i]);
      amax = std::fabs(x[k0 + i]) > amax ? std::fabs(x[k0 + i]) : amax;
    }
    for (size_t i = 0; i < kActivationBlock; ++i) q[k0 + i] = 0;
    if (!finite) {
      d[b] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    if (amax < kActivationTiny) {
      d[b] = 0.0f;
      continue;
    }
    d[b] = amax / 127.0f;
    const float inv = 127.0f / amax;
    for (size_t i = 0; i < n; ++i) {
      const float t = x[k0 + i] * inv;
      q[k0 + i] = static_cast<int8_t>(std::nearbyint(t));
    }
  }
}

}  // namespace attnrt
