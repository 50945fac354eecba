// What the xsimd flash and materialized drivers share: scratch layout rounding
// and applying the causal rule and masks to score rows (row-major for
// materialized, key-major for flash). Compiled without ISA flags (only the drivers
// include this), so sdpa_mask.h's helpers run here, never in the ISA files.
#pragma once

#include <cstddef>

#include "attnrt/kernels/sdpa_kernel.h"
#include "attnrt/kernels/sdpa_mask.h"
#include "attnrt/kernels/sdpa_params.h"

namespace attnrt {
namespace xsimd_sdpa {

inline size_t RoundUp(size_t n, size_t m) { return (n + m - 1) / m * m; }

// Scratch regions start on this many floats so every region is 64-byte aligned.
constexpr size_t kRegionAlignFloats = kScratchAlignment / sizeof(float);

inline size_t AlignFloats(size_t n) { return RoundUp(n, kRegionAlignFloats); }

inline size_t MinSize(size_t a, size_t b) { return a < b ? a : b; }

// Applies the causal rule and the mask to s[0 .. n) for query row i whose keys
// start at key j0. Runs only on tiles the causal diagonal cuts or with a mask.
inline void MaskRow(const SdpaParams& p, size_t b, size_t h, size_t i, size_t j0, size_t n,
                    float* s) {
  const uint8_t* mask_row = p.mask_kind == MaskKind::kNone ? nullptr : MaskRowBytes(p, b, h, i);
  for (size_t j = 0; j < n; ++j) s[j] = ApplyMask(p, mask_row, i, j0 + j, s[j]);
}

inline void ZeroFloats(float* x, size_t n) {
  for (size_t j = 0; j < n; ++j) x[j] = 0.0f;
}

// The same on a key-major tile st[j * ldq + r] (flash): query i0 + r, key j0 + j.
inline void MaskKeyMajorTile(const SdpaParams& p, size_t b, size_t h, size_t i0, size_t rows,
                             size_t j0, size_t keys, float* st, size_t ldq) {
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* mask_row = MaskRowBytes(p, b, h, i0 + r);
    for (size_t j = 0; j < keys; ++j) {
      st[j * ldq + r] = ApplyMask(p, mask_row, i0 + r, j0 + j, st[j * ldq + r]);
    }
  }
}

// The causal rule alone on a key-major tile the diagonal cuts: key j0 + j is
// hidden from the block's first queries, a prefix of each key row.
inline void MaskKeyMajorTileCausal(const SdpaParams& p, size_t i0, size_t j0, size_t keys,
                                   float* st, size_t ldq) {
  const long long offset = CausalOffset(p);
  for (size_t j = 0; j < keys; ++j) {
    // Queries i < first_query may not see key j0 + j.
    const long long first_query = static_cast<long long>(j0 + j) - offset;
    if (first_query <= static_cast<long long>(i0)) continue;
    const size_t hidden =
        MinSize(static_cast<size_t>(first_query - static_cast<long long>(i0)), ldq);
    float* row = st + j * ldq;
    for (size_t r = 0; r < hidden; ++r) row[r] = kMaskedScore;
  }
}

}  // namespace xsimd_sdpa
}  // namespace attnrt
