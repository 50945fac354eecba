// SdpaTester: builds one random attention problem (shapes, mask, causal rule,
// misaligned buffers), runs a kernel variant through the runtime, and compares
// it with the scalar reference variant. One tester serves every variant, so a
// new variant in the registry is covered without new test code: suites derive
// from SdpaRegistryTest and run once per available variant.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

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
  const SdpaParams& params() const { return params_; }

 private:
  SdpaCase case_;
  std::vector<float> q_, k_, v_, mask_f_;
  std::vector<uint8_t> mask_b_;
  SdpaParams params_;
};

// Largest |a - b| / max(1, max|b|), the tolerance measure the issue uses.
double MaxRelativeError(const std::vector<float>& a, const std::vector<float>& b);

// What every variant must meet against the reference, in MaxRelativeError.
constexpr double kSdpaTolerance = 1e-4;

const SdpaKernel& ReferenceKernel();

// The registry's variants this machine can run, by name.
std::vector<std::string> AvailableVariantNames();

// A suite parameterized by variant name (instantiate it with
// ATTNRT_INSTANTIATE_PER_VARIANT).
class SdpaRegistryTest : public ::testing::TestWithParam<std::string> {
 protected:
  const SdpaKernel& kernel() const;
  // Runs the case on the variant and on the reference and compares the outputs,
  // and the weights when the case wants them and the variant returns them.
  void Check(SdpaCase c);
};

// The test name of a variant: its name with '-' (not allowed in gtest names) as '_'.
std::string VariantTestName(const ::testing::TestParamInfo<std::string>& info);

}  // namespace attnrt::testing

// Instantiates `suite` (derived from SdpaRegistryTest) once per available
// variant, e.g. Registry/SdpaVariantTest.HugeLogits/hwy_flash.
#define ATTNRT_INSTANTIATE_PER_VARIANT(suite)                                                \
  INSTANTIATE_TEST_SUITE_P(Registry, suite,                                                  \
                           ::testing::ValuesIn(::attnrt::testing::AvailableVariantNames()), \
                           ::attnrt::testing::VariantTestName)
