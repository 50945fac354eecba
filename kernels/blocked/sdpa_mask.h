// The one definition of "may query i attend to key j, and with what bias",
// combining the causal rule with a bool or additive mask. All variants call it
// (the vectorized ones only on tiles that the causal rule cuts or that carry a
// mask), so the semantics live in one place.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/sdpa_params.h"

namespace attnrt {

// The score of a key the row may not attend: -inf, exactly what PyTorch's
// masked_fill puts there. Only -inf, a False bool entry and the causal rule
// mask a key; every finite score or mask value, however negative (Hugging Face
// pads with -FLT_MAX), takes part in the softmax, so no finite value may serve
// as a sentinel. -inf - (-inf) = NaN is kept out by RowIsDeadMax: a row (or a
// split of one) whose max is -inf has no allowed key, and the kernels subtract
// 0 instead of that max (exp(-inf) = 0) and never rescale by exp(m_old - m_new)
// computed from two -inf maxima.
constexpr float kMaskedScore = -__builtin_inff();

// True when a running or final max `max` says the row has seen no allowed key.
// (Every kernel's exp returns exactly 0 for -inf and everything below -87.)
constexpr bool RowIsDeadMax(float max) { return max == kMaskedScore; }

// A row of n scores whose max is `max` has no allowed key: its probabilities
// are all 0 (PyTorch's fused kernels' answer for a fully masked row). Not when a
// score is NaN: PyTorch's softmax makes that row NaN, and a SIMD max may have
// dropped the NaN, so the row is checked (dead rows only, so this stays cheap).
inline bool RowIsDead(float max, const float* s, size_t n) {
  if (!RowIsDeadMax(max)) return false;
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

// The masked, biased score as kernels store it: kMaskedScore (-inf) for a
// forbidden key, otherwise score + bias in float, as PyTorch adds a float mask to
// float32 scores (so -inf from the mask, or from the sum overflowing, masks the
// key too, and -FLT_MAX plus any ordinary score is -FLT_MAX). No clamp: a finite
// score, however negative, stays what it is. A NaN score of an allowed key stays
// NaN: PyTorch's softmax makes that row NaN.
inline float ApplyMask(const SdpaParams& p, const uint8_t* mask_row, size_t i, size_t j,
                       float scaled_score) {
  float bias;
  if (!KeyAllowed(p, mask_row, i, j, &bias)) return kMaskedScore;
  return scaled_score + bias;
}

}  // namespace attnrt
