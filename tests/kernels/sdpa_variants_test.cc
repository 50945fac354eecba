// Every SDPA variant in the registry against the scalar reference variant over
// sizes that straddle tile and vector edges, every mask kind and broadcast,
// causal both ways, dead rows, huge logits, misaligned buffers, GQA, E != Ev,
// L != S and several workers.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "attnrt/kernels/linear.h"
#include "hwy/targets.h"
#include "kernels/sdpa_tester.h"

namespace attnrt::testing {
namespace {

class SdpaVariantTest : public SdpaRegistryTest {};
ATTNRT_INSTANTIATE_PER_VARIANT(SdpaVariantTest);

TEST_P(SdpaVariantTest, SizesStraddlingTileAndVectorEdges) {
  const size_t lens[] = {1, 2, 3, 31, 32, 33, 63, 64, 65, 97, 129};
  const size_t dims[][2] = {{1, 1}, {3, 5}, {16, 16}, {64, 64}, {67, 33}, {8, 129}};
  uint32_t seed = 0;
  for (size_t L : lens) {
    for (size_t S : lens) {
      SdpaCase c = ShapedCase(L, S, dims[seed % 6][0], dims[seed % 6][1]);
      c.want_weights = true;
      c.seed = ++seed;
      Check(c);
    }
  }
}

TEST_P(SdpaVariantTest, EveryMaskKindAndBroadcastWithCausal) {
  const MaskKind masks[] = {MaskKind::kNone, MaskKind::kBool, MaskKind::kAdditive};
  const CausalKind causals[] = {CausalKind::kNone, CausalKind::kUpperLeft, CausalKind::kLowerRight};
  const size_t shapes[][2] = {{37, 70}, {70, 37}, {64, 64}, {1, 130}, {130, 1}};
  uint32_t seed = 100;
  for (MaskKind m : masks) {
    for (bool per_head : {false, true}) {
      for (CausalKind causal : causals) {
        for (const auto& shape : shapes) {
          SdpaCase c = ShapedCase(shape[0], shape[1], 24, 40);
          c.batch = 2;
          c.q_heads = 2;
          c.kv_heads = 2;
          c.mask = m;
          c.mask_per_head = per_head;
          c.causal = causal;
          c.want_weights = true;
          c.seed = ++seed;
          Check(c);
        }
      }
    }
  }
}

TEST_P(SdpaVariantTest, FullyMaskedRowsGiveZerosNotNaN) {
  for (MaskKind m : {MaskKind::kBool, MaskKind::kAdditive}) {
    SdpaCase c = ShapedCase(40, 70, 16, 16);
    c.mask = m;
    c.keep_probability = 0.0;  // every key masked in every row
    c.want_weights = kernel().returns_weights;
    SdpaTester tester(c);
    SdpaResult got;
    ASSERT_EQ(tester.Run(kernel(), &got), "");
    for (float x : got.out) ASSERT_EQ(x, 0.0f) << c.Describe();
    for (float x : got.weights) ASSERT_EQ(x, 0.0f) << c.Describe();
  }
  // Lower-right with L > S: the first L - S rows see no key at all.
  SdpaCase c = ShapedCase(100, 30, 8, 8);
  c.causal = CausalKind::kLowerRight;
  c.want_weights = kernel().returns_weights;
  Check(c);
  SdpaTester tester(c);
  SdpaResult got;
  ASSERT_EQ(tester.Run(kernel(), &got), "");
  for (size_t i = 0; i < (c.L - c.S) * c.Ev; ++i) ASSERT_EQ(got.out[i], 0.0f) << i;
}

TEST_P(SdpaVariantTest, PartlyMaskedRowsMixedWithDeadRows) {
  SdpaCase c = ShapedCase(67, 131, 32, 17);
  c.mask = MaskKind::kBool;
  c.keep_probability = 0.02;  // some rows keep nothing, some a single key
  c.want_weights = true;
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    c.seed = seed;
    Check(c);
  }
}

TEST_P(SdpaVariantTest, HugeLogits) {
  for (size_t E : {1, 16, 64}) {
    SdpaCase c = ShapedCase(33, 65, E, 16);
    c.logit_magnitude = 100.0f;  // |score| around 1e4
    c.want_weights = true;
    c.causal = E == 16 ? CausalKind::kUpperLeft : CausalKind::kNone;
    Check(c);
  }
}

TEST_P(SdpaVariantTest, MisalignedBuffers) {
  for (size_t n : {5, 64, 100}) {
    SdpaCase c = ShapedCase(n, n + 3, 19, 21);
    c.misalign = true;
    c.mask = MaskKind::kAdditive;
    c.want_weights = true;
    Check(c);
  }
}

TEST_P(SdpaVariantTest, GroupedQueryAttention) {
  const size_t groups[][2] = {{6, 2}, {4, 1}, {8, 8}, {3, 1}};
  for (const auto& g : groups) {
    SdpaCase c = ShapedCase(45, 77, 32, 48);
    c.batch = 2;
    c.q_heads = g[0];
    c.kv_heads = g[1];
    c.causal = CausalKind::kLowerRight;
    c.want_weights = true;
    Check(c);
  }
}

TEST_P(SdpaVariantTest, SeveralWorkersMatchOne) {
  for (size_t workers : {2, 3}) {
    SdpaCase c = ShapedCase(200, 150, 64, 64);
    c.batch = 2;
    c.q_heads = 3;
    c.kv_heads = 3;
    c.causal = CausalKind::kUpperLeft;
    c.workers = workers;
    c.want_weights = true;
    Check(c);
  }
}

TEST_P(SdpaVariantTest, CustomScaleIsUsed) {
  const SdpaCase c = ShapedCase(20, 20, 16, 16);
  SdpaTester base(c);
  SdpaResult a, b;
  ASSERT_EQ(base.Run(kernel(), &a), "");
  SdpaTester scaled(c);
  const_cast<SdpaParams&>(scaled.params()).scale = 1.7f;
  ASSERT_EQ(scaled.Run(kernel(), &b), "");
  SdpaResult want;
  ASSERT_EQ(scaled.Run(ReferenceKernel(), &want), "");
  EXPECT_LE(MaxRelativeError(b.out, want.out), kSdpaTolerance);
  EXPECT_GT(MaxRelativeError(a.out, b.out), 1e-3) << "scale had no effect";
}

TEST_P(SdpaVariantTest, WeightsFromAVariantThatCannotReturnThemAreRefused) {
  if (kernel().returns_weights) GTEST_SKIP() << "variant returns weights";
  SdpaCase c = ShapedCase(4, 4, 4, 4);
  c.want_weights = true;
  SdpaTester tester(c);
  SdpaResult got;
  EXPECT_NE(tester.Run(kernel(), &got).find("cannot return attention weights"), std::string::npos);
}

TEST_P(SdpaVariantTest, FlashScratchDoesNotGrowWithSequenceLength) {
  if (std::strstr(kernel().name, "flash") == nullptr) GTEST_SKIP() << "not a flash variant";
  SdpaParams small, large;
  small.q_len = small.kv_len = 64;
  large.q_len = large.kv_len = 65536;
  small.qk_dim = large.qk_dim = small.v_dim = large.v_dim = 64;
  EXPECT_EQ(kernel().scratch_floats(small), kernel().scratch_floats(large));
}

TEST(SdpaRegistry, ListsReferenceAndVectorizedVariants) {
  ASSERT_NE(FindSdpaKernel("reference"), nullptr);
  ASSERT_NE(FindSdpaKernel("hwy-materialized"), nullptr);
  ASSERT_NE(FindSdpaKernel("hwy-flash"), nullptr);
  EXPECT_EQ(FindSdpaKernel("no-such-kernel"), nullptr);
  for (size_t i = 0; i < SdpaKernelCount(); ++i) {
    std::printf("variant %-20s isa %s\n", SdpaKernelAt(i).name, SdpaKernelAt(i).isa());
  }
}

std::string TargetNames(const std::vector<int64_t>& targets) {
  std::string names;
  for (int64_t t : targets) names += std::string(names.empty() ? "" : " ") + hwy::TargetName(t);
  return names;
}

// The suites above run each Highway variant once per target it can be steered
// to. A variant that lost its dynamic dispatch (always its best target) would
// quietly be tested on one target only: its targets must be those of the Linear
// kernels, built for the same targets in the same library (and tested per
// target in kernels_nn).
TEST(SdpaRegistry, HighwayVariantsRunOnEveryKernelTarget) {
  std::vector<int64_t> linear;
  const uint64_t supported = static_cast<uint64_t>(hwy::SupportedTargets());
  for (uint64_t bits = supported; bits != 0; bits &= bits - 1) {
    const int64_t target = static_cast<int64_t>(bits & (~bits + 1));
    hwy::SetSupportedTargetsForTest(target);
    if (std::string(LinearIsa()) == hwy::TargetName(target)) linear.push_back(target);
  }
  hwy::SetSupportedTargetsForTest(0);
  // Highway 1.0.3 on ARMv7 detects no targets at run time (SupportedTargets() is
  // EMU128 | SCALAR) and the kernels always run their static NEON build there:
  // the suites test that one build, not steered.
  if (linear.empty()) GTEST_SKIP() << "Highway's dispatch cannot be steered here";
  std::printf("[ targets  ] Linear: %s\n", TargetNames(linear).c_str());
  int hwy_variants = 0;
  for (size_t i = 0; i < SdpaKernelCount(); ++i) {
    const SdpaKernel& k = SdpaKernelAt(i);
    if (std::string(k.family) != "hwy") continue;
    ++hwy_variants;
    const std::string targets = TargetNames(SteerableHighwayTargets(k));
    std::printf("[ targets  ] %s: %s\n", k.name, targets.c_str());
    EXPECT_EQ(targets, TargetNames(linear)) << k.name;
  }
  EXPECT_GT(hwy_variants, 0);
  // The restored dispatch runs the best target again.
  EXPECT_EQ(std::string(FindSdpaKernel("hwy-flash")->isa()), hwy::TargetName(linear.front()));
}

}  // namespace
}  // namespace attnrt::testing
