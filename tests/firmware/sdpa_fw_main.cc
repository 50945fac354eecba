// sdpa_fw: every SDPA variant this board's build registers (on the Cortex-M55 that
// includes helium-flash, on the Cortex-M7 only the Highway ones on their SCALAR target),
// checked against the `reference` variant (double accumulation) on the small cases of
// tests/common/sdpa_board_cases.h (the host suite runs the same table): masks with
// every broadcast, both causal alignments, GQA, odd E and Ev, fully masked rows (zeros,
// not NaN), decode, non-finite and extreme inputs, a custom scale, the score variants.
//
// Prints one line per case (the error of each variant) and a summary through
// semihosting; exits 0 only if every variant is within tolerance on every case and
// writes exact zeros on every fully masked row. Static buffers only, no heap.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "attnrt/kernels/helium.h"
#include "common/sdpa_board_cases.h"
#include "common/sdpa_case_text.h"
#include "sdpa_fw_case.h"

#if ATTNRT_HELIUM
#include "kernels/helium/exp_mve.h"
#endif

using attnrt::MaskKind;
using attnrt::testing::ExtremeKind;
using attnrt::testing::kBoardCaseCount;
using attnrt::testing::kBoardCases;
using attnrt::testing::kBoardCaseSeed;
using attnrt_fw::Print;
using attnrt_fw::PrintSize;
using attnrt_fw::SdpaCase;

namespace {

// Largest |got - want| / max(1, max|want|), as the host variant tests measure it; the
// host suite allows 1e-4, float kernels against a double reference stay far below.
constexpr float kTolerance = 1e-5f;
constexpr float kInf = __builtin_inff();

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

// Runs one case (its seed kBoardCaseSeed + index) on every variant; prints its line.
// Returns false if any variant failed.
bool RunOneCase(const SdpaCase& table_case, size_t index, Totals* totals) {
  const SdpaCase c = SdpaCase(table_case).Seed(kBoardCaseSeed + static_cast<uint32_t>(index));
  attnrt::SdpaParams want;
  if (!attnrt_fw::SetUpCase(c, &want)) return false;
  const size_t out_n = want.batch * want.q_heads * want.q_len * want.v_dim;
  const size_t weights_n = want.batch * want.q_heads * want.q_len * want.kv_len;
  const size_t dead = MarkDeadRows(want);

  char description[256];
  attnrt::testing::Describe(c, description, sizeof(description));
  PrintSize("sdpa_fw: [", index + 1);
  Print("] ");
  Print(description);
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
  if (c.extreme != ExtremeKind::kNone) {
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
      if (c.extreme != ExtremeKind::kNone && !(ExtremeRowsError(p, g_out) <= kTolerance)) {
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
  constexpr size_t kCount = kBoardCaseCount;
  Totals totals;
  size_t cases_passed = 0;
  for (size_t i = 0; i < kCount; ++i) {
    cases_passed += RunOneCase(kBoardCases[i], i, &totals) ? 1 : 0;
  }

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
