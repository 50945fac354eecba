// The one definition of "may query i attend to key j, and with what bias",
// combining the causal rule with a bool or additive mask. All variants call it
// (the vectorized ones only on tiles that the causal rule cuts or that carry a
// mask), so the semantics live in one place.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/sdpa_params.h"

namespace attnrt {

// Scores below this are "masked" inside kernels. Finite on purpose: differences
// of two masked scores stay finite, so no inf - inf = NaN can appear.
constexpr float kMaskedScore = -1e30f;
// A row whose running max is still at or below this has no allowed key yet.
constexpr float kDeadRowThreshold = -5e29f;

// A row of n scores whose max is `max` has no allowed key: its probabilities
// are all 0 (PyTorch's fused kernels' answer for a fully masked row). Not when a
// score is NaN: PyTorch's softmax makes that row NaN, and a SIMD max may have
// dropped the NaN, so the row is checked (dead rows only, so this stays cheap).
inline bool RowIsDead(float max, const float* s, size_t n) {
  if (!(max <= kDeadRowThreshold)) return false;
  for (size_t j = 0; j < n; ++j) {
    if (s[j] != s[j]) return false;
  }
  return true;
}

// Pointer to the mask row (b, h, i); element j is at row[j * mask_strides.col].
inline const uint8_t* MaskRowBytes(const SdpaParams& p, size_t b, size_t h, size_t i) {
  const size_t elem = p.mask_kind == MaskKind::kBool ? 1 : sizeof(float);
  const size_t offset = b * p.mask_strides.batch + h * p.mask_strides.head + i * p.mask_strides.row;
  return static_cast<const uint8_t*>(p.mask) + offset * elem;
}

// False when the causal rule or a bool mask forbids key j for query row i;
// otherwise *bias is the additive-mask term (0 without one).
inline bool KeyAllowed(const SdpaParams& p, const uint8_t* mask_row, size_t i, size_t j,
                       float* bias) {
  *bias = 0.0f;
  if (p.causal != CausalKind::kNone &&
      static_cast<long long>(j) > static_cast<long long>(i) + CausalOffset(p)) {
    return false;
  }
  const size_t at = j * p.mask_strides.col;
  if (p.mask_kind == MaskKind::kBool) return mask_row[at] != 0;
  if (p.mask_kind == MaskKind::kAdditive) {
    __builtin_memcpy(bias, mask_row + at * sizeof(float), sizeof(float));
  }
  return true;
}

// The masked, biased score as kernels store it: kMaskedScore for a forbidden key,
// and also for -inf (or anything below kMaskedScore) coming from an additive mask.
// A NaN score of an allowed key stays NaN: PyTorch's softmax makes that row NaN.
inline float ApplyMask(const SdpaParams& p, const uint8_t* mask_row, size_t i, size_t j,
                       float scaled_score) {
  float bias;
  if (!KeyAllowed(p, mask_row, i, j, &bias)) return kMaskedScore;
  const float s = scaled_score + bias;
  return s <= kMaskedScore ? kMaskedScore : s;
}

}  // namespace attnrt
