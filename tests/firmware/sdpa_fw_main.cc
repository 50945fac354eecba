// sdpa_fw: every SDPA variant this board's build registers (on the Cortex-M55 that
// includes helium-flash, on the Cortex-M7 only the Highway ones on their SCALAR target),
// checked against the `reference` variant (double accumulation) on small cases that
// cover what the kernels must agree on: bool and float masks with every broadcast,
// both causal alignments with L < S and L > S, grouped-query heads, E and Ev that are
// not multiples of 4, fully masked rows (zeros, not NaN) and the L = 1 decode step.
//
// Prints one line per case (the error of each variant) and a summary through
// semihosting; exits 0 only if every variant is within tolerance on every case and
// writes exact zeros on every fully masked row. Static buffers only, no heap.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "attnrt/kernels/helium.h"
#include "sdpa_fw_case.h"

#if ATTNRT_HELIUM
#include "kernels/helium/exp_mve.h"
#endif

using attnrt::CausalKind;
using attnrt::MaskKind;
using attnrt_fw::MaskShape;
using attnrt_fw::Print;
using attnrt_fw::PrintSize;
using attnrt_fw::SdpaCase;

namespace {

// Largest |got - want| / max(1, max|want|), as the host variant tests measure it; the
// host suite allows 1e-4, float kernels against a double reference stay far below.
constexpr float kTolerance = 1e-5f;

// Short names for the case table.
constexpr MaskKind kNoMask = MaskKind::kNone, kBool = MaskKind::kBool, kFloat = MaskKind::kAdditive;
constexpr MaskShape kLS = MaskShape::kLS, kBHLS = MaskShape::kBHLS, kB1LS = MaskShape::kB1LS,
                    kB11S = MaskShape::kB11S, kL1 = MaskShape::kL1;
constexpr CausalKind kNoCausal = CausalKind::kNone, kUpperLeft = CausalKind::kUpperLeft,
                     kLowerRight = CausalKind::kLowerRight;
constexpr float kNaN = __builtin_nanf(""), kInf = __builtin_inff();
constexpr attnrt_fw::Extreme kNoExtreme = attnrt_fw::Extreme::kNone,
                             kLowestMask = attnrt_fw::Extreme::kLowestMask,
                             kHugeNegative = attnrt_fw::Extreme::kHugeNegative;

constexpr SdpaCase kCases[] = {
    // name             B  Hq Hkv  L    S   E  Ev  mask     shape  causal       dead
    {"plain",           1, 2, 2,  64,  64, 32, 32, kNoMask, kLS,   kNoCausal,   0, {}},
    {"decode-S512",     1, 2, 2,   1, 512, 32, 32, kNoMask, kLS,   kNoCausal,   0, {}},
    {"decode-gqa-lr",   1, 4, 1,   1, 100, 20, 12, kNoMask, kLS,   kLowerRight, 0, {}},
    {"causal-ul",       1, 2, 2,  45,  45, 20, 12, kNoMask, kLS,   kUpperLeft,  0, {}},
    {"causal-ul-L>S",   1, 1, 1,  70,  37, 16, 16, kNoMask, kLS,   kUpperLeft,  0, {}},
    {"causal-lr-L>S",   1, 2, 1,  70,  37, 17,  9, kNoMask, kLS,   kLowerRight, 0, {}},
    {"causal-lr-L<S",   2, 1, 1,  20, 130, 16, 16, kNoMask, kLS,   kLowerRight, 0, {}},
    {"bool-LS-dead",    2, 2, 2,  33,  70, 24, 40, kBool,   kLS,   kNoCausal,   5, {}},
    {"bool-BHLS-ul",    2, 2, 2,  40,  40, 13,  7, kBool,   kBHLS, kUpperLeft,  0, {}},
    {"float-LS-lr-dead",1, 2, 2,  30,  75,  8, 24, kFloat,  kLS,   kLowerRight, 7, {}},
    {"float-B1LS",      2, 3, 3,  17,  66,  5,  3, kFloat,  kB1LS, kNoCausal,   0, {}},
    {"bool-keypad-B11S",2, 2, 2,   9, 130, 12, 20, kBool,   kB11S, kNoCausal,   0, {}},
    {"float-L1-dead",   1, 2, 2,  25,  33, 16, 16, kFloat,  kL1,   kNoCausal,   4, {}},
    {"bool-L1-lr",      1, 2, 2,  12,  50,  9, 11, kBool,   kL1,   kLowerRight, 3, {}},
    {"gqa-3x",          1, 6, 2,  21, 130, 16, 33, kNoMask, kLS,   kNoCausal,   0, {}},
    {"tiny",            1, 1, 1,   2,   3,  1,  5, kNoMask, kLS,   kNoCausal,   0, {}},
    // Non-finite inputs (PyTorch's math): a NaN or +inf score of a key the row may attend
    // makes the row NaN; a NaN in V reaches the rows that attend its key; -inf weighs 0.
    // Poisoned elements (flat index): q (0,1,2,3) of (2,3,7,8); k (0,1,2,0) of (1,2,7,8);
    // q (0,1,65,0) of (1,2,70,16) and k (0,0,130,2) of (1,2,150,16), a key no row may see
    // (upper-left, L = 70), so its +inf must not leak; v (0,1,3,2) of (1,2,9,4); mask (2,5)
    // of (6,8).
    {"nan-q",           2, 3, 3,   7,   9,  8,  5, kNoMask, kLS,   kNoCausal,   0,
     {{'q', 75, kNaN}}},
    {"inf-k-lr",        1, 2, 2,   5,   7,  8,  8, kNoMask, kLS,   kLowerRight, 0,
     {{'k', 72, kInf}}},
    {"nan-q-inf-k-ul",  1, 2, 2,  70, 150, 16, 16, kNoMask, kLS,   kUpperLeft,  0,
     {{'q', 2160, kNaN}, {'k', 2082, kInf}}},
    {"nan-v",           1, 2, 2,   6,   9, 16,  4, kNoMask, kLS,   kNoCausal,   0,
     {{'v', 50, kNaN}}},
    {"nan-float-mask",  1, 1, 1,   6,   8, 10,  3, kFloat,  kLS,   kNoCausal,   0,
     {{'m', 21, kNaN}}},
    // Finite scores however negative (issue 17 item 6), also checked without the
    // reference (ExtremeRowsError): float masks of -FLT_MAX beside -inf (uniform over
    // the -FLT_MAX keys; mask (3, 7) = 0 makes row 3 one-hot), and every score below
    // -1e30 (one-hot on the best key), across 64-key tiles and with dead rows.
    {"lowest-float-mask",1, 2, 2, 20, 130, 16, 16, kFloat,  kLS,   kNoCausal,   5,
     {{'m', 397, 0.0f}}, kLowestMask},
    {"lowest-mask-lr",  1, 2, 1,  18,  70,  8,  5, kFloat,  kB1LS, kLowerRight, 4, {},
     kLowestMask},
    {"huge-neg-logits", 1, 2, 2,   9, 130,  4, 12, kNoMask, kLS,   kNoCausal,   0, {},
     kHugeNegative},
    {"huge-neg-decode", 1, 2, 1,   1,2100,  1,  8, kNoMask, kLS,   kLowerRight, 0, {},
     kHugeNegative},
    // Per-score variants: window (tiles before it skipped), ALiBi, softcap, sinks, alone
    // and together, with masks, GQA and decode.
    //                                                                       window alibi cap sinks
    {"window-ul",       1, 2, 2,  70,  70, 16, 16, kNoMask, kLS,   kUpperLeft,  0, {}, kNoExtreme,
     9, false, 0.0f, false},
    {"alibi-sinks-lr",  1, 4, 2,  33, 130, 16,  8, kFloat,  kLS,   kLowerRight, 5, {}, kNoExtreme,
     0, true, 0.0f, true},
    {"cap-window-decode",1, 2, 1,  1,2100, 16, 16, kNoMask, kLS,   kLowerRight, 0, {}, kNoExtreme,
     512, false, 5.0f, true},
    {"all-four-bool",   1, 2, 2,  65, 130, 12, 20, kBool,   kBHLS, kUpperLeft,  0, {}, kNoExtreme,
     64, true, 3.0f, true},
};

ATTNRT_FW_BULK(g_want_out) float g_want_out[attnrt_fw::kMaxOut];
ATTNRT_FW_BULK(g_want_weights) float g_want_weights[attnrt_fw::kMaxWeights];
ATTNRT_FW_BULK(g_out) float g_out[attnrt_fw::kMaxOut];
ATTNRT_FW_BULK(g_weights) float g_weights[attnrt_fw::kMaxWeights];
ATTNRT_FW_BULK(g_dead_row) uint8_t g_dead_row[attnrt_fw::kMaxOut];  // per (b, h, i): no key allowed

float Abs(float x) { return x < 0.0f ? -x : x; }

// Largest |got - want| / max(1, max|want|) over the elements where the reference is
// finite. Where it is not (the NaN rows of the non-finite cases), an output must match it
// (NaN where want is NaN, the same infinity otherwise); weights are not compared there:
// whether a key a NaN row may not attend weighs NaN (PyTorch's math, the reference) or 0
// (kernels that never visit masked keys) is not pinned down. A mismatch, or a NaN where
// the reference is finite, is an infinite error.
float RelativeError(const float* got, const float* want, size_t n, bool match_non_finite) {
  float max_want = 1.0f, max_diff = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    const bool want_finite = want[i] - want[i] == 0.0f;
    if (!want_finite) {
      const bool same = want[i] != want[i] ? got[i] != got[i] : got[i] == want[i];
      if (match_non_finite && !same) max_diff = __builtin_inff();
      continue;
    }
    if (Abs(want[i]) > max_want) max_want = Abs(want[i]);
    const float d = Abs(got[i] - want[i]);
    if (!(d <= max_diff)) max_diff = d == d ? d : __builtin_inff();
  }
  return max_diff / max_want;
}

// Marks the query rows no key may be attended by (mask and causal rule together), with
// ApplyMask, the definition the kernels share. Returns how many there are.
size_t MarkDeadRows(const attnrt::SdpaParams& p) {
  size_t dead = 0;
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t h = 0; h < p.q_heads; ++h) {
      for (size_t i = 0; i < p.q_len; ++i) {
        const uint8_t* mask_row =
            p.mask_kind == MaskKind::kNone ? nullptr : attnrt::MaskRowBytes(p, b, h, i);
        bool any = false;
        for (size_t j = 0; j < p.kv_len && !any; ++j) {
          any = attnrt::ApplyMask(p, mask_row, h, i, j, 0.0f) > attnrt::kMaskedScore;
        }
        const size_t row = (b * p.q_heads + h) * p.q_len + i;
        g_dead_row[row] = any ? 0 : 1;
        dead += any ? 0 : 1;
      }
    }
  }
  return dead;
}

// For the Extreme cases, without the reference or ApplyMask: the scores as PyTorch
// forms them (float32 score + float32 mask; -inf, False and the causal rule mask a key)
// leave each live row a set of keys tied at the max with every other key more than 110
// below it (e^-110 < 1e-47), so the row's output is the mean of those keys' V rows.
// Returns max |out - that| / max(1, max |that|), or +inf if a row is not so decided.
float ExtremeRowsError(const attnrt::SdpaParams& p, const float* out) {
  const size_t group = p.q_heads / p.kv_heads;
  float max_diff = 0.0f, max_want = 1.0f;
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t h = 0; h < p.q_heads; ++h) {
      const float* k = p.k + b * p.k_strides.batch + (h / group) * p.k_strides.head;
      const float* v = p.v + b * p.v_strides.batch + (h / group) * p.v_strides.head;
      for (size_t i = 0; i < p.q_len; ++i) {
        const float* q = p.q + b * p.q_strides.batch + h * p.q_strides.head + i * p.q_strides.row;
        const uint8_t* mask_row =
            p.mask_kind == MaskKind::kNone ? nullptr : attnrt::MaskRowBytes(p, b, h, i);
        float max = -kInf;
        for (int pass = 0; pass < 2; ++pass) {  // 0: the max; 1: ties and the gap
          size_t tied = 0;
          double mean[64] = {};
          for (size_t j = 0; j < p.kv_len; ++j) {
            float bias;
            if (!attnrt::KeyAllowed(p, mask_row, i, j, &bias) || bias == -kInf) continue;
            double dot = 0.0;
            for (size_t e = 0; e < p.qk_dim; ++e) {
              dot += static_cast<double>(q[e]) * static_cast<double>(k[j * p.k_strides.row + e]);
            }
            const float s = static_cast<float>(dot * static_cast<double>(p.scale)) + bias;
            if (pass == 0) {
              if (s > max) max = s;
            } else if (s == max) {
              ++tied;
              for (size_t c = 0; c < p.v_dim && c < 64; ++c) {
                mean[c] += static_cast<double>(v[j * p.v_strides.row + c]);
              }
            } else if (!(static_cast<double>(max) - static_cast<double>(s) > 110.0)) {
              return kInf;  // not one-hot or uniform: the case is not what it claims
            }
          }
          if (pass == 0) {
            if (max == -kInf) break;  // dead row: DeadRowsAreZero checks it
            continue;
          }
          const float* o = out + b * p.out_strides.batch + h * p.out_strides.head +
                           i * p.out_strides.row;
          for (size_t c = 0; c < p.v_dim; ++c) {
            if (c >= 64) return kInf;
            const float want = static_cast<float>(mean[c] / static_cast<double>(tied));
            if (Abs(want) > max_want) max_want = Abs(want);
            const float d = Abs(o[c] - want);
            if (!(d <= max_diff)) max_diff = d == d ? d : kInf;
          }
        }
      }
    }
  }
  return max_diff / max_want;
}

// True when every element of every dead row of `out` is exactly 0 (not NaN).
bool DeadRowsAreZero(const attnrt::SdpaParams& p, const float* out) {
  const size_t rows = p.batch * p.q_heads * p.q_len;
  for (size_t r = 0; r < rows; ++r) {
    if (!g_dead_row[r]) continue;
    for (size_t c = 0; c < p.v_dim; ++c) {
      if (out[r * p.v_dim + c] != 0.0f) return false;
    }
  }
  return true;
}

void FillNaN(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = __builtin_nanf("");
}

const char* MaskName(MaskKind m) {
  return m == MaskKind::kBool ? "bool" : m == MaskKind::kAdditive ? "float" : "none";
}

const char* CausalName(CausalKind c) {
  return c == CausalKind::kUpperLeft    ? "upper-left"
         : c == CausalKind::kLowerRight ? "lower-right"
                                        : "none";
}

#if ATTNRT_HELIUM
// helium-flash's softmax exp against double-precision e^x (the M55's scalar FP64 unit)
// on 2^16 points over [-87, 88) and on the inputs whose result must be exactly 0.
// Returns false on an error above 4e-7 relative or a nonzero result below -87.7.
bool CheckExpMve() {
  constexpr int kSteps = 1 << 16;
  double max_error = 0.0;
  for (int i = 0; i < kSteps; i += 4) {
    float x[4], y[4];
    for (int t = 0; t < 4; ++t) x[t] = -87.0f + 175.0f * static_cast<float>(i + t) / kSteps;
    vst1q_f32(y, attnrt::helium::ExpMve(vld1q_f32(x)));
    for (int t = 0; t < 4; ++t) {
      const double want = __builtin_exp(static_cast<double>(x[t]));
      const double error = __builtin_fabs(static_cast<double>(y[t]) - want) / want;
      if (!(error <= max_error)) max_error = error;
    }
  }
  const float tiny[4] = {-87.7f, -100.0f, -1e30f, -__builtin_inff()};
  float zero[4];
  vst1q_f32(zero, attnrt::helium::ExpMve(vld1q_f32(tiny)));
  const bool zeros = zero[0] == 0.0f && zero[1] == 0.0f && zero[2] == 0.0f && zero[3] == 0.0f;
  const bool pass = max_error <= 4e-7 && zeros;
  Print("sdpa_fw: exp_mve: max relative error ");
  semihost_write_float(static_cast<float>(max_error), 9);
  Print(" over [-87, 88); e^x for x <= -87.7 ");
  Print(zeros ? "is 0" : "is NOT 0");
  Print(pass ? " | PASS\n" : " | FAIL\n");
  return pass;
}
#endif

struct Totals {
  size_t checks = 0, failed = 0;
  float max_error = 0.0f;
  const char* max_kernel = "-";
  const char* max_case = "-";
};

// Runs one case on every variant; prints its line. Returns false if any variant failed.
bool RunOneCase(const SdpaCase& c, size_t index, Totals* totals) {
  attnrt::SdpaParams want;
  if (!attnrt_fw::SetUpCase(c, 1000u + static_cast<uint32_t>(index), &want)) return false;
  const size_t out_n = want.batch * want.q_heads * want.q_len * want.v_dim;
  const size_t weights_n = want.batch * want.q_heads * want.q_len * want.kv_len;
  const size_t dead = MarkDeadRows(want);

  PrintSize("sdpa_fw: [", index + 1);
  Print("] ");
  Print(c.name);
  PrintSize(": B=", c.batch);
  PrintSize(" Hq=", c.q_heads);
  PrintSize(" Hkv=", c.kv_heads);
  PrintSize(" L=", c.L);
  PrintSize(" S=", c.S);
  PrintSize(" E=", c.E);
  PrintSize(" Ev=", c.Ev);
  Print(" mask=");
  Print(MaskName(c.mask));
  Print(" causal=");
  Print(CausalName(c.causal));
  PrintSize(" dead_rows=", dead);
  Print(" |");

  FillNaN(g_want_out, out_n);
  FillNaN(g_want_weights, weights_n);
  want.out = g_want_out;
  want.weights = g_want_weights;
  attnrt::Status st = attnrt_fw::RunCase(
      want, *attnrt::FindSdpaKernel(attnrt::SdpaFamily::kReference, attnrt::SdpaAlgorithm::kReference));
  if (!st.ok()) {
    Print(" reference: ");
    Print(st.message());
    Print(" FAIL\n");
    return false;
  }

  bool all_pass = true;
  if (c.extreme != attnrt_fw::Extreme::kNone) {
    const float error = ExtremeRowsError(want, g_want_out);
    Print(" reference(exact) ");
    semihost_write_float(error, 9);
    if (!(error <= kTolerance)) {
      Print("(FAIL)");
      all_pass = false;
    }
  }
  for (size_t v = 0; v < attnrt::SdpaKernelCount(); ++v) {
    const attnrt::SdpaKernel& kernel = attnrt::SdpaKernelAt(v);
    if (!kernel.available() || kernel.algorithm == attnrt::SdpaAlgorithm::kReference) continue;
    attnrt::SdpaParams p = want;
    FillNaN(g_out, out_n);
    p.out = g_out;
    p.weights = nullptr;
    if (kernel.returns_weights) {
      FillNaN(g_weights, weights_n);
      p.weights = g_weights;
    }
    Print(" ");
    Print(kernel.name);
    Print(" ");
    st = attnrt_fw::RunCase(p, kernel);
    bool pass = st.ok();
    if (pass) {
      float error = RelativeError(g_out, g_want_out, out_n, true);
      if (kernel.returns_weights) {
        const float w_error = RelativeError(g_weights, g_want_weights, weights_n, false);
        if (!(w_error <= error)) error = w_error;
      }
      semihost_write_float(error, 9);
      pass = error <= kTolerance;
      if (c.extreme != attnrt_fw::Extreme::kNone && !(ExtremeRowsError(p, g_out) <= kTolerance)) {
        Print("(not one-hot/uniform)");
        pass = false;
      }
      if (!DeadRowsAreZero(p, g_out)) {
        Print("(dead row not zero)");
        pass = false;
      }
      if (!(error <= totals->max_error)) {
        totals->max_error = error;
        totals->max_kernel = kernel.name;
        totals->max_case = c.name;
      }
    } else {
      Print(st.message());
    }
    ++totals->checks;
    if (!pass) {
      ++totals->failed;
      Print("(FAIL)");
    }
    all_pass = all_pass && pass;
  }
  Print(all_pass ? " | PASS\n" : " | FAIL\n");
  return all_pass;
}

}  // namespace

int main() {
  Print("sdpa_fw: SDPA variants against the reference, variants:");
  for (size_t v = 0; v < attnrt::SdpaKernelCount(); ++v) {
    const attnrt::SdpaKernel& kernel = attnrt::SdpaKernelAt(v);
    Print(" ");
    Print(kernel.name);
    Print("(");
    Print(kernel.isa());
    Print(")");
  }
  Print("\n");

  bool exp_pass = true;
#if ATTNRT_HELIUM
  exp_pass = CheckExpMve();
#endif
  constexpr size_t kCount = sizeof(kCases) / sizeof(kCases[0]);
  Totals totals;
  size_t cases_passed = 0;
  for (size_t i = 0; i < kCount; ++i) cases_passed += RunOneCase(kCases[i], i, &totals) ? 1 : 0;

  PrintSize("sdpa_fw: ", cases_passed);
  PrintSize("/", kCount);
  PrintSize(" cases passed; ", totals.checks - totals.failed);
  PrintSize("/", totals.checks);
  Print(" variant checks passed; max error ");
  semihost_write_float(totals.max_error, 9);
  Print(" (");
  Print(totals.max_kernel);
  Print(", ");
  Print(totals.max_case);
  Print(") tolerance ");
  semihost_write_float(kTolerance, 9);
  Print("\n");
  const bool pass = exp_pass && cases_passed == kCount && totals.failed == 0 && totals.checks > 0;
  Print(pass ? "sdpa_fw: PASS\n" : "sdpa_fw: FAIL\n");
  return pass ? 0 : 1;
}
