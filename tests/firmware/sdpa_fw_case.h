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
#include "common/sdpa_case.h"
#include "common/sdpa_case_inputs.h"
#include "semihost.h"

namespace attnrt_fw {

// The case description (shapes, mask, causal rule, scale, bad values, ...) is the host
// tester's SdpaCase (tests/common/sdpa_case.h); the rules that turn one into inputs
// are shared too (sdpa_case_inputs.h). Only the random draws are the boards' own.
using attnrt::testing::SdpaCase;

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

// What the boards cannot run: they hold f32 K/V in aligned static buffers and run
// one worker. Returns nullptr when the case fits.
inline const char* UnsupportedOnBoards(const SdpaCase& c) {
  if (c.kv_type != attnrt::KvType::kF32) return "a typed KV cache";
  if (c.misalign) return "misaligned buffers";
  if (c.workers != 1) return "several workers";
  return nullptr;
}

inline bool Fail(const char* what) {
  Print("sdpa_fw: FAIL: ");
  Print(what);
  Print("\n");
  return false;
}

// Binds the case's shapes and fills Q, K, V (centered uniform draws, times the logit
// magnitude) and the mask, ALiBi slopes, sinks and bad values by the shared rules
// (sdpa_case_inputs.h), from the case's seed. Returns false (after printing why) when
// a buffer is too small, the boards cannot run the case or the runtime rejects it.
inline bool SetUpCase(const SdpaCase& c, attnrt::SdpaParams* p) {
  using namespace attnrt::testing;
  if (const char* unsupported = UnsupportedOnBoards(c)) return Fail(unsupported);
  const attnrt::TensorShape m = MaskTensorShape(c);
  attnrt::TensorShape out, weights;
  const bool masked = c.mask != attnrt::MaskKind::kNone;
  const attnrt::Status st = attnrt::BindSdpaShapes(
      QueryShape(c), KeyShape(c), ValueShape(c), masked ? &m : nullptr, c.mask, p, &out, &weights);
  if (!st.ok()) return Fail(st.message());
  const size_t nq = ElementCount(QueryShape(c)), nk = ElementCount(KeyShape(c));
  const size_t nv = ElementCount(ValueShape(c)), nm = masked ? ElementCount(m) : 0;
  if (nq > kMaxQ || nk > kMaxKV || nv > kMaxKV || nm > kMaxMask ||
      c.batch * c.q_heads * c.L * c.Ev > kMaxOut || c.batch * c.q_heads * c.L * c.S > kMaxWeights) {
    return Fail("case does not fit the static buffers");
  }
  if ((c.alibi || c.sinks) && c.q_heads > kMaxHeads) {
    return Fail("too many heads for the slope and sink buffers");
  }
  Random rng(c.seed);
  for (size_t i = 0; i < nq; ++i) g_q[i] = rng.Centered() * c.logit_magnitude;
  for (size_t i = 0; i < nk; ++i) g_k[i] = rng.Centered() * c.logit_magnitude;
  for (size_t i = 0; i < nv; ++i) g_v[i] = rng.Centered();
  if (c.extreme == ExtremeKind::kHugeNegative) {
    for (size_t i = 0; i < nq; ++i) g_q[i] = HugeNegativeQuery(rng.Unit());
    for (size_t i = 0; i < nk; ++i) g_k[i] = HugeNegativeKey(rng.Unit());
  }
  p->q = g_q;
  p->k = g_k;
  p->v = g_v;
  p->causal = c.causal;
  if (c.scale != 0.0f) p->scale = c.scale;
  p->window = c.window;
  p->softcap = c.softcap;
  for (size_t h = 0; h < c.q_heads && c.alibi; ++h) g_slopes[h] = AlibiSlope(c, h);
  for (size_t h = 0; h < c.q_heads && c.sinks; ++h) g_sinks[h] = SinkLogit(c, rng.Centered());
  p->alibi_slopes = c.alibi ? g_slopes : nullptr;
  p->sinks = c.sinks ? g_sinks : nullptr;
  FillMask(c, nm, [&rng] { return rng.Unit(); }, g_mask_f, g_mask_b);
  if (masked) {
    p->mask = c.mask == attnrt::MaskKind::kBool ? static_cast<const void*>(g_mask_b)
                                                : static_cast<const void*>(g_mask_f);
  }
  if (!WriteBadValues(c, {g_q, nq, g_k, nk, g_v, nv, g_mask_f, g_mask_b, nm})) {
    return Fail("a poison lies outside its tensor, or there are too many");
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
