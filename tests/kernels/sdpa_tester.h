// SdpaTester: builds one random attention problem (shapes, mask, causal rule,
// misaligned buffers), runs a kernel variant through the runtime, and compares
// it with the scalar reference variant. One tester serves every variant, so a
// new variant in the registry is covered without new test code: suites derive
// from SdpaRegistryTest and run once per available variant, and a Highway
// variant once per Highway target this CPU supports and the kernels were built
// for (AVX3, AVX2, SSE4 and SCALAR on an AVX-512 x86; SVE2, SVE and NEON on an
// AArch64 with SVE2), its dynamic dispatch steered to that target as a CPU with
// only that ISA would run it. (ARMv7 runs its one static NEON build, not steered.)
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "attnrt/kernels/kv_store.h"
#include "attnrt/kernels/sdpa_kernel.h"
#include "attnrt/runtime/sdpa.h"

namespace attnrt::testing {

struct SdpaCase {
  size_t batch = 1, q_heads = 1, kv_heads = 1, L = 1, S = 1, E = 1, Ev = 1;
  MaskKind mask = MaskKind::kNone;
  bool mask_per_head = false;  // (B, H, L, S) instead of (L, S)
  double keep_probability = 0.7;
  CausalKind causal = CausalKind::kNone;
  float logit_magnitude = 1.0f;  // scales q and k: 100 gives |scores| ~ 1e4
  bool misalign = false;         // every tensor starts one float past an aligned address
  bool want_weights = false;
  size_t workers = 1;
  uint32_t seed = 1;
  // Per-score variants (sdpa_params.h). ALiBi slopes are the geometric ALiBi series
  // 2^(-8 (h + 1) / Hq) times alibi_scale (negative flips their sign); sinks are
  // normals times sink_magnitude plus sink_offset, one per query head.
  size_t window = 0;
  bool alibi = false;
  float alibi_scale = 0.1f;
  float softcap = 0.0f;
  bool sinks = false;
  float sink_magnitude = 2.0f;
  float sink_offset = 0.0f;
  // Non-finite values written into K (element 0 of keys 3, 7, 11, ...: +inf, -inf, NaN
  // in turn) when set; scores of those keys are then +-inf or NaN.
  bool nonfinite_keys = false;
  // Non-finite values written into Q (element 0 of query rows 2, 5, 8, ...: +inf,
  // -inf, NaN in turn) when set.
  bool nonfinite_queries = false;
  // Storage type of K and V: f16 / q8 narrow the random f32 keys and values with
  // StoreKvRows into a typed cache (kv_store.h) that the kernels read.
  ElementType kv_type = ElementType::kF32;

  std::string Describe() const;
};

// A case of L queries and S keys with dims E and Ev; every other field default.
SdpaCase ShapedCase(size_t L, size_t S, size_t E, size_t Ev);

struct SdpaResult {
  std::vector<float> out, weights;
};

class SdpaTester {
 public:
  explicit SdpaTester(const SdpaCase& c);
  // Runs `kernel` through RunSdpa; returns the runtime's status message or "".
  std::string Run(const SdpaKernel& kernel, SdpaResult* result);
  // PyTorch's math in float64, written from the definitions in sdpa_params.h
  // (independent of the kernels' helpers): the oracle for the per-score variants.
  void Float64(SdpaResult* result) const;
  const SdpaParams& params() const { return params_; }

 private:
  SdpaCase case_;
  // Element `index` of K or V as the kernels see it (typed: widened, times the row scale).
  double KeyAt(size_t index) const;
  double ValueAt(size_t index) const;

  std::vector<float> q_, k_, v_, mask_f_;
  std::vector<uint8_t> k_typed_, v_typed_;  // f16 / q8 cache bytes (misaligned by one element)
  std::vector<float> k_scales_, v_scales_;
  std::vector<uint8_t> mask_b_;
  std::vector<float> slopes_, sinks_;
  SdpaParams params_;
};

// Largest |a - b| / max(1, max|b|), the tolerance measure the issue uses.
double MaxRelativeError(const std::vector<float>& a, const std::vector<float>& b);

// The same, but positions where both are NaN agree (PyTorch's NaN rows).
double MaxRelativeErrorNanAware(const std::vector<float>& a, const std::vector<float>& b);

// What every variant must meet against the reference, in MaxRelativeError.
constexpr double kSdpaTolerance = 1e-4;

const SdpaKernel& ReferenceKernel();

// The registry's variants this machine can run, by name.
std::vector<std::string> AvailableVariantNames();

// One variant, and for a Highway variant the Highway target its dispatch is
// steered to (hwy::SetSupportedTargetsForTest) while the test runs.
struct SdpaVariantTarget {
  std::string variant;
  int64_t target = 0;  // 0: not steered (reference, xsimd; hwy where dispatch is static)
};
void PrintTo(const SdpaVariantTarget& v, std::ostream* os);

// The Highway targets this CPU supports that `kernel` (a "hwy" variant) runs on
// when its dispatch is steered to them, best first: a target Highway knows but
// the kernels were not compiled for (SSSE3 here) would silently run another one.
// Empty where Highway's dispatch cannot be steered (static dispatch on ARMv7).
std::vector<int64_t> SteerableHighwayTargets(const SdpaKernel& kernel);

// Every available variant once, a Highway variant once per steerable target
// (once, not steered, if it has none).
std::vector<SdpaVariantTarget> AvailableVariantTargets();

// A suite parameterized by variant and Highway target (instantiate it with
// ATTNRT_INSTANTIATE_PER_VARIANT). SetUp steers Highway's dispatch to the target
// and asserts the variant reports it (isa()); TearDown restores the dispatch.
class SdpaRegistryTest : public ::testing::TestWithParam<SdpaVariantTarget> {
 protected:
  void SetUp() override;
  void TearDown() override;
  const SdpaKernel& kernel() const;
  // Runs the case on the variant and on the reference and compares the outputs,
  // and the weights when the case wants them and the variant returns them.
  void Check(SdpaCase c);
  // Runs the case on the variant and compares it with SdpaTester::Float64 (NaN-aware),
  // weights too when the variant returns them. Counts the checks it made.
  void CheckFloat64(SdpaCase c);
};

// Checks CheckFloat64 made in this process, for the parity counts per variant.
size_t Float64ChecksRun();

// The test name of a variant: its name with '-' (not allowed in gtest names) as
// '_', then '_' and the Highway target when steered, e.g. hwy_flash_AVX2.
std::string VariantTestName(const ::testing::TestParamInfo<SdpaVariantTarget>& info);

}  // namespace attnrt::testing

// Instantiates `suite` (derived from SdpaRegistryTest) once per available
// variant and Highway target, e.g. Registry/SdpaVariantTest.HugeLogits/hwy_flash_SSE4
// or Registry/SdpaVariantTest.HugeLogits/xsimd_flash_avx2.
#define ATTNRT_INSTANTIATE_PER_VARIANT(suite)                                                  \
  INSTANTIATE_TEST_SUITE_P(Registry, suite,                                                    \
                           ::testing::ValuesIn(::attnrt::testing::AvailableVariantTargets()), \
                           ::attnrt::testing::VariantTestName)
