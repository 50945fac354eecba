// The causal rule, the window, masks and the per-score variants (softcap, ALiBi)
// applied to score rows and tiles by the blocked drivers: scalar, element by
// element through sdpa_mask.h's ApplyMask where a mask or a score transform needs
// every element, and as index ranges where only the causal rule or the window cuts
// a tile. Row-major scores (materialized, decode) and key-major ones (flash:
// st[j * ldq + r]).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/blocked/sdpa_mask.h"
#include "attnrt/kernels/sdpa_params.h"
#include "kernels/blocked/block_scratch.h"
#include "kernels/blocked/exp_polynomial.h"

namespace attnrt {

// True when every score of a call goes through ApplyMask (a mask, ALiBi or softcap);
// otherwise only tiles the causal rule or the window cut need masking.
inline bool NeedsElementwiseScores(const SdpaParams& p) {
  return p.mask_kind != MaskKind::kNone || HasScoreTransform(p);
}

// ---- Softcap and ALiBi without a mask: straight-line loops the compiler vectorizes ----

// tanh(x) for any float, branch-free: sign(x) * (1 - e) / (1 + e), e = exp(-2|x|) from the
// softmax's exp polynomial (exp_polynomial.h), clamped at -87 (e ~ 1.6e-38: tanh = 1).
// Absolute error about 2e-7; +-inf give +-1, NaN stays NaN.
inline float TanhForSoftcap(float x) {
  using namespace exp_polynomial;
  const float a = __builtin_fabsf(x);
  float y = -2.0f * a;
  y = y < kUnderflowBelow ? kUnderflowBelow : y;
  const float t = y * kLog2e + kRoundMagic;
  const float n = t - kRoundMagic;
  const float r = (y - n * kLn2Hi) - n * kLn2Lo;
  const float poly = ((((kC5 * r + kC4) * r + kC3) * r + kC2) * r + kC1) * r + kC0;
  int32_t t_bits;
  __builtin_memcpy(&t_bits, &t, sizeof(t_bits));
  // The low mantissa bits of t hold n (-126 <= n <= 0); 2^n is built from them directly.
  // In unsigned arithmetic: a NaN input leaves other bits in t, and the shift must not
  // overflow (the NaN reaches the result through poly anyway).
  const uint32_t scale_bits = (static_cast<uint32_t>(t_bits) - 0x4B400000u + 127u) << 23;
  float scale;
  __builtin_memcpy(&scale, &scale_bits, sizeof(scale));
  const float e = poly * scale;
  return __builtin_copysignf((1.0f - e) / (1.0f + e), x);
}

// True when a call's scores need softcap or ALiBi but no mask, and its ALiBi distances
// j - diag(i) fit int32 (every realistic call): the vectorizable transforms below serve
// it; any other call with a transform goes element by element through ApplyMask.
inline bool FastScoreTransform(const SdpaParams& p) {
  return p.mask_kind == MaskKind::kNone && HasScoreTransform(p) &&
         p.kv_len < (size_t{1} << 30) && p.q_len < (size_t{1} << 30);
}

// Softcap, then ALiBi, on the scores of query row i (head h) for keys [j0, j0 + n), in
// ApplyMask's order and float arithmetic; no mask (FastScoreTransform).
inline void TransformRow(const SdpaParams& p, size_t h, size_t i, size_t j0, size_t n,
                         float* s) {
  if (p.softcap > 0.0f) {
    const float cap = p.softcap;
    for (size_t j = 0; j < n; ++j) s[j] = cap * TanhForSoftcap(s[j] / cap);
  }
  if (p.alibi_slopes != nullptr) {
    const float slope = p.alibi_slopes[h];
    const int32_t d0 = static_cast<int32_t>(static_cast<long long>(j0) - DiagonalKey(p, i));
    for (size_t j = 0; j < n; ++j) s[j] += slope * static_cast<float>(d0 + static_cast<int32_t>(j));
  }
}

// The same on a key-major tile (st[j * ldq + r]: query i0 + r, key j0 + j), the rows of
// each key contiguous.
inline void TransformKeyMajorTile(const SdpaParams& p, size_t h, size_t i0, size_t rows,
                                  size_t j0, size_t keys, float* st, size_t ldq) {
  for (size_t j = 0; j < keys; ++j) {
    float* row = st + j * ldq;
    if (p.softcap > 0.0f) {
      const float cap = p.softcap;
      for (size_t r = 0; r < rows; ++r) row[r] = cap * TanhForSoftcap(row[r] / cap);
    }
    if (p.alibi_slopes != nullptr) {
      const float slope = p.alibi_slopes[h];
      const int32_t d0 = static_cast<int32_t>(static_cast<long long>(j0 + j) - DiagonalKey(p, i0));
      for (size_t r = 0; r < rows; ++r) row[r] += slope * static_cast<float>(d0 - static_cast<int32_t>(r));
    }
  }
}

// s[0 .. n) for query row i of head h whose keys start at key j0.
inline void MaskRow(const SdpaParams& p, size_t b, size_t h, size_t i, size_t j0, size_t n,
                    float* s) {
  const uint8_t* mask_row = p.mask_kind == MaskKind::kNone ? nullptr : MaskRowBytes(p, b, h, i);
  for (size_t j = 0; j < n; ++j) s[j] = ApplyMask(p, mask_row, h, i, j0 + j, s[j]);
}

// The same on a key-major tile: st[j * ldq + r] is query i0 + r, key j0 + j.
inline void MaskKeyMajorTile(const SdpaParams& p, size_t b, size_t h, size_t i0, size_t rows,
                             size_t j0, size_t keys, float* st, size_t ldq) {
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* mask_row =
        p.mask_kind == MaskKind::kNone ? nullptr : MaskRowBytes(p, b, h, i0 + r);
    for (size_t j = 0; j < keys; ++j) {
      st[j * ldq + r] = ApplyMask(p, mask_row, h, i0 + r, j0 + j, st[j * ldq + r]);
    }
  }
}

// The causal rule and the window alone on a key-major tile they cut. Key j0 + j
// is visible to the queries i with first <= i < first + W, first = j0 + j - offset
// (no upper end without a window): a prefix and a suffix of each key row (padding
// columns up to ldq included) get kMaskedScore (-inf).
inline void MaskKeyMajorTileBand(const SdpaParams& p, size_t i0, size_t j0, size_t keys,
                                 float* st, size_t ldq) {
  const long long offset = CausalOffset(p);
  const long long top = static_cast<long long>(i0);
  for (size_t j = 0; j < keys; ++j) {
    // Queries i < first may not see key j0 + j.
    const long long first = static_cast<long long>(j0 + j) - offset;
    float* row = st + j * ldq;
    size_t hidden_before = 0;
    if (first > top) hidden_before = MinSize(static_cast<size_t>(first - top), ldq);
    for (size_t r = 0; r < hidden_before; ++r) row[r] = kMaskedScore;
    if (p.window == 0) continue;
    // Queries i >= first + W have the key out of their window.
    const long long past = first - top;  // row index of `first`, may be negative
    size_t hidden_from = ldq;
    if (past < 0) {
      const size_t back = static_cast<size_t>(-past);
      hidden_from = p.window > back ? MinSize(p.window - back, ldq) : 0;
    } else if (static_cast<size_t>(past) < ldq) {
      hidden_from = p.window >= ldq ? ldq : MinSize(static_cast<size_t>(past) + p.window, ldq);
    }
    for (size_t r = hidden_from; r < ldq; ++r) row[r] = kMaskedScore;
  }
}

}  // namespace attnrt
