// q4_0 weights for the hwy Linear kernel (weight_types.inc; GGUF's layout, weight_q4_0.h):
// the codec of linear_weights-inl.h's interface, for the exact path (f32 activations,
// LinearActivations::kF32; `auto` runs q4_0 on the integer kernel, linear_int8.cc). Plain:
// each block of a row is unpacked to 32 floats on the stack (its scale widened once) and
// summed against x with f32 FMAs, row by row (x is reloaded per row: it is L1-resident).

#if defined(ATTNRT_KERNELS_HWY_CODEC_Q4_0_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_CODEC_Q4_0_INL_H_
#undef ATTNRT_KERNELS_HWY_CODEC_Q4_0_INL_H_
#else
#define ATTNRT_KERNELS_HWY_CODEC_Q4_0_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/weight_q4_0.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/linear_weights-inl.h"

ATTNRT_HWY_BEGIN

struct Q4_0Codec {
  struct Matrix {
    const uint8_t* blocks;  // row n at blocks + n * row_bytes
    size_t row_bytes;
  };

  static HWY_INLINE Matrix Planes(const LinearParams& p) {
    return {static_cast<const uint8_t*>(p.w),
            WeightBlocksPerRow(kQ4_0Info, p.in) * kQ4_0BlockBytes};
  }

  // dst[j] = the block's values, 0 past `n` (readers must not rely on the padding's value).
  // The scale is widened once per block (a software conversion on SCALAR).
  static HWY_INLINE void Unpack(const uint8_t* block, size_t n, float* HWY_RESTRICT dst) {
    const float d = F16ToF32(Q4_0ScaleBits(block));
    for (size_t j = 0; j < kQ4_0Block; ++j) {
      dst[j] = j < n ? static_cast<float>(static_cast<int>(Q4_0Nibble(block, j)) - 8) * d : 0.0f;
    }
  }

  static HWY_INLINE void DotGroup(const Matrix& w, size_t K, const float* x, size_t n,
                                  size_t count, bool, float* out) {
    const DWiden d;
    const size_t N = hn::Lanes(d);
    HWY_ALIGN float wb[kQ4_0Block];
    HWY_ALIGN float xt[kQ4_0Block];
    for (size_t i = 0; i < 8; ++i) {
      const uint8_t* row = w.blocks + (n + HWY_MIN(i, count - 1)) * w.row_bytes;
      auto acc = hn::Zero(d);
      for (size_t k = 0; k < K; k += kQ4_0Block, row += kQ4_0BlockBytes) {
        const size_t len = HWY_MIN(kQ4_0Block, K - k);
        const float* xb = x + k;
        if (len < kQ4_0Block) {  // zero-padded copy: never read x past K
          for (size_t j = 0; j < kQ4_0Block; ++j) xt[j] = j < len ? x[k + j] : 0.0f;
          xb = xt;
        }
        Unpack(row, len, wb);
        for (size_t j = 0; j < kQ4_0Block; j += N) {
          acc = hn::MulAdd(hn::LoadU(d, xb + j), hn::Load(d, wb + j), acc);
        }
      }
      out[i] = hn::GetLane(hn::SumOfLanes(d, acc));
    }
  }

  static HWY_INLINE void WidenRow(const Matrix& w, size_t, size_t n, size_t k0, size_t depth,
                                  float* HWY_RESTRICT dst) {
    const uint8_t* row = w.blocks + n * w.row_bytes;
    HWY_ALIGN float values[kQ4_0Block];
    size_t k = k0;
    while (k < k0 + depth) {  // block by block: one scale conversion each
      const size_t j0 = k % kQ4_0Block;
      const size_t len = HWY_MIN(kQ4_0Block - j0, k0 + depth - k);
      Unpack(row + k / kQ4_0Block * kQ4_0BlockBytes, kQ4_0Block, values);
      for (size_t j = 0; j < len; ++j) dst[k - k0 + j] = values[j0 + j];
      k += len;
    }
  }
};

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_CODEC_Q4_0_INL_H_
