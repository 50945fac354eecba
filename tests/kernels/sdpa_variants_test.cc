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
#include "common/sdpa_board_cases.h"
#include "common/steerable_targets.h"
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
      Check(SdpaCase().Shape(L, S, dims[seed % 6][0], dims[seed % 6][1]).Weights().Seed(seed + 1));
      ++seed;
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
          Check(SdpaCase()
                    .Shape(shape[0], shape[1], 24, 40)
                    .Batch(2)
                    .Heads(2, 2)
                    .Mask(m, per_head ? MaskShape::kBHLS : MaskShape::kLS)
                    .Causal(causal)
                    .Weights()
                    .Seed(++seed));
        }
      }
    }
  }
}

TEST_P(SdpaVariantTest, FullyMaskedRowsGiveZerosNotNaN) {
  for (MaskKind m : {MaskKind::kBool, MaskKind::kAdditive}) {
    // Keep(0): every key masked in every row.
    const SdpaCase c =
        SdpaCase().Shape(40, 70, 16, 16).Mask(m).Keep(0.0f).Weights(kernel().returns_weights);
    SdpaTester tester(c);
    SdpaResult got;
    ASSERT_EQ(tester.Run(kernel(), &got), "");
    for (float x : got.out) ASSERT_EQ(x, 0.0f) << c;
    for (float x : got.weights) ASSERT_EQ(x, 0.0f) << c;
  }
  // Lower-right with L > S: the first L - S rows see no key at all.
  const SdpaCase c = SdpaCase()
                         .Shape(100, 30, 8, 8)
                         .Causal(CausalKind::kLowerRight)
                         .Weights(kernel().returns_weights);
  Check(c);
  SdpaTester tester(c);
  SdpaResult got;
  ASSERT_EQ(tester.Run(kernel(), &got), "");
  for (size_t i = 0; i < (c.L - c.S) * c.Ev; ++i) ASSERT_EQ(got.out[i], 0.0f) << i;
}

TEST_P(SdpaVariantTest, PartlyMaskedRowsMixedWithDeadRows) {
  // Keep(0.02): some rows keep nothing, some a single key.
  SdpaCase c = SdpaCase().Shape(67, 131, 32, 17).Mask(MaskKind::kBool).Keep(0.02f).Weights();
  for (uint32_t seed = 1; seed <= 5; ++seed) Check(c.Seed(seed));
}

TEST_P(SdpaVariantTest, HugeLogits) {
  for (size_t E : {1, 16, 64}) {
    Check(SdpaCase()
              .Shape(33, 65, E, 16)
              .Logits(100.0f)  // |score| around 1e4
              .Weights()
              .Causal(E == 16 ? CausalKind::kUpperLeft : CausalKind::kNone));
  }
}

TEST_P(SdpaVariantTest, MisalignedBuffers) {
  for (size_t n : {5, 64, 100}) {
    Check(SdpaCase().Shape(n, n + 3, 19, 21).Misaligned().Mask(MaskKind::kAdditive).Weights());
  }
}

TEST_P(SdpaVariantTest, GroupedQueryAttention) {
  const size_t groups[][2] = {{6, 2}, {4, 1}, {8, 8}, {3, 1}};
  for (const auto& g : groups) {
    Check(SdpaCase()
              .Shape(45, 77, 32, 48)
              .Batch(2)
              .Heads(g[0], g[1])
              .Causal(CausalKind::kLowerRight)
              .Weights());
  }
}

TEST_P(SdpaVariantTest, SeveralWorkersMatchOne) {
  for (size_t workers : {2, 3}) {
    Check(SdpaCase()
              .Shape(200, 150, 64, 64)
              .Batch(2)
              .Heads(3, 3)
              .Causal(CausalKind::kUpperLeft)
              .Workers(workers)
              .Weights());
  }
}

TEST_P(SdpaVariantTest, CustomScaleIsUsed) {
  const SdpaCase c = SdpaCase().Shape(20, 20, 16, 16);
  SdpaTester base(c);
  SdpaResult a, b;
  ASSERT_EQ(base.Run(kernel(), &a), "");
  const SdpaCase scaled_case = SdpaCase(c).Scale(1.7f);
  SdpaTester scaled(scaled_case);
  ASSERT_EQ(scaled.Run(kernel(), &b), "");
  SdpaResult want;
  ASSERT_EQ(scaled.Run(ReferenceKernel(), &want), "");
  EXPECT_LE(MaxRelativeError(b.out, want.out), kSdpaTolerance);
  EXPECT_GT(MaxRelativeError(a.out, b.out), 1e-3) << "scale had no effect";
  CheckFloat64(scaled_case);
}

TEST_P(SdpaVariantTest, WeightsFromAVariantThatCannotReturnThemAreRefused) {
  if (kernel().returns_weights) GTEST_SKIP() << "variant returns weights";
  SdpaTester tester(SdpaCase().Shape(4, 4, 4, 4).Weights());
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
    case ScoreVariant::kWindow: c->Window(window); break;
    case ScoreVariant::kAlibi: c->Alibi(); break;
    case ScoreVariant::kSoftcap: c->Softcap(3.0f); break;
    case ScoreVariant::kSinks: c->Sinks(); break;
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
        SdpaCase c = SdpaCase()
                         .Shape(L, S, seed % 2 == 0 ? 16 : 19, seed % 3 == 0 ? 33 : 16)
                         // A window needs a causal rule; the others take every causal kind.
                         .Causal(static_cast<CausalKind>(
                             which == ScoreVariant::kWindow ? 1 + seed % 2 : seed % 3))
                         .Logits(which == ScoreVariant::kSoftcap ? 3.0f : 1.0f)
                         .Weights()
                         .Seed(seed);
        SwitchOn(which, windows[seed % 6], &c);
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
              SdpaCase c = SdpaCase()
                               .Shape(shape[0], shape[1], 24, seed % 2 == 0 ? 40 : 24)
                               .Batch(2)
                               .Heads(seed % 2 == 0 ? 4 : 2, seed % 4 == 0 ? 1 : 2)
                               .Mask(m, seed % 5 < 2 ? MaskShape::kBHLS : MaskShape::kLS)
                               .Causal(static_cast<CausalKind>(causal))
                               .Window(window)
                               .Softcap(softcap)
                               .Logits(softcap > 0.0f ? 4.0f : 1.0f)
                               .Weights()
                               .Seed(seed);
              if (alibi) c.Alibi(seed % 3 == 0 ? -0.05f : 0.1f);
              if (sinks) c.Sinks();
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
        CheckFloat64(SdpaCase()
                         .Shape(shape[0], shape[1], 16, 24)
                         .Causal(causal)
                         .Window(window)
                         .Weights()
                         .Seed(++seed));
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
        CheckFloat64(SdpaCase()
                         .Shape(shape[0], shape[1], seed % 2 == 0 ? 16 : 20, 16)
                         .Causal(causal)
                         .Window(window)
                         .Seed(seed + 1));
        ++seed;
      }
    }
  }
}

TEST_P(SdpaVariantTest, SinksNeverReviveDeadRows) {
  // Every key masked (bool mask, or a window that lower-right with L > S leaves
  // empty): output and weights stay zeros with a sink.
  const SdpaCase c = SdpaCase()
                         .Shape(40, 70, 16, 16)
                         .Mask(MaskKind::kBool)
                         .Keep(0.0f)
                         .Sinks()
                         .Weights(kernel().returns_weights);
  SdpaTester tester(c);
  SdpaResult got;
  ASSERT_EQ(tester.Run(kernel(), &got), "");
  for (float x : got.out) ASSERT_EQ(x, 0.0f) << c;
  for (float x : got.weights) ASSERT_EQ(x, 0.0f) << c;
  CheckFloat64(SdpaCase()
                   .Shape(100, 30, 8, 8)
                   .Causal(CausalKind::kLowerRight)
                   .Window(5)
                   .Sinks(2.0f, 3.0f)
                   .Weights());
  // A sink far above every score: rows sum to almost nothing, but not to zero.
  CheckFloat64(SdpaCase().Shape(33, 65, 16, 16).Sinks(2.0f, 12.0f).Weights());
}

TEST_P(SdpaVariantTest, ScoreVariantsWithNonFiniteKeys) {
  // Keys with +inf, -inf and NaN entries: without softcap their scores are +-inf or
  // NaN (NaN rows wherever such a key is visible); softcap maps +-inf to +-C, NaN stays.
  uint32_t seed = 3000;
  for (int kind = 0; kind < 5; ++kind) {
    SdpaCase c = SdpaCase()
                     .Shape(70, 90, 12, 20)
                     .NonfiniteKeys()
                     .Causal(CausalKind::kLowerRight)
                     .Window(kind == 0 ? 3 : 0)  // most rows see no bad key: 3 of 4 keys are clean
                     .Softcap(kind == 2 || kind == 4 ? 2.0f : 0.0f)
                     .Weights()
                     .Seed(++seed);
    if (kind == 1 || kind == 4) c.Alibi();
    if (kind == 3 || kind == 4) c.Sinks();
    CheckFloat64(c);
  }
}

TEST_P(SdpaVariantTest, ScoreVariantsMisalignedAndSeveralWorkers) {
  for (size_t workers : {1, 3}) {
    CheckFloat64(SdpaCase()
                     .Shape(150, 140, 19, 21)
                     .Batch(2)
                     .Heads(6, 2)
                     .Misaligned()
                     .Mask(MaskKind::kAdditive)
                     .Causal(CausalKind::kUpperLeft)
                     .Window(50)
                     .Alibi()
                     .Softcap(5.0f)
                     .Sinks()
                     .Workers(workers)
                     .Weights()
                     .Seed(static_cast<uint32_t>(workers)));
  }
}

TEST_P(SdpaVariantTest, ReferenceAgreesOnScoreVariants) {
  // The reference variant (what Check compares with) and the float64 oracle agree.
  Check(SdpaCase()
            .Shape(45, 77, 32, 48)
            .Heads(4, 2)
            .Causal(CausalKind::kLowerRight)
            .Window(20)
            .Alibi()
            .Softcap(6.0f)
            .Sinks()
            .Mask(MaskKind::kAdditive)
            .Weights());
}

TEST_P(SdpaVariantTest, WindowedKernelsNeverTouchHiddenKeys) {
  // Flash-type variants skip the tiles outside the window: keys and values no query
  // may see are poisoned with NaN, and the output must not notice.
  if (kernel().algorithm == SdpaAlgorithm::kMaterialized ||
      kernel().algorithm == SdpaAlgorithm::kReference) {
    GTEST_SKIP() << "reads every tile of the scores by design";
  }
  // Row 0 sees keys 837..936, the last row 900..999.
  const SdpaCase c =
      SdpaCase().Shape(64, 1000, 16, 16).Causal(CausalKind::kLowerRight).Window(100);
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
    SdpaTester tester(SdpaCase().Shape(4, 4, 4, 4).Heads(2, 2).Alibi().Sinks());
    b.set(const_cast<SdpaParams*>(&tester.params()));
    SdpaResult got;
    EXPECT_NE(tester.Run(kernel(), &got).find(b.what), std::string::npos) << b.what;
  }
}

// ---- What only the shared case description (common/sdpa_case.h) says ----

// The Cortex-M images' own table, on every variant here, against the reference and
// float64: every broadcast mask shape, poisoned elements, extreme inputs, a scale.
TEST_P(SdpaVariantTest, BoardCases) {
  for (size_t i = 0; i < kBoardCaseCount; ++i) {
    const SdpaCase c = SdpaCase(kBoardCases[i]).Seed(kBoardCaseSeed + uint32_t(i)).Weights();
    Check(c);
    CheckFloat64(c);
  }
}

TEST_P(SdpaVariantTest, EveryMaskShapeBroadcasts) {
  // (B, 1, 1, S) key padding, (L, 1) per-query biases and the rest, with dead mask rows,
  // GQA and both a plain and a lower-right causal rule.
  const MaskShape mask_shapes[] = {MaskShape::kLS, MaskShape::kBHLS, MaskShape::kB1LS,
                                   MaskShape::kB11S, MaskShape::kL1};
  const size_t shapes[][2] = {{37, 70}, {70, 37}, {65, 130}};
  uint32_t seed = 4000;
  for (MaskShape mask_shape : mask_shapes) {
    for (MaskKind m : {MaskKind::kBool, MaskKind::kAdditive}) {
      for (CausalKind causal : {CausalKind::kNone, CausalKind::kLowerRight}) {
        ++seed;
        CheckFloat64(SdpaCase()
                         .Shape(shapes[seed % 3][0], shapes[seed % 3][1], 16, 24)
                         .Batch(2)
                         .Heads(4, 2)
                         .Mask(m, mask_shape)
                         .DeadEvery(seed % 4 == 0 ? 0 : 2 + seed % 4)
                         .Causal(causal)
                         .Weights()
                         .Seed(seed));
      }
    }
  }
}

TEST_P(SdpaVariantTest, PoisonedElementsFollowPyTorch) {
  // Single bad elements where the patterns cannot put them (flat indices):
  // v (0,1,5,3) of (1,2,40,8), a value only the rows that attend key 5 see;
  // k (1,0,17,0) of (2,2,70,16) with a key-padding bool mask;
  // q (1,3,4,2) of (2,4,9,12) times a scale of 0.5, with a per-batch float mask;
  // a bool key-padding mask whose batch 1 is dead but for key 5: one-hot rows;
  // k (0,0,0,0) of (1,1,200,16), a NaN key that a window of 3 hides from all but the
  // first rows.
  const SdpaCase cases[] = {
      // clang-format off
      SdpaCase().Shape(20, 40, 16, 8).Heads(4, 2).Causal(CausalKind::kLowerRight)
          .Poison('v', 363, NAN),
      SdpaCase().Shape(30, 70, 16, 16).Batch(2).Heads(2, 2)
          .Mask(MaskKind::kBool, MaskShape::kB11S).Poison('k', 2512, -INFINITY),
      SdpaCase().Shape(9, 33, 12, 12).Batch(2).Heads(4, 4)
          .Mask(MaskKind::kAdditive, MaskShape::kB1LS).Scale(0.5f).Poison('q', 806, INFINITY),
      SdpaCase().Shape(9, 130, 12, 20).Batch(2).Heads(2, 2)
          .Mask(MaskKind::kBool, MaskShape::kB11S).DeadEvery(2).Poison('m', 135, 1.0f),
      SdpaCase().Shape(200, 200, 16, 16).Causal(CausalKind::kUpperLeft).Window(3)
          .Poison('k', 0, NAN),
      // clang-format on
  };
  uint32_t seed = 4100;
  for (const SdpaCase& c : cases) {
    Check(SdpaCase(c).Weights().Seed(++seed));
    CheckFloat64(SdpaCase(c).Weights().Seed(seed));
  }
}

TEST_P(SdpaVariantTest, ScalesOtherThanTheDefault) {
  uint32_t seed = 4200;
  for (float scale : {0.5f, 1.7f, -0.3f, 1e-3f}) {
    CheckFloat64(SdpaCase()
                     .Shape(45, 77, 24, 16)
                     .Heads(4, 2)
                     .Mask(MaskKind::kAdditive, MaskShape::kB1LS)
                     .Batch(2)
                     .Causal(CausalKind::kUpperLeft)
                     .Scale(scale)
                     .Softcap(scale < 0.0f ? 3.0f : 0.0f)
                     .Weights()
                     .Seed(++seed));
  }
}

TEST_P(SdpaVariantTest, ExtremeInputsWithBroadcastMasks) {
  // -FLT_MAX float masks (uniform over their keys) in every broadcast, with -inf and
  // dead rows beside them; and every score below -1e30 (one-hot) with GQA over tiles.
  uint32_t seed = 4300;
  for (MaskShape mask_shape : {MaskShape::kBHLS, MaskShape::kB11S, MaskShape::kL1}) {
    CheckFloat64(SdpaCase()
                     .Shape(40, 130, 16, 16)
                     .Batch(2)
                     .Heads(2, 1)
                     .Mask(MaskKind::kAdditive, mask_shape)
                     .DeadEvery(3)
                     .Extreme(ExtremeKind::kLowestMask)
                     .Weights()
                     .Seed(++seed));
  }
  CheckFloat64(SdpaCase()
                   .Shape(70, 200, 4, 12)
                   .Heads(6, 2)
                   .Causal(CausalKind::kLowerRight)
                   .Extreme(ExtremeKind::kHugeNegative)
                   .Weights()
                   .Seed(++seed));
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
  const std::vector<int64_t> linear = SteerableTargets(LinearIsa);
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
