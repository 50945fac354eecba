// Every SDPA variant in the registry against the scalar reference variant over
// sizes that straddle tile and vector edges, every mask kind and broadcast,
// causal both ways, dead rows, huge logits, misaligned buffers, GQA, E != Ev,
// L != S and several workers.
#include <gtest/gtest.h>

#include <cmath>
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
  if (kernel().algorithm != SdpaAlgorithm::kFlash) GTEST_SKIP() << "not a flash variant";
  SdpaParams small, large;
  small.q_len = small.kv_len = 64;
  large.q_len = large.kv_len = 65536;
  small.qk_dim = large.qk_dim = small.v_dim = large.v_dim = 64;
  EXPECT_EQ(kernel().scratch_floats(small), kernel().scratch_floats(large));
}

// A model plans its attention before a run says whether it is causal (ModelInput::causal)
// or windowed, so no variant's scratch may depend on the causal rule or the window.
TEST_P(SdpaVariantTest, ScratchDoesNotDependOnTheCausalRuleOrWindow) {
  for (size_t dim : {16, 48, 64, 80}) {
    SdpaParams none;
    none.q_len = 200;
    none.kv_len = 300;
    none.qk_dim = none.v_dim = dim;
    for (CausalKind causal : {CausalKind::kUpperLeft, CausalKind::kLowerRight}) {
      for (size_t window : {0, 5, 100}) {
        SdpaParams p = none;
        p.causal = causal;
        p.window = window;
        EXPECT_EQ(kernel().scratch_floats(p), kernel().scratch_floats(none))
            << "E " << dim << " causal " << static_cast<int>(causal) << " window " << window;
      }
    }
  }
}

// ---- Per-score variants (window, ALiBi, softcap, sinks) against float64 ----

// One of the four variants switched on in a case.
enum class ScoreVariant { kWindow, kAlibi, kSoftcap, kSinks };

void SwitchOn(ScoreVariant which, size_t window, SdpaCase* c) {
  switch (which) {
    case ScoreVariant::kWindow: c->window = window; break;
    case ScoreVariant::kAlibi: c->alibi = true; break;
    case ScoreVariant::kSoftcap: c->softcap = 3.0f; break;
    case ScoreVariant::kSinks: c->sinks = true; break;
  }
}

TEST_P(SdpaVariantTest, EachScoreVariantAloneAcrossTileEdges) {
  // Tiles are 64 keys (flash, decode chunks, materialized packing), query blocks
  // 32 or 64 rows; windows straddle them too.
  const size_t lens[] = {1, 63, 64, 65, 130};
  const size_t windows[] = {1, 2, 63, 64, 65, 200};
  const ScoreVariant variants[] = {ScoreVariant::kWindow, ScoreVariant::kAlibi,
                                   ScoreVariant::kSoftcap, ScoreVariant::kSinks};
  uint32_t seed = 300;
  for (ScoreVariant which : variants) {
    for (size_t L : lens) {
      for (size_t S : lens) {
        ++seed;
        SdpaCase c = ShapedCase(L, S, seed % 2 == 0 ? 16 : 19, seed % 3 == 0 ? 33 : 16);
        // A window needs a causal rule; the others take every causal kind.
        c.causal = static_cast<CausalKind>(which == ScoreVariant::kWindow ? 1 + seed % 2 : seed % 3);
        c.logit_magnitude = which == ScoreVariant::kSoftcap ? 3.0f : 1.0f;
        SwitchOn(which, windows[seed % 6], &c);
        c.want_weights = true;
        c.seed = seed;
        CheckFloat64(c);
      }
    }
  }
}

TEST_P(SdpaVariantTest, ScoreVariantsInEveryCombination) {
  // window x ALiBi x softcap x sinks x mask kind x causal kind, with GQA and E != Ev
  // alternating, over shapes that cut tiles and blocks at odd places.
  const size_t shapes[][2] = {{70, 37}, {37, 70}, {65, 130}};
  uint32_t seed = 1000;
  for (size_t window : {size_t{0}, size_t{37}}) {
    for (bool alibi : {false, true}) {
      for (float softcap : {0.0f, 4.0f}) {
        for (bool sinks : {false, true}) {
          for (MaskKind m : {MaskKind::kNone, MaskKind::kBool, MaskKind::kAdditive}) {
            for (int causal = 0; causal < 3; ++causal) {
              if (window != 0 && causal == 0) continue;
              ++seed;
              const auto& shape = shapes[seed % 3];
              SdpaCase c = ShapedCase(shape[0], shape[1], 24, seed % 2 == 0 ? 40 : 24);
              c.batch = 2;
              c.q_heads = seed % 2 == 0 ? 4 : 2;
              c.kv_heads = seed % 4 == 0 ? 1 : 2;
              c.mask = m;
              c.mask_per_head = seed % 5 < 2;
              c.causal = static_cast<CausalKind>(causal);
              c.window = window;
              c.alibi = alibi;
              c.alibi_scale = seed % 3 == 0 ? -0.05f : 0.1f;
              c.softcap = softcap;
              c.logit_magnitude = softcap > 0.0f ? 4.0f : 1.0f;
              c.sinks = sinks;
              c.want_weights = true;
              c.seed = seed;
              CheckFloat64(c);
            }
          }
        }
      }
    }
  }
}

TEST_P(SdpaVariantTest, WindowsOverSeveralTilesAndBlocks) {
  const size_t windows[] = {1, 31, 32, 33, 63, 64, 65, 128, 129, 1000, ~size_t{0}};
  uint32_t seed = 2000;
  for (size_t window : windows) {
    for (CausalKind causal : {CausalKind::kUpperLeft, CausalKind::kLowerRight}) {
      const size_t shapes[][2] = {{200, 200}, {97, 300}, {300, 97}};
      for (const auto& shape : shapes) {
        SdpaCase c = ShapedCase(shape[0], shape[1], 16, 24);
        c.causal = causal;
        c.window = window;
        c.want_weights = true;
        c.seed = ++seed;
        CheckFloat64(c);
      }
    }
  }
}

TEST_P(SdpaVariantTest, WindowEdgesInsideFullQueryBlocks) {
  // Full 64-query blocks: on the tiles the diagonal or the window's edge cuts, flash
  // scores 16 keys at a time against only the half of the block's queries that may
  // see them, and accumulates P.V per 4 queries over only their visible keys. The
  // window starts inside a tile, at a tile boundary and inside one vector; lower-right
  // shapes move the diagonal off the tile grid.
  const size_t windows[] = {1, 3, 15, 16, 17, 31, 32, 33, 48, 64, 100, 192, 256};
  const size_t shapes[][2] = {{256, 256}, {192, 320}, {256, 200}};
  uint32_t seed = 2500;
  for (size_t window : windows) {
    for (CausalKind causal : {CausalKind::kUpperLeft, CausalKind::kLowerRight}) {
      for (const auto& shape : shapes) {
        SdpaCase c = ShapedCase(shape[0], shape[1], seed % 2 == 0 ? 16 : 20, 16);
        c.causal = causal;
        c.window = window;
        c.seed = ++seed;
        CheckFloat64(c);
      }
    }
  }
}

TEST_P(SdpaVariantTest, SinksNeverReviveDeadRows) {
  // Every key masked (bool mask, or a window that lower-right with L > S leaves
  // empty): output and weights stay zeros with a sink.
  SdpaCase c = ShapedCase(40, 70, 16, 16);
  c.mask = MaskKind::kBool;
  c.keep_probability = 0.0;
  c.sinks = true;
  c.want_weights = kernel().returns_weights;
  SdpaTester tester(c);
  SdpaResult got;
  ASSERT_EQ(tester.Run(kernel(), &got), "");
  for (float x : got.out) ASSERT_EQ(x, 0.0f) << c.Describe();
  for (float x : got.weights) ASSERT_EQ(x, 0.0f) << c.Describe();
  SdpaCase lr = ShapedCase(100, 30, 8, 8);
  lr.causal = CausalKind::kLowerRight;
  lr.window = 5;
  lr.sinks = true;
  lr.sink_offset = 3.0f;
  lr.want_weights = true;
  CheckFloat64(lr);
  // A sink far above every score: rows sum to almost nothing, but not to zero.
  SdpaCase big = ShapedCase(33, 65, 16, 16);
  big.sinks = true;
  big.sink_offset = 12.0f;
  big.want_weights = true;
  CheckFloat64(big);
}

TEST_P(SdpaVariantTest, ScoreVariantsWithNonFiniteKeys) {
  // Keys with +inf, -inf and NaN entries: without softcap their scores are +-inf or
  // NaN (NaN rows wherever such a key is visible); softcap maps +-inf to +-C, NaN stays.
  uint32_t seed = 3000;
  for (int kind = 0; kind < 5; ++kind) {
    SdpaCase c = ShapedCase(70, 90, 12, 20);
    c.nonfinite_keys = true;
    c.causal = CausalKind::kLowerRight;
    c.window = kind == 0 ? 3 : 0;  // most rows see no bad key: 3 of every 4 keys are clean
    c.alibi = kind == 1 || kind == 4;
    c.softcap = kind == 2 || kind == 4 ? 2.0f : 0.0f;
    c.sinks = kind == 3 || kind == 4;
    c.want_weights = true;
    c.seed = ++seed;
    CheckFloat64(c);
  }
}

TEST_P(SdpaVariantTest, ScoreVariantsMisalignedAndSeveralWorkers) {
  for (size_t workers : {1, 3}) {
    SdpaCase c = ShapedCase(150, 140, 19, 21);
    c.batch = 2;
    c.q_heads = 6;
    c.kv_heads = 2;
    c.misalign = true;
    c.mask = MaskKind::kAdditive;
    c.causal = CausalKind::kUpperLeft;
    c.window = 50;
    c.alibi = true;
    c.softcap = 5.0f;
    c.sinks = true;
    c.workers = workers;
    c.want_weights = true;
    c.seed = static_cast<uint32_t>(workers);
    CheckFloat64(c);
  }
}

TEST_P(SdpaVariantTest, ReferenceAgreesOnScoreVariants) {
  // The reference variant (what Check compares with) and the float64 oracle agree.
  SdpaCase c = ShapedCase(45, 77, 32, 48);
  c.q_heads = 4;
  c.kv_heads = 2;
  c.causal = CausalKind::kLowerRight;
  c.window = 20;
  c.alibi = true;
  c.softcap = 6.0f;
  c.sinks = true;
  c.mask = MaskKind::kAdditive;
  c.want_weights = true;
  Check(c);
}

TEST_P(SdpaVariantTest, WindowedKernelsNeverTouchHiddenKeys) {
  // Flash-type variants skip the tiles outside the window: keys and values no query
  // may see are poisoned with NaN, and the output must not notice.
  if (kernel().algorithm == SdpaAlgorithm::kMaterialized ||
      kernel().algorithm == SdpaAlgorithm::kReference) {
    GTEST_SKIP() << "reads every tile of the scores by design";
  }
  SdpaCase c = ShapedCase(64, 1000, 16, 16);
  c.causal = CausalKind::kLowerRight;
  c.window = 100;  // row 0 sees keys 837..936, the last row 900..999
  SdpaTester tester(c);
  SdpaResult clean, poisoned;
  tester.Float64(&clean);
  float* k = const_cast<float*>(tester.params().k);
  float* v = const_cast<float*>(tester.params().v);
  for (size_t j = 0; j < 837 - 64; ++j) {  // whole tiles before the block's first key
    k[j * c.E] = NAN;
    v[j * c.Ev] = NAN;
  }
  ASSERT_EQ(tester.Run(kernel(), &poisoned), "");
  EXPECT_LE(MaxRelativeError(poisoned.out, clean.out), kSdpaTolerance);
}

TEST_P(SdpaVariantTest, BadScoreVariantsAreRefusedByName) {
  struct Bad {
    const char* what;
    void (*set)(SdpaParams*);
  };
  static const float kNaN = NAN, kInf = INFINITY;
  const Bad bad[] = {
      {"window 8 needs a causal rule", [](SdpaParams* p) { p->window = 8; }},
      {"softcap must be 0 (off) or a finite number > 0", [](SdpaParams* p) { p->softcap = -1.0f; }},
      {"softcap must be 0 (off) or a finite number > 0", [](SdpaParams* p) { p->softcap = kNaN; }},
      {"softcap must be 0 (off) or a finite number > 0", [](SdpaParams* p) { p->softcap = kInf; }},
      {"alibi slope of query head 1 is not a finite number",
       [](SdpaParams* p) { const_cast<float*>(p->alibi_slopes)[1] = kNaN; }},
      {"sink of query head 0 is not a finite number",
       [](SdpaParams* p) { const_cast<float*>(p->sinks)[0] = -kInf; }},
  };
  for (const Bad& b : bad) {
    SdpaCase c = ShapedCase(4, 4, 4, 4);
    c.q_heads = c.kv_heads = 2;
    c.alibi = c.sinks = true;
    SdpaTester tester(c);
    b.set(const_cast<SdpaParams*>(&tester.params()));
    SdpaResult got;
    EXPECT_NE(tester.Run(kernel(), &got).find(b.what), std::string::npos) << b.what;
  }
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
    if (k.family != SdpaFamily::kHwy) continue;
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
