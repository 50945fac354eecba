// What the SDPA firmware images (sdpa_fw_main.cc, sdpa_count_fw_main.cc) share: one
// attention problem in static buffers, filled from a fixed seed, bound through the
// runtime's own shape binding (so broadcast strides are exactly what the CLI would
// hand a kernel), and run in a static arena. No heap: every buffer is a global.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "attnrt/kernels/sdpa_kernel.h"
#include "kernels/blocked/sdpa_mask.h"
#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/executor.h"
#include "attnrt/runtime/sdpa.h"
#include "semihost.h"

namespace attnrt_fw {

// Shapes a mask can have, each broadcast to (B, Hq, L, S) as PyTorch would.
enum class MaskShape : uint8_t {
  kLS,    // (L, S): one mask for every batch and head
  kBHLS,  // (B, Hq, L, S): per head
  kB1LS,  // (B, 1, L, S): per batch, broadcast over heads
  kB11S,  // (B, 1, 1, S): key padding, broadcast over heads and queries
  kL1,    // (L, 1): one value per query, broadcast over keys (column stride 0)
};

// A non-finite value written over one element after the random fill: 'q', 'k', 'v' or
// 'm' (the float mask) and the flat element index.
struct Poison {
  char tensor;
  size_t index;
  float value;
};

// Finite inputs far below any plausible "masked" sentinel (issue 17 item 6: kernels
// once took every score <= -1e30 as masked). Only -inf, False and the causal rule mask
// a key; these make every live row one-hot or uniform, which sdpa_fw checks exactly.
enum class Extreme : uint8_t {
  kNone,
  kLowestMask,    // kept float-mask entries are -FLT_MAX (Hugging Face's padding)
  kHugeNegative,  // Q in [0.5e31, 1.5e31), K in (-1.5, -0.5]: every score below -1e30
};

struct SdpaCase {
  const char* name;
  size_t batch, q_heads, kv_heads, L, S, E, Ev;
  attnrt::MaskKind mask;
  MaskShape mask_shape;
  attnrt::CausalKind causal;
  size_t dead_every;  // every dead_every-th mask row forbids every key (0: none)
  Poison poison[2];   // tensor 0: none
  Extreme extreme = Extreme::kNone;
  // Per-score variants (attnrt/kernels/sdpa_params.h): ALiBi slopes 0.1 / (h + 1),
  // sinks drawn in [-sqrt(3), sqrt(3)) + 1 per head.
  size_t window = 0;
  bool alibi = false;
  float softcap = 0.0f;
  bool sinks = false;
};

// Capacity of the static buffers, in elements: the largest case of sdpa_fw and the
// calls sdpa_insn_counts.sh counts (up to L = S = 256) decide each.
constexpr size_t kMaxQ = 65536;
constexpr size_t kMaxKV = 131072;
constexpr size_t kMaxOut = 65536;
constexpr size_t kMaxWeights = 131072;
constexpr size_t kMaxMask = 65536;
constexpr size_t kArenaBytes = 2 * 1024 * 1024;

// Big buffers go to the boards' bulk memory (PSRAM / DDR, 16 MiB, not zeroed at start:
// every element a case reads is written first), not to the 4 MiB of .bss RAM.
// One section per buffer (.attnrt_arena.NAME): inline variables go into COMDAT groups,
// which GCC will not mix with plain variables in one section.
#define ATTNRT_FW_BULK(name) __attribute__((section(".attnrt_arena." #name), aligned(64)))

ATTNRT_FW_BULK(g_q) inline float g_q[kMaxQ];
ATTNRT_FW_BULK(g_k) inline float g_k[kMaxKV];
ATTNRT_FW_BULK(g_v) inline float g_v[kMaxKV];
ATTNRT_FW_BULK(g_mask_f) inline float g_mask_f[kMaxMask];
ATTNRT_FW_BULK(g_mask_b) inline uint8_t g_mask_b[kMaxMask];
ATTNRT_FW_BULK(g_arena) inline uint8_t g_arena[kArenaBytes];
constexpr size_t kMaxHeads = 64;
inline float g_slopes[kMaxHeads];
inline float g_sinks[kMaxHeads];

inline void Print(const char* text) { semihost_write0(text); }
inline void PrintSize(const char* label, size_t value) {
  Print(label);
  semihost_write_size(value);
}

// xorshift32: the same numbers on every board, no library state.
class Random {
 public:
  explicit Random(uint32_t seed) : state_(seed ? seed : 1u) {}
  uint32_t Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_;
  }
  // Uniform in [0, 1).
  float Unit() { return static_cast<float>(Next() >> 8) * (1.0f / 16777216.0f); }
  // Uniform in [-sqrt(3), sqrt(3)): mean 0, variance 1, like the host tests' normals.
  float Centered() { return (Unit() * 2.0f - 1.0f) * 1.7320508f; }

 private:
  uint32_t state_;
};

inline attnrt::TensorShape MaskTensorShape(const SdpaCase& c) {
  switch (c.mask_shape) {
    case MaskShape::kLS: return attnrt::TensorShape{2, {c.L, c.S, 0, 0}};
    case MaskShape::kBHLS: return attnrt::TensorShape{4, {c.batch, c.q_heads, c.L, c.S}};
    case MaskShape::kB1LS: return attnrt::TensorShape{4, {c.batch, 1, c.L, c.S}};
    case MaskShape::kB11S: return attnrt::TensorShape{4, {c.batch, 1, 1, c.S}};
    case MaskShape::kL1: return attnrt::TensorShape{2, {c.L, 1, 0, 0}};
  }
  return attnrt::TensorShape{};
}

inline size_t Elements(const attnrt::TensorShape& s) {
  size_t n = 1;
  for (size_t i = 0; i < s.rank; ++i) n *= s.dims[i];
  return n;
}

// Binds the case's shapes and fills Q, K, V and the mask (about 70% of the keys kept;
// an additive mask mixes biases in [-2, 2) with -inf). Returns false (after printing
// why) when a buffer is too small or the runtime rejects the shapes.
inline bool SetUpCase(const SdpaCase& c, uint32_t seed, attnrt::SdpaParams* p) {
  const attnrt::TensorShape q{4, {c.batch, c.q_heads, c.L, c.E}};
  const attnrt::TensorShape k{4, {c.batch, c.kv_heads, c.S, c.E}};
  const attnrt::TensorShape v{4, {c.batch, c.kv_heads, c.S, c.Ev}};
  const attnrt::TensorShape m = MaskTensorShape(c);
  attnrt::TensorShape out, weights;
  const bool masked = c.mask != attnrt::MaskKind::kNone;
  const attnrt::Status st =
      attnrt::BindSdpaShapes(q, k, v, masked ? &m : nullptr, c.mask, p, &out, &weights);
  if (!st.ok()) {
    Print("sdpa_fw: FAIL: bind shapes: ");
    Print(st.message());
    Print("\n");
    return false;
  }
  const size_t nq = Elements(q), nk = Elements(k), nv = Elements(v), nm = masked ? Elements(m) : 0;
  if (nq > kMaxQ || nk > kMaxKV || nv > kMaxKV || nm > kMaxMask ||
      c.batch * c.q_heads * c.L * c.Ev > kMaxOut || c.batch * c.q_heads * c.L * c.S > kMaxWeights) {
    Print("sdpa_fw: FAIL: case does not fit the static buffers\n");
    return false;
  }
  Random rng(seed);
  for (size_t i = 0; i < nq; ++i) g_q[i] = rng.Centered();
  for (size_t i = 0; i < nk; ++i) g_k[i] = rng.Centered();
  for (size_t i = 0; i < nv; ++i) g_v[i] = rng.Centered();
  if (c.extreme == Extreme::kHugeNegative) {
    for (size_t i = 0; i < nq; ++i) g_q[i] = 1e31f * (0.5f + rng.Unit());
    for (size_t i = 0; i < nk; ++i) g_k[i] = -0.5f - rng.Unit();
  }
  p->q = g_q;
  p->k = g_k;
  p->v = g_v;
  p->causal = c.causal;
  p->window = c.window;
  p->softcap = c.softcap;
  if ((c.alibi || c.sinks) && c.q_heads > kMaxHeads) {
    Print("sdpa_fw: FAIL: too many heads for the slope and sink buffers\n");
    return false;
  }
  for (size_t h = 0; h < c.q_heads && c.alibi; ++h) g_slopes[h] = 0.1f / static_cast<float>(h + 1);
  for (size_t h = 0; h < c.q_heads && c.sinks; ++h) g_sinks[h] = rng.Centered() + 1.0f;
  p->alibi_slopes = c.alibi ? g_slopes : nullptr;
  p->sinks = c.sinks ? g_sinks : nullptr;
  if (masked) {
    const size_t row_len = m.dims[m.rank - 1];
    for (size_t i = 0; i < nm; ++i) {
      const size_t mask_row = i / row_len;
      const bool dead = c.dead_every != 0 && mask_row % c.dead_every == c.dead_every - 1;
      const bool keep = !dead && rng.Unit() < 0.7f;
      g_mask_b[i] = keep ? 1 : 0;
      const float bias = c.extreme == Extreme::kLowestMask ? -3.40282347e38f  // -FLT_MAX
                                                           : rng.Unit() * 4.0f - 2.0f;
      g_mask_f[i] = keep ? bias : -__builtin_inff();
    }
    p->mask = c.mask == attnrt::MaskKind::kBool ? static_cast<const void*>(g_mask_b)
                                                : static_cast<const void*>(g_mask_f);
  }
  for (const Poison& poison : c.poison) {
    float* data = poison.tensor == 'q' ? g_q : poison.tensor == 'k' ? g_k
                : poison.tensor == 'v' ? g_v : poison.tensor == 'm' ? g_mask_f : nullptr;
    const size_t size = poison.tensor == 'q' ? nq : poison.tensor == 'm' ? nm
                      : poison.tensor == 'k' ? nk : nv;
    if (data != nullptr && poison.index < size) data[poison.index] = poison.value;
  }
  return true;
}

// One run through the runtime (validation, scratch from the arena, serial executor).
inline attnrt::Status RunCase(const attnrt::SdpaParams& p, const attnrt::SdpaKernel& kernel) {
  attnrt::Arena arena(g_arena, sizeof(g_arena));
  attnrt::SerialExecutor serial;
  return attnrt::RunSdpa(p, kernel, &arena, &serial);
}

}  // namespace attnrt_fw
