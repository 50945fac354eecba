// linear_fw: the board's Linear (LinearRun: on the Cortex-M55 the Helium kernel,
// kernels/helium/linear_helium.cc; on the Cortex-M7 Highway's SCALAR target; for q8 and q4_0
// Highway's integer kernel, SCALAR on both) against ReferenceLinear (double accumulation over
// the same stored weights) for every weight type (f32, f16, bf16, q8 with f32 activations,
// q4_K and q6_K),
// and against ReferenceLinearQ8Activations (the same on 8-bit-rounded activations) for q8 and
// q4_0 as `auto` runs them, on sizes whose K and N are not multiples of 4 or 32 (the
// tails), K = 0, one row (decode) and 5 rows, with and without bias, with row strides
// wider than the rows (the padding must stay untouched); and for q8 and q4_0 a NaN or an
// infinity in a row's activations makes that row's outputs NaN and no other's.
// Each call is run as one worker taking every item, then as every item alone and as 3
// uneven workers: LinearWorkItems's contract says any split gives bit-identical results.
// Prints one line per case and type through semihosting; exits 0 only if all pass.
// Static buffers only, no heap.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "attnrt/kernels/weight_codecs.h"
#include "attnrt/kernels/helium.h"
#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/linear_kernel.h"
#include "attnrt/kernels/weight_q4_0.h"
#include "semihost.h"

#if ATTNRT_HELIUM
#include "kernels/helium/f16_mve.h"
#endif

namespace {

using attnrt::LinearActivations;
using attnrt::WeightType;

// The boards' bulk memory, as sdpa_fw's buffers.
#define LINEAR_FW_BULK(name) __attribute__((section(".attnrt_arena." #name), aligned(64)))

constexpr size_t kMaxK = 130, kMaxN = 384, kMaxRows = 5;
constexpr size_t kPad = 3;  // extra floats per row of x and y (strides wider than rows)
constexpr size_t kXStride = kMaxK + kPad;
constexpr size_t kMaxScratch = 16 * 1024;  // floats

LINEAR_FW_BULK(g_x) float g_x[kMaxRows * kXStride];
LINEAR_FW_BULK(g_w_f32) float g_w_f32[kMaxN * kMaxK];
LINEAR_FW_BULK(g_w) uint8_t g_w[kMaxN * kMaxK * 4 + 64 + 2 * kMaxN * 8];
LINEAR_FW_BULK(g_bias) float g_bias[kMaxN];
LINEAR_FW_BULK(g_want) float g_want[kMaxRows * (kMaxN + kPad)];
LINEAR_FW_BULK(g_all) float g_all[kMaxRows * (kMaxN + kPad)];
LINEAR_FW_BULK(g_split) float g_split[kMaxRows * (kMaxN + kPad)];
LINEAR_FW_BULK(g_scratch) float g_scratch[kMaxScratch];

void Print(const char* text) { semihost_write0(text); }
void PrintSize(const char* label, size_t value) {
  Print(label);
  semihost_write_size(value);
}

// xorshift32: the same numbers on every board.
uint32_t g_state = 12345u;
float Uniform() {  // [-1, 1)
  g_state ^= g_state << 13;
  g_state ^= g_state >> 17;
  g_state ^= g_state << 5;
  return static_cast<float>(g_state >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

float Abs(float x) { return x < 0.0f ? -x : x; }

struct Case {
  size_t K, N;
};

// K: 0, below 4, 4, one q8 block and one more, K % 32 and K % 4 nonzero, the lm's 96;
// N: 1, below 4, not a multiple of 4 or 8, the lm's MLP width.
constexpr Case kCases[] = {{0, 5},   {1, 1},   {3, 6},   {4, 4},   {32, 8},  {33, 7},
                           {37, 13}, {70, 9},  {96, 96}, {96, 384}, {100, 33}, {130, 17}};
// A call's weight type and the activations it asks for: q8 twice, with f32 activations
// (Helium's vector FMAs on the M55) and as `auto` runs it (the integer kernel).
struct Variant {
  WeightType type;
  LinearActivations activations;
};
constexpr Variant kVariants[] = {
    {WeightType::kF32, LinearActivations::kAuto}, {WeightType::kF16, LinearActivations::kAuto},
    {WeightType::kBF16, LinearActivations::kAuto}, {WeightType::kQ8, LinearActivations::kF32},
    {WeightType::kQ8, LinearActivations::kAuto},  {WeightType::kQ4_0, LinearActivations::kAuto},
    {WeightType::kQ4_K, LinearActivations::kAuto}, {WeightType::kQ6_K, LinearActivations::kAuto}};
constexpr size_t kVariantCount = sizeof(kVariants) / sizeof(kVariants[0]);

bool QuantizesActivations(const Variant& v) {
  return attnrt::AutoLinearKernel(v.type, v.activations).quantizes_activations;
}

// Largest |got - want| / max(1, max|want|) over a call's outputs; NaN counts as infinite.
float RelativeError(const attnrt::LinearParams& p, const float* got, const float* want) {
  float max_want = 1.0f, max_diff = 0.0f;
  for (size_t m = 0; m < p.rows; ++m) {
    for (size_t n = 0; n < p.out; ++n) {
      const float w = want[m * p.y_stride + n];
      if (Abs(w) > max_want) max_want = Abs(w);
      const float d = Abs(got[m * p.y_stride + n] - w);
      if (!(d <= max_diff)) max_diff = d == d ? d : __builtin_inff();
    }
  }
  return max_diff / max_want;
}

// The padding of y (columns out .. y_stride) still holds the fill pattern.
bool PaddingIntact(const attnrt::LinearParams& p, const float* y) {
  for (size_t m = 0; m < p.rows; ++m) {
    for (size_t n = p.out; n < p.y_stride; ++n) {
      if (memcmp(&y[m * p.y_stride + n], &g_want[m * p.y_stride + n], 4) != 0) return false;
    }
  }
  return true;
}

// Items [begin, end) as one worker with its own (aligned) scratch.
bool RunItems(const attnrt::LinearParams& p, size_t begin, size_t end) {
  if (attnrt::LinearScratchFloats(p) > kMaxScratch) return false;
  attnrt::LinearRun(p, begin, end, g_scratch);
  return true;
}

// The stored weight (g_w) of type t from g_w_f32.
void StoreWeights(WeightType t, size_t K, size_t N) {
  switch (t) {
    case WeightType::kF32:
      memcpy(g_w, g_w_f32, N * K * 4);
      return;
    case WeightType::kF16:
    case WeightType::kBF16: {
      uint16_t* w = reinterpret_cast<uint16_t*>(g_w);
      for (size_t i = 0; i < N * K; ++i) {
        w[i] = t == WeightType::kF16 ? attnrt::F32ToF16(g_w_f32[i]) : attnrt::F32ToBF16(g_w_f32[i]);
      }
      return;
    }
    case WeightType::kQ8: {
      int8_t* values = reinterpret_cast<int8_t*>(g_w);
      uint16_t* scales = reinterpret_cast<uint16_t*>(g_w + attnrt::Q8ScalesOffset(N, K));
      const size_t blocks = attnrt::Q8BlocksPerRow(K);
      for (size_t n = 0; n < N; ++n) {
        attnrt::QuantizeQ8Row(g_w_f32 + n * K, K, values + n * K, scales + n * blocks);
      }
      return;
    }
    case WeightType::kQ4_0: {
      const size_t row_bytes =
          attnrt::WeightBlocksPerRow(attnrt::kQ4_0Info, K) * attnrt::kQ4_0BlockBytes;
      for (size_t n = 0; n < N; ++n) {
        attnrt::QuantizeQ4_0Row(g_w_f32 + n * K, K, g_w + n * row_bytes);
      }
      return;
    }
    case WeightType::kQ4_K:
    case WeightType::kQ6_K: {  // K < 256: one zero-padded super-block a row
      const attnrt::WeightTypeInfo& info = *attnrt::FindWeightType(t);
      const size_t row_bytes = attnrt::WeightBlocksPerRow(info, K) * info.bytes;
      for (size_t n = 0; n < N; ++n) {
        if (t == WeightType::kQ4_K) {
          attnrt::QuantizeQ4_KRow(g_w_f32 + n * K, K, g_w + n * row_bytes);
        } else {
          attnrt::QuantizeQ6_KRow(g_w_f32 + n * K, K, g_w + n * row_bytes);
        }
      }
      return;
    }
  }
}

struct Totals {
  size_t checks = 0, failed = 0;
  float max_error[kVariantCount] = {};
};

// Tolerance of |got - want| / max(1, max|want|): the reference sums the same stored weights
// (and, for the integer kernel, the same rounded activations) in double, so this is float
// accumulation error only (K <= 130). The integer kernel's bound, (blocks + 19) * 2^-24 of
// sum |w x| (linear_int8_test.cc), stays below 5e-5 of these outputs.
float Tolerance(const Variant& v) { return QuantizesActivations(v) ? 5e-5f : 1e-5f; }

bool RunCall(const Case& c, const Variant& v, size_t vi, size_t rows, bool bias,
             Totals* totals) {
  const WeightType t = v.type;
  attnrt::LinearParams p{};
  p.rows = rows;
  p.in = c.K;
  p.out = c.N;
  p.x = g_x;
  p.x_stride = kXStride;
  p.w = g_w;
  p.bias = bias ? g_bias : nullptr;
  p.y_stride = c.N + kPad;
  p.w_type = t;
  p.activations = v.activations;

  // Fill pattern (a NaN, so a stray write is seen) in every output buffer.
  const uint32_t fill = 0x7fc0dead;
  for (size_t i = 0; i < rows * p.y_stride; ++i) {
    memcpy(&g_want[i], &fill, 4);
    memcpy(&g_all[i], &fill, 4);
    memcpy(&g_split[i], &fill, 4);
  }
  p.y = g_want;
  if (QuantizesActivations(v)) {
    attnrt::ReferenceLinearQ8Activations(p);
  } else {
    attnrt::ReferenceLinear(p);
  }
  // ReferenceLinear writes only columns < out; the padding keeps the pattern.

  const size_t items = attnrt::LinearWorkItems(p);
  bool pass = items > 0 || c.N == 0;
  p.y = g_all;
  pass = RunItems(p, 0, items) && pass;
  const float error = RelativeError(p, g_all, g_want);
  pass = pass && error <= Tolerance(v) && PaddingIntact(p, g_all);

  // Every item alone, last first; then 3 uneven workers. Both bit-identical to g_all.
  p.y = g_split;
  for (size_t i = items; i > 0; --i) pass = RunItems(p, i - 1, i) && pass;
  const bool alone = memcmp(g_split, g_all, rows * p.y_stride * 4) == 0;
  for (size_t i = 0; i < rows * p.y_stride; ++i) memcpy(&g_split[i], &fill, 4);
  const size_t cut1 = items / 3, cut2 = items - items / 4;
  pass = RunItems(p, cut2, items) && RunItems(p, 0, cut1) && RunItems(p, cut1, cut2) && pass;
  const bool three = memcmp(g_split, g_all, rows * p.y_stride * 4) == 0;
  pass = pass && alone && three;

  if (!(error <= totals->max_error[vi])) totals->max_error[vi] = error;
  ++totals->checks;
  if (!pass) {
    ++totals->failed;
    Print(" ");
    Print(attnrt::WeightTypeName(t));
    Print(QuantizesActivations(v) ? "" : v.activations == LinearActivations::kF32 ? "-f32act" : "");
    PrintSize(" M=", rows);
    Print(bias ? " bias" : " no-bias");
    PrintSize(" items=", items);
    Print(" error ");
    semihost_write_float(error, 9);
    Print(alone ? "" : " (items alone differ)");
    Print(three ? "" : " (3 workers differ)");
    Print(" FAIL");
  }
  return pass;
}

// The integer kernel (q8, q4_0 as `auto` runs them) with a NaN, +inf or -inf in the short
// last block of row 3 of 5 (K = 70): every output of that row is NaN, every other finite.
bool CheckNonFiniteActivations() {
  const float bad_values[] = {__builtin_nanf(""), __builtin_inff(), -__builtin_inff()};
  const WeightType types[] = {WeightType::kQ8, WeightType::kQ4_0};
  constexpr size_t K = 70, N = 13, kRows = 5, kBadRow = 3;
  for (size_t i = 0; i < N * K; ++i) g_w_f32[i] = Uniform();
  size_t failed = 0;
  for (WeightType t : types) {
    StoreWeights(t, K, N);
    for (float bad : bad_values) {
      const float saved = g_x[kBadRow * kXStride + 65];
      g_x[kBadRow * kXStride + 65] = bad;
      attnrt::LinearParams p{};
      p.rows = kRows;
      p.in = K;
      p.out = N;
      p.x = g_x;
      p.x_stride = kXStride;
      p.w = g_w;
      p.bias = g_bias;
      p.y = g_all;
      p.y_stride = N;
      p.w_type = t;
      bool pass = RunItems(p, 0, attnrt::LinearWorkItems(p));
      for (size_t m = 0; m < kRows; ++m) {
        for (size_t n = 0; n < N; ++n) {
          const float y = g_all[m * N + n];
          pass = pass && (m == kBadRow ? y != y : y - y == 0.0f);
        }
      }
      g_x[kBadRow * kXStride + 65] = saved;
      failed += pass ? 0 : 1;
    }
  }
  PrintSize("linear_fw: non-finite activations (q8, q4_0; NaN, +inf, -inf): ", failed);
  Print(failed == 0 ? " of 6 calls wrong | PASS\n" : " of 6 calls wrong | FAIL\n");
  return failed == 0;
}

#if ATTNRT_HELIUM
// The Helium Linear's f16 widening (f16_mve.h, for f16 weights and q8 scales) against
// the scalar F16ToF32 on all 65536 bit patterns: the same bits (any NaN for a NaN).
bool CheckF16Mve() {
  size_t wrong = 0;
  for (uint32_t h = 0; h < 65536; h += 4) {
    const int32_t in[4] = {int16_t(h), int16_t(h + 1), int16_t(h + 2), int16_t(h + 3)};
    float out[4];
    vst1q_f32(out, attnrt::helium::F16ToF32Mve(vld1q_s32(in)));
    for (uint32_t t = 0; t < 4; ++t) {
      const float want = attnrt::F16ToF32(static_cast<uint16_t>(h + t));
      const bool same = want != want ? out[t] != out[t] : memcmp(&out[t], &want, 4) == 0;
      wrong += same ? 0 : 1;
    }
  }
  PrintSize("linear_fw: f16_mve: ", wrong);
  Print(wrong == 0 ? " of 65536 f16 values widened wrongly | PASS\n"
                   : " of 65536 f16 values widened wrongly | FAIL\n");
  return wrong == 0;
}
#endif

}  // namespace

int main() {
  Print("linear_fw: LinearRun against ReferenceLinear, isa ");
  Print(attnrt::LinearIsa());
  Print("\n");
  bool isa_pass = true;
#if ATTNRT_HELIUM
  // The M55 must run the Helium Linear, not Highway's SCALAR code.
  isa_pass = strcmp(attnrt::LinearIsa(), "MVE") == 0;
  if (!isa_pass) Print("linear_fw: FAIL: expected isa MVE under ATTNRT_HELIUM\n");
  isa_pass = CheckF16Mve() && isa_pass;
#endif

  for (size_t i = 0; i < kMaxRows * kXStride; ++i) g_x[i] = Uniform();
  for (size_t i = 0; i < kMaxN; ++i) g_bias[i] = Uniform();
  isa_pass = CheckNonFiniteActivations() && isa_pass;

  Totals totals;
  size_t cases_passed = 0;
  constexpr size_t kCount = sizeof(kCases) / sizeof(kCases[0]);
  for (size_t ci = 0; ci < kCount; ++ci) {
    const Case& c = kCases[ci];
    for (size_t i = 0; i < c.N * c.K; ++i) g_w_f32[i] = Uniform();
    PrintSize("linear_fw: [", ci + 1);
    PrintSize("] K=", c.K);
    PrintSize(" N=", c.N);
    Print(" |");
    bool case_pass = true;
    for (size_t vi = 0; vi < kVariantCount; ++vi) {
      StoreWeights(kVariants[vi].type, c.K, c.N);
      for (size_t rows = 1; rows <= kMaxRows; rows += kMaxRows - 1) {  // 1 and 5
        for (int bias = 0; bias < 2; ++bias) {
          case_pass = RunCall(c, kVariants[vi], vi, rows, bias != 0, &totals) && case_pass;
        }
      }
    }
    Print(case_pass ? " PASS\n" : " | FAIL\n");
    cases_passed += case_pass ? 1 : 0;
  }

  PrintSize("linear_fw: ", cases_passed);
  PrintSize("/", kCount);
  PrintSize(" cases passed; ", totals.checks - totals.failed);
  PrintSize("/", totals.checks);
  Print(" calls passed (each: 1 worker, every item alone, 3 workers, bit-identical); max error");
  for (size_t vi = 0; vi < kVariantCount; ++vi) {
    Print(" ");
    Print(attnrt::WeightTypeName(kVariants[vi].type));
    Print(QuantizesActivations(kVariants[vi]) ? "-int8"
          : kVariants[vi].activations == LinearActivations::kF32 ? "-f32act" : "");
    Print(" ");
    semihost_write_float(totals.max_error[vi], 9);
  }
  Print(" (tolerance ");
  semihost_write_float(Tolerance(kVariants[0]), 9);
  Print(", integer kernel ");
  semihost_write_float(Tolerance(kVariants[kVariantCount - 1]), 9);
  Print(")\n");
  const bool pass = isa_pass && cases_passed == kCount && totals.failed == 0;
  Print(pass ? "linear_fw: PASS\n" : "linear_fw: FAIL\n");
  return pass ? 0 : 1;
}
