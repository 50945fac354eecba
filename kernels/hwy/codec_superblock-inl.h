// The hwy Linear codec of the block types read 32 values at a time: GGUF's k-quant
// super-blocks (weight_types.inc's kSuperBlock types, q4_K and q6_K) and q4_0, whose block
// is one such chunk. linear_weights-inl.h's interface over a `Format` that unpacks 32 values
// of a block at a time,
//   static constexpr WeightType kType;  // its row of weight_types.inc
//   // dst[i] = value 32 c + i of the block as f32 (c < block / 32), vector code.
//   static void Unpack32(const uint8_t* block, size_t c, float* dst);
// For the exact path (f32 activations): each 32-value chunk of a row is unpacked to f32
// on the stack (a vector unpack: nibbles and scales widened in registers, exactly as the
// scalar codec computes them) and summed against x with f32 FMAs, row by row (x is L1-
// resident). Rows are whole blocks in files; a short last block (K % 256 != 0, as the
// tests' shapes have) reads x zero-padded, so padding values add nothing.

#if defined(ATTNRT_KERNELS_HWY_CODEC_SUPERBLOCK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTNRT_KERNELS_HWY_CODEC_SUPERBLOCK_INL_H_
#undef ATTNRT_KERNELS_HWY_CODEC_SUPERBLOCK_INL_H_
#else
#define ATTNRT_KERNELS_HWY_CODEC_SUPERBLOCK_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/linear.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/linear_weights-inl.h"

ATTNRT_HWY_BEGIN

constexpr size_t kSuperChunk = 32;  // values per Unpack32

template <class Format>
struct SuperBlockCodec {
  static constexpr const WeightTypeInfo& kInfo = *FindWeightType(Format::kType);

  struct Matrix {
    const uint8_t* blocks;  // row n at blocks + n * row_bytes
    size_t row_bytes;
  };

  static HWY_INLINE Matrix Planes(const LinearParams& p) {
    return {static_cast<const uint8_t*>(p.w),
            WeightBlocksPerRow(kInfo, p.in) * kInfo.bytes};
  }

  // Chunk of 32 values that holds value k of a row.
  static HWY_INLINE void UnpackAt(const uint8_t* row, size_t k, float* HWY_RESTRICT dst) {
    Format::Unpack32(row + k / kInfo.block * kInfo.bytes, k % kInfo.block / kSuperChunk, dst);
  }

  // Rows four at a time, chunk by chunk: each chunk of x loaded once for the four, and four
  // FMA chains (one row's chain alone waits on its FMA latency at every step). Per row the
  // sum's order is the same as one row alone: chunk by chunk, lanes apart, summed at the end.
  static HWY_INLINE void DotGroup(const Matrix& w, size_t K, const float* x, size_t n,
                                  size_t count, bool, float* out) {
    const DWiden d;
    const size_t N = hn::Lanes(d);
    HWY_ALIGN float wb[4][kSuperChunk];
    HWY_ALIGN float xt[kSuperChunk];
    for (size_t i0 = 0; i0 < 8; i0 += 4) {
      const uint8_t* rows[4];
      for (size_t i = 0; i < 4; ++i) {
        rows[i] = w.blocks + (n + HWY_MIN(i0 + i, count - 1)) * w.row_bytes;
      }
      auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
      for (size_t k = 0; k < K; k += kSuperChunk) {
        const size_t len = HWY_MIN(kSuperChunk, K - k);
        const float* xb = x + k;
        if (len < kSuperChunk) {  // zero-padded copy: never read x past K
          for (size_t j = 0; j < kSuperChunk; ++j) xt[j] = j < len ? x[k + j] : 0.0f;
          xb = xt;
        }
        for (size_t i = 0; i < 4; ++i) UnpackAt(rows[i], k, wb[i]);
        for (size_t j = 0; j < kSuperChunk; j += N) {
          const auto xv = hn::LoadU(d, xb + j);
          a0 = hn::MulAdd(xv, hn::Load(d, wb[0] + j), a0);
          a1 = hn::MulAdd(xv, hn::Load(d, wb[1] + j), a1);
          a2 = hn::MulAdd(xv, hn::Load(d, wb[2] + j), a2);
          a3 = hn::MulAdd(xv, hn::Load(d, wb[3] + j), a3);
        }
      }
      out[i0] = hn::GetLane(hn::SumOfLanes(d, a0));
      out[i0 + 1] = hn::GetLane(hn::SumOfLanes(d, a1));
      out[i0 + 2] = hn::GetLane(hn::SumOfLanes(d, a2));
      out[i0 + 3] = hn::GetLane(hn::SumOfLanes(d, a3));
    }
  }

  static HWY_INLINE void WidenRow(const Matrix& w, size_t, size_t n, size_t k0, size_t depth,
                                  float* HWY_RESTRICT dst) {
    const uint8_t* row = w.blocks + n * w.row_bytes;
    HWY_ALIGN float values[kSuperChunk];
    size_t k = k0;
    while (k < k0 + depth) {  // chunk by chunk: one scale decode each
      const size_t j0 = k % kSuperChunk;
      const size_t len = HWY_MIN(kSuperChunk - j0, k0 + depth - k);
      UnpackAt(row, k - j0, values);
      for (size_t j = 0; j < len; ++j) dst[k - k0 + j] = values[j0 + j];
      k += len;
    }
  }
};

ATTNRT_HWY_END

#endif  // ATTNRT_KERNELS_HWY_CODEC_SUPERBLOCK_INL_H_
