// The one parameter block that describes a scaled-dot-product-attention call.
//
// Semantics follow torch.nn.functional.scaled_dot_product_attention:
//   out[b,h,i,:] = sum_j softmax_j(scale * q[b,h,i,:].k[b,g,j,:] + mask) v[b,g,j,:]
// with g = h / (q_heads / kv_heads) (grouped-query attention).
//
// Every tensor is addressed by element strides for (batch, head, row); the last
// dimension is contiguous. A stride of 0 broadcasts that dimension, which is how
// masks of shape (L,S), (1,1,L,S), (B,1,L,S), ... are handed to the kernels.
// The runtime validates a block (runtime/sdpa.h) before any kernel sees it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/kv_type.h"

namespace attnrt {

enum class MaskKind : uint8_t {
  kNone = 0,
  kBool = 1,      // uint8 per element: nonzero = may attend (PyTorch's True)
  kAdditive = 2,  // float per element, added to the scaled scores
};

enum class CausalKind : uint8_t {
  kNone = 0,
  kUpperLeft = 1,   // PyTorch is_causal: query i sees keys j <= i
  kLowerRight = 2,  // KV-cache alignment: query i sees keys j <= i + S - L
};

// Element strides of a (batch, head, row, col) view whose col stride is 1.
struct Strides3 {
  size_t batch = 0;
  size_t head = 0;
  size_t row = 0;
};

// Strides of a mask view: col may be 0 when the mask broadcasts over keys.
struct MaskStrides {
  size_t batch = 0;
  size_t head = 0;
  size_t row = 0;
  size_t col = 0;
};

struct SdpaParams {
  size_t batch = 1;
  size_t q_heads = 1;
  size_t kv_heads = 1;
  size_t q_len = 0;   // L
  size_t kv_len = 0;  // S
  size_t qk_dim = 0;  // E
  size_t v_dim = 0;   // Ev

  const float* q = nullptr;  // (B, Hq, L, E)
  Strides3 q_strides;
  const float* k = nullptr;  // (B, Hkv, S, E)
  Strides3 k_strides;
  const float* v = nullptr;  // (B, Hkv, S, Ev)
  Strides3 v_strides;
  float* out = nullptr;      // (B, Hq, L, Ev)
  Strides3 out_strides;
  float* weights = nullptr;  // optional (B, Hq, L, S); only variants that return weights
  Strides3 weights_strides;

  float scale = 1.0f;  // the runtime fills in 1/sqrt(E) when the caller gives none

  MaskKind mask_kind = MaskKind::kNone;
  const void* mask = nullptr;
  MaskStrides mask_strides;

  CausalKind causal = CausalKind::kNone;

  // Per-score variants, applied inside the tiles of every kernel. With d = diag(i) - j,
  // diag(i) = i + CausalOffset(p) the key the causal rule aligns with query i:
  //   window        W > 0: key j is visible only when 0 <= d < W (needs a causal rule);
  //                 0 = off. Flash and decode skip the tiles it hides.
  //   alibi_slopes  one per query head: s += slope[h] * (j - diag(i)); nullptr = off.
  //   softcap       C > 0: s = C * tanh(s / C) after scaling, before masks and biases;
  //                 0 = off.
  //   sinks         one logit per query head: the softmax denominator gains exp(sink[h])
  //                 and no value is added (rows sum to less than one); nullptr = off.
  // Order per score: scale, softcap, then the masks (-inf) and the additive biases
  // (mask, then ALiBi). A row whose keys are all masked gives zeros, sink or not.
  size_t window = 0;
  const float* alibi_slopes = nullptr;
  float softcap = 0.0f;
  const float* sinks = nullptr;

  // Storage type of the keys and values (a KV cache; kernels/kv_store.h writes it).
  // Queries, outputs, masks and all arithmetic stay f32; kernels widen K and V in
  // registers. kF32 (default): `k` and `v` above. kF16 or kQ8: `k` and `v` must be
  // nullptr and `k_data` / `v_data` hold the typed values, addressed by the same
  // element strides (k_strides, v_strides) as an f32 tensor would be:
  //   kF16  uint16_t IEEE binary16 bits per element;
  //   kQ8   int8_t per element and ONE f32 scale per (batch, kv head, key) row of E
  //         (or Ev) values: value = scale * q, scale = max|x| / 127 over the row
  //         (0 for an all-zero row). The scale of key j of (b, g) is
  //         k_scales[b * k_scale_strides.batch + g * k_scale_strides.head +
  //                  j * k_scale_strides.row], likewise v_scales for values.
  //         (Not the block-32 weight q8 of weight_q8.h: a KV row is written once
  //         per token, and one scale per row lets the kernels fold it into the score
  //         and the probability instead of rescaling every 32 values.)
  // kBF16 is refused. Only kernels whose SdpaKernel::reads_typed_kv is true read a
  // typed cache; the runtime refuses the others by name.
  KvType kv_type = KvType::kF32;
  const void* k_data = nullptr;
  const void* v_data = nullptr;
  const float* k_scales = nullptr;
  Strides3 k_scale_strides;
  const float* v_scales = nullptr;
  Strides3 v_scale_strides;
};

// Query i may see keys j <= i + CausalOffset(p). Returned as a signed value since
// lower-right with L > S leaves the first rows without any key.
inline long long CausalOffset(const SdpaParams& p) {
  if (p.causal == CausalKind::kLowerRight) {
    return static_cast<long long>(p.kv_len) - static_cast<long long>(p.q_len);
  }
  return 0;
}

// diag(i): the key the causal rule aligns with query i (i without a causal rule).
// Negative for the first rows of lower-right with L > S.
inline long long DiagonalKey(const SdpaParams& p, size_t row) {
  return static_cast<long long>(row) + CausalOffset(p);
}

// Number of keys row i may see under the causal rule alone (S when not causal).
inline size_t CausalVisibleKeys(const SdpaParams& p, size_t row) {
  if (p.causal == CausalKind::kNone) return p.kv_len;
  const long long last = static_cast<long long>(row) + CausalOffset(p);
  if (last < 0) return 0;
  const size_t n = static_cast<size_t>(last) + 1;
  return n < p.kv_len ? n : p.kv_len;
}

// First key row i may see under the window (0 without one): keys
// [VisibleKeyBegin, CausalVisibleKeys) are those the causal rule and the window
// leave, an empty range when begin >= end. Non-decreasing in the row, so a block's
// first row bounds the block. No overflow for any window.
inline size_t VisibleKeyBegin(const SdpaParams& p, size_t row) {
  if (p.window == 0) return 0;
  const long long diag = DiagonalKey(p, row);
  if (diag < 0) return 0;
  const size_t d = static_cast<size_t>(diag);
  return p.window > d ? 0 : d - p.window + 1;
}

// True when some score needs a per-element function beyond masking (ALiBi, softcap):
// the kernels then run their element-wise pass on every tile, not only on cut ones.
inline bool HasScoreTransform(const SdpaParams& p) {
  return p.alibi_slopes != nullptr || p.softcap > 0.0f;
}

}  // namespace attnrt
