// SdpaCase: what one SDPA test case is (shapes, mask and its broadcast, causal rule,
// scale, per-score variants, bad inputs, KV storage type), written once for both
// harnesses that run cases: the GoogleTest tester (tests/kernels/sdpa_tester.h) and
// the Cortex-M images (tests/firmware/sdpa_fw_case.h). Each harness draws its own
// random numbers (std::mt19937 on the host, xorshift on the boards); what a field
// means is the same on both (sdpa_case_inputs.h holds the rules they share), and
// both print a case with the same Describe (sdpa_case_text.h).
//
// Plain data with constexpr setters that chain, as XNNPACK's testers do, so a
// firmware case table stays a constexpr array in flash:
//   SdpaCase("keypad").Shape(9, 130, 12, 20).Heads(4, 2).Mask(MaskKind::kBool,
//       MaskShape::kB11S).Causal(CausalKind::kLowerRight).Scale(0.5f).Poison('k', 72, inf)
// Setters return the case by reference: copy the result (SdpaCase c = ...), never
// bind a reference to a chain that starts from a temporary. No heap, no exceptions.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "attnrt/kernels/sdpa_params.h"

namespace attnrt::testing {

// Shapes a mask can have, each broadcast to the scores (B, Hq, L, S) as PyTorch would.
enum class MaskShape : uint8_t {
  kLS,    // (L, S): one mask for every batch and head
  kBHLS,  // (B, Hq, L, S): per head
  kB1LS,  // (B, 1, L, S): per batch, broadcast over heads
  kB11S,  // (B, 1, 1, S): key padding, broadcast over heads and queries
  kL1,    // (L, 1): one value per query, broadcast over keys (column stride 0)
};

// Finite inputs far below any plausible "masked" sentinel (issue 17 item 6: kernels
// once took every score <= -1e30 as masked). Only -inf, False and the causal rule
// mask a key; these make every live row one-hot or uniform.
enum class ExtremeKind : uint8_t {
  kNone,
  kLowestMask,    // kept float-mask entries are -FLT_MAX (Hugging Face's padding)
  kHugeNegative,  // Q in [0.5e31, 1.5e31), K in (-1.5, -0.5]: every score below -1e30
};

// A value written over one element after the random fill: tensor 'q', 'k', 'v' or
// 'm' (the mask: a float mask takes the value, a bool mask keeps the key when the
// value is nonzero) and the flat element index in the tensor's own shape.
struct BadValue {
  char tensor = 0;
  size_t index = 0;
  float value = 0.0f;
};

constexpr size_t kMaxBadValues = 4;

struct SdpaCase {
  const char* name = "";
  size_t batch = 1, q_heads = 1, kv_heads = 1, L = 1, S = 1, E = 1, Ev = 1;

  MaskKind mask = MaskKind::kNone;
  MaskShape mask_shape = MaskShape::kLS;
  float keep_probability = 0.7f;  // of each mask entry; the others are False / -inf
  size_t dead_every = 0;          // every dead_every-th mask row keeps no key (0: none)
  CausalKind causal = CausalKind::kNone;
  float scale = 0.0f;  // 0: the runtime's default 1/sqrt(E)

  // Per-score variants (sdpa_params.h). ALiBi slopes are alibi_scale times the
  // geometric ALiBi series 2^(-8 (h + 1) / Hq) (negative flips their sign); sinks are
  // unit random draws times sink_magnitude plus sink_offset, one per query head.
  size_t window = 0;
  bool alibi = false;
  float alibi_scale = 0.1f;
  float softcap = 0.0f;
  bool sinks = false;
  float sink_magnitude = 2.0f;
  float sink_offset = 0.0f;

  // Bad inputs, written after the random fill (sdpa_case_inputs.h WriteBadValues):
  // explicit elements, and two patterns: element 0 of keys 3, 7, 11, ... (+inf, -inf,
  // NaN in turn) and of query rows 2, 5, 8, ... (likewise).
  BadValue poison[kMaxBadValues] = {};
  size_t poison_count = 0;  // above kMaxBadValues: too many Poison calls (a case bug)
  bool nonfinite_keys = false;
  bool nonfinite_queries = false;
  ExtremeKind extreme = ExtremeKind::kNone;

  // Storage type of K and V: f16 / q8 narrow the f32 keys and values into a typed
  // cache (kernels/kv_store.h). The boards run f32 only.
  attnrt::KvType kv_type = attnrt::KvType::kF32;
  float logit_magnitude = 1.0f;  // scales q and k: 100 gives |scores| ~ 1e4
  bool misalign = false;         // every tensor one element past an aligned address
  bool want_weights = false;
  size_t workers = 1;
  uint32_t seed = 1;

  constexpr SdpaCase() = default;
  constexpr explicit SdpaCase(const char* case_name) : name(case_name) {}

  constexpr SdpaCase& Shape(size_t queries, size_t keys, size_t qk_dim, size_t v_dim) {
    L = queries, S = keys, E = qk_dim, Ev = v_dim;
    return *this;
  }
  constexpr SdpaCase& Heads(size_t query_heads, size_t key_value_heads) {
    q_heads = query_heads, kv_heads = key_value_heads;
    return *this;
  }
  constexpr SdpaCase& Mask(MaskKind kind, MaskShape shape = MaskShape::kLS) {
    mask = kind, mask_shape = shape;
    return *this;
  }
  constexpr SdpaCase& Alibi(float slope_scale = 0.1f) {
    alibi = true, alibi_scale = slope_scale;
    return *this;
  }
  constexpr SdpaCase& Sinks(float magnitude = 2.0f, float offset = 0.0f) {
    sinks = true, sink_magnitude = magnitude, sink_offset = offset;
    return *this;
  }
  // Beyond kMaxBadValues the last slot is overwritten and poison_count says so.
  constexpr SdpaCase& Poison(char tensor, size_t index, float value) {
    const size_t slot = poison_count < kMaxBadValues ? poison_count : kMaxBadValues - 1;
    poison[slot] = {tensor, index, value};
    ++poison_count;
    return *this;
  }
  constexpr SdpaCase& Batch(size_t b) { return Set(&SdpaCase::batch, b); }
  constexpr SdpaCase& Keep(float p) { return Set(&SdpaCase::keep_probability, p); }
  constexpr SdpaCase& DeadEvery(size_t rows) { return Set(&SdpaCase::dead_every, rows); }
  constexpr SdpaCase& Causal(CausalKind kind) { return Set(&SdpaCase::causal, kind); }
  constexpr SdpaCase& Scale(float s) { return Set(&SdpaCase::scale, s); }
  constexpr SdpaCase& Window(size_t w) { return Set(&SdpaCase::window, w); }
  constexpr SdpaCase& Softcap(float cap) { return Set(&SdpaCase::softcap, cap); }
  constexpr SdpaCase& NonfiniteKeys(bool on = true) { return Set(&SdpaCase::nonfinite_keys, on); }
  constexpr SdpaCase& NonfiniteQueries(bool on = true) {
    return Set(&SdpaCase::nonfinite_queries, on);
  }
  constexpr SdpaCase& Extreme(ExtremeKind kind) { return Set(&SdpaCase::extreme, kind); }
  constexpr SdpaCase& KvType(attnrt::KvType type) { return Set(&SdpaCase::kv_type, type); }
  constexpr SdpaCase& Logits(float magnitude) { return Set(&SdpaCase::logit_magnitude, magnitude); }
  constexpr SdpaCase& Misaligned(bool on = true) { return Set(&SdpaCase::misalign, on); }
  constexpr SdpaCase& Weights(bool on = true) { return Set(&SdpaCase::want_weights, on); }
  constexpr SdpaCase& Workers(size_t n) { return Set(&SdpaCase::workers, n); }
  constexpr SdpaCase& Seed(uint32_t s) { return Set(&SdpaCase::seed, s); }

  // True when some input is not finite on purpose (rows may then be NaN).
  constexpr bool HasNonFiniteInputs() const {
    return poison_count > 0 || nonfinite_keys || nonfinite_queries;
  }

 private:
  // The one-field setters above, written once.
  template <class Field>
  constexpr SdpaCase& Set(Field SdpaCase::*field, Field value) {
    this->*field = value;
    return *this;
  }
};

}  // namespace attnrt::testing
