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
};

// Query i may see keys j <= i + CausalOffset(p). Returned as a signed value since
// lower-right with L > S leaves the first rows without any key.
inline long long CausalOffset(const SdpaParams& p) {
  if (p.causal == CausalKind::kLowerRight) {
    return static_cast<long long>(p.kv_len) - static_cast<long long>(p.q_len);
  }
  return 0;
}

// Number of keys row i may see under the causal rule alone (S when not causal).
inline size_t CausalVisibleKeys(const SdpaParams& p, size_t row) {
  if (p.causal == CausalKind::kNone) return p.kv_len;
  const long long last = static_cast<long long>(row) + CausalOffset(p);
  if (last < 0) return 0;
  const size_t n = static_cast<size_t>(last) + 1;
  return n < p.kv_len ? n : p.kv_len;
}

}  // namespace attnrt
