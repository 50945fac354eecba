// SdpaTester: builds one random attention problem from an SdpaCase (shapes, mask
// and its broadcast, causal rule, scale, bad values, misaligned buffers), runs a
// kernel variant through the runtime, and compares it with the scalar reference
// variant or a float64 oracle. One tester serves every variant, so a
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
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "attnrt/kernels/kv_store.h"
#include "attnrt/kernels/sdpa_kernel.h"
#include "attnrt/runtime/sdpa.h"
#include "common/sdpa_case.h"

namespace attnrt::testing {

// The case itself (SdpaCase, shared with the firmware images) is tests/common/sdpa_case.h.

// The case's one-line description (common/sdpa_case_text.h), for failure messages.
std::string Describe(const SdpaCase& c);
std::ostream& operator<<(std::ostream& os, const SdpaCase& c);

struct SdpaResult {
  std::vector<float> out, weights;
};

class SdpaTester {
 public:
  explicit SdpaTester(const SdpaCase& c);
  // Runs `kernel` through RunSdpa; returns the runtime's status message or "".
  std::string Run(const SdpaKernel& kernel, SdpaResult* result) const;
  // PyTorch's math in float64, written from the definitions in sdpa_params.h
  // (independent of the kernels' helpers): the oracle for the per-score variants.
  void Float64(SdpaResult* result) const;
  const SdpaParams& params() const { return params_; }
  size_t InputBytes() const;  // of the inputs it holds

 private:
  SdpaCase case_;
  // Element `index` of K or V as the kernels see it (typed: widened, times the row scale).
  double KeyAt(size_t index) const;
  double ValueAt(size_t index) const;
  // Flat index of the mask entry of score (b, h, i, j), from the case's mask shape
  // alone (not the runtime's strides), so a broadcast bug in the binding shows.
  size_t MaskIndex(size_t b, size_t h, size_t i, size_t j) const;
  void NarrowKeysAndValues();

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
// (once, not steered, if it has none). Without the instances whose InstanceName fully
// matches the regular expression in the environment variable ATTNRT_TEST_SKIP_INSTANCES
// (unset or empty: none skipped): CI's second qemu CPU model of a build skips what
// its first one ran unchanged (toolchains/run_cross_tests.sh).
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
  // The case's tester (its random inputs) and the reference kernel's and the float64
  // oracle's results on it, made once for all the instances of the test now running:
  // every instance builds the same cases from the same seeds, and making the inputs
  // and the oracles costs more than the kernel under test (far more under qemu). CTest
  // runs the instances of a test in one process (attnrt_add_gtest GROUP_INSTANCES).
  // Only for cases whose inputs the test does not change.
  std::shared_ptr<const SdpaTester> SharedTester(const SdpaCase& c);
  std::shared_ptr<const SdpaResult> ReferenceResult(const SdpaCase& c);
  std::shared_ptr<const SdpaResult> Float64Result(const SdpaCase& c);
};

// Every field of the case, exactly (floats by their bits): what the oracle results
// are keyed on. A field added to SdpaCase must be added here (sdpa_tester.cc checks
// the struct's size on 64-bit builds).
std::string CaseKey(const SdpaCase& c);

// Checks CheckFloat64 made in this process, for the parity counts per variant.
size_t Float64ChecksRun();

// The instance name of a variant: its name with '-' (not allowed in gtest names) as
// '_', then '_' and the Highway target when steered, e.g. hwy_flash_AVX2.
std::string InstanceName(const SdpaVariantTarget& param);
std::string VariantTestName(const ::testing::TestParamInfo<SdpaVariantTarget>& info);

}  // namespace attnrt::testing

// Instantiates `suite` (derived from SdpaRegistryTest) once per available
// variant and Highway target, e.g. Registry/SdpaVariantTest.HugeLogits/hwy_flash_SSE4
// or Registry/SdpaVariantTest.HugeLogits/xsimd_flash_avx2.
#define ATTNRT_INSTANTIATE_PER_VARIANT(suite)                                                  \
  INSTANTIATE_TEST_SUITE_P(Registry, suite,                                                    \
                           ::testing::ValuesIn(::attnrt::testing::AvailableVariantTargets()), \
                           ::attnrt::testing::VariantTestName)
