// The causal rule and masks applied to score rows and tiles by the blocked
// drivers: scalar, element by element through sdpa_mask.h's ApplyMask, and only
// on tiles the causal diagonal cuts or when the call has a mask. Row-major
// scores (materialized, decode) and key-major ones (flash: st[j * ldq + r]).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/blocked/sdpa_mask.h"
#include "attnrt/kernels/sdpa_params.h"
#include "kernels/blocked/block_scratch.h"

namespace attnrt {

// s[0 .. n) for query row i whose keys start at key j0.
inline void MaskRow(const SdpaParams& p, size_t b, size_t h, size_t i, size_t j0, size_t n,
                    float* s) {
  const uint8_t* mask_row = p.mask_kind == MaskKind::kNone ? nullptr : MaskRowBytes(p, b, h, i);
  for (size_t j = 0; j < n; ++j) s[j] = ApplyMask(p, mask_row, i, j0 + j, s[j]);
}

// The same on a key-major tile: st[j * ldq + r] is query i0 + r, key j0 + j.
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
// hidden from the block's first queries, a prefix of each key row (padding
// columns up to ldq included), which gets kMaskedScore (-inf).
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

}  // namespace attnrt
