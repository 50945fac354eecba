// The one definition of "may query i attend to key j, and with what score",
// combining the causal rule, the window, a bool or additive mask, the softcap and
// ALiBi (sdpa_params.h), and of the output scale a sink changes. All variants call it
// (the vectorized ones only on tiles that the causal rule cuts or that carry a
// mask), so the semantics live in one place.
#pragma once

#include <cmath>
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

// False when the causal rule, the window or a bool mask forbids key j for query
// row i; otherwise *bias is the additive-mask term (0 without one).
inline bool KeyAllowed(const SdpaParams& p, const uint8_t* mask_row, size_t i, size_t j,
                       float* bias) {
  *bias = 0.0f;
  if (p.causal != CausalKind::kNone || p.window != 0) {
    const long long d = DiagonalKey(p, i) - static_cast<long long>(j);
    if (p.causal != CausalKind::kNone && d < 0) return false;
    // d < W, written so that no window overflows (d >= 0 here).
    if (p.window != 0 && d >= 0 && static_cast<unsigned long long>(d) >= p.window) return false;
  }
  const size_t at = j * p.mask_strides.col;
  if (p.mask_kind == MaskKind::kBool) return mask_row[at] != 0;
  if (p.mask_kind == MaskKind::kAdditive) {
    __builtin_memcpy(bias, mask_row + at * sizeof(float), sizeof(float));
  }
  return true;
}

// C * tanh(s / C): Gemma-2's logit softcap (C > 0). +-inf map to +-C, NaN stays NaN.
inline float Softcap(float s, float cap) { return cap * std::tanh(s / cap); }

// The ALiBi term of query row i (head h) for key j: slope[h] * (j - diag(i)).
inline float AlibiBias(const SdpaParams& p, size_t h, size_t i, size_t j) {
  return p.alibi_slopes[h] *
         static_cast<float>(static_cast<long long>(j) - DiagonalKey(p, i));
}

// The masked, biased score as kernels store it: kMaskedScore (-inf) for a
// forbidden key, otherwise (softcapped) score + bias (+ ALiBi) in float, as
// PyTorch adds a float mask to float32 scores (so -inf from the mask, or from
// the sum overflowing, masks the key too, and -FLT_MAX plus any ordinary score is
// -FLT_MAX). No clamp: a finite score, however negative, stays what it is. A NaN
// score of an allowed key stays NaN: PyTorch's softmax makes that row NaN.
// `h` is the query head (for the ALiBi slope).
inline float ApplyMask(const SdpaParams& p, const uint8_t* mask_row, size_t h, size_t i,
                       size_t j, float scaled_score) {
  float bias;
  if (!KeyAllowed(p, mask_row, i, j, &bias)) return kMaskedScore;
  float s = p.softcap > 0.0f ? Softcap(scaled_score, p.softcap) : scaled_score;
  s += bias;
  if (p.alibi_slopes != nullptr) s += AlibiBias(p, h, i, j);
  return s;
}

// The factor that turns a row's accumulator sum_j exp(s_j - m) v_j into the
// output, for a row with running max m and sum l = sum_j exp(s_j - m): 1 / l, or
// with a sink logit k (nullptr = none) 1 / (l + exp(k - m)), computed around
// max(m, k) so that neither exponential overflows. 0 for a row that saw no allowed
// key (m = -inf, l = 0: its accumulator is 0 and so is its output, sink or not).
// NaN in m or l stays NaN.
inline float OutputScale(float m, float l, const float* sink) {
  if (sink == nullptr) return l > 0.0f ? 1.0f / l : 0.0f;
  if (RowIsDeadMax(m)) return 0.0f;
  const float top = *sink > m ? *sink : m;  // m when m is NaN
  const float a = std::exp(m - top);
  return a / (l * a + std::exp(*sink - top));
}

// The sink logit of query head h, or nullptr when the call has none.
inline const float* SinkOf(const SdpaParams& p, size_t h) {
  return p.sinks == nullptr ? nullptr : p.sinks + h;
}

}  // namespace attnrt
