// Decode-shaped SDPA calls (a few queries, keys far longer than one key split of
// hwy-decode) for every variant in the registry against the scalar reference.
// sdpa_variants_test keeps S small, so it never exercises the merge of partial
// (max, sum, accumulator) results across key splits; these cases do: split edges,
// lower-right causal with L = 1..4, splits that are dead (causal or mask) next to
// live ones, rows dead in every split, GQA row blocks, huge logits, misalignment
// and several workers.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/sdpa_tester.h"

namespace attnrt::testing {
namespace {

// Straddle hwy-decode's split of 1024 keys (and its chunk of 64) and reach 5 splits.
constexpr size_t kLongLens[] = {1023, 1024, 1025, 2111, 4097};

class SdpaDecodeTest : public SdpaRegistryTest {};
ATTNRT_INSTANTIATE_PER_VARIANT(SdpaDecodeTest);

TEST_P(SdpaDecodeTest, FewQueriesLongKeysEveryCausalRule) {
  const CausalKind causals[] = {CausalKind::kNone, CausalKind::kUpperLeft, CausalKind::kLowerRight};
  uint32_t seed = 0;
  for (size_t S : kLongLens) {
    for (size_t L = 1; L <= 4; ++L) {
      for (CausalKind causal : causals) {
        const bool wide = seed % 2 == 0;
        Check(SdpaCase()
                  .Shape(L, S, wide ? 64 : 19, wide ? 64 : 21)
                  .Heads(2, 2)
                  .Causal(causal)
                  .Seed(++seed));
      }
    }
  }
}

TEST_P(SdpaDecodeTest, GroupedQueryHeadsShareLongKeys) {
  const size_t groups[][2] = {{8, 2}, {6, 1}, {3, 3}};
  uint32_t seed = 50;
  for (const auto& g : groups) {
    for (size_t L : {1, 3}) {
      Check(SdpaCase()
                .Shape(L, 2500, 32, 48)
                .Batch(2)
                .Heads(g[0], g[1])
                .Causal(CausalKind::kLowerRight)
                .Seed(++seed));
    }
  }
}

TEST_P(SdpaDecodeTest, SparseMasksLeaveDeadSplitsAndDeadRows) {
  // With about 3 kept keys in 3000, most splits of a row are dead and some rows
  // keep nothing at all; the additive mask puts -inf where the bool mask has 0.
  for (MaskKind m : {MaskKind::kBool, MaskKind::kAdditive}) {
    for (bool per_head : {false, true}) {
      for (uint32_t seed = 1; seed <= 3; ++seed) {
        Check(SdpaCase()
                  .Shape(4, 3000, 16, 24)
                  .Heads(2, 2)
                  .Mask(m, per_head ? MaskShape::kBHLS : MaskShape::kLS)
                  .Keep(0.001f)
                  .Causal(seed == 3 ? CausalKind::kLowerRight : CausalKind::kNone)
                  .Seed(seed));
      }
    }
  }
}

TEST_P(SdpaDecodeTest, RowsDeadInEverySplitGiveZeros) {
  const SdpaCase c = SdpaCase().Shape(3, 3000, 16, 16).Mask(MaskKind::kBool).Keep(0.0f);
  SdpaTester tester(c);
  SdpaResult got;
  ASSERT_EQ(tester.Run(kernel(), &got), "");
  for (float x : got.out) ASSERT_EQ(x, 0.0f) << c;
}

TEST_P(SdpaDecodeTest, HugeLogitsAcrossSplits) {
  // |scores| around 1e4: the splits' maxima differ by thousands, so a merge that
  // skipped the exp(m_s - m) rescale, or overflowed, would be far off.
  for (CausalKind causal : {CausalKind::kNone, CausalKind::kLowerRight}) {
    Check(SdpaCase().Shape(2, 3333, 16, 16).Logits(100.0f).Causal(causal));
  }
}

// The base of the worker tests: L queries of 2 batches x 4 heads over 2 KV heads and
// 2049 keys (three splits), odd head dims, misaligned buffers, lower-right causal.
SdpaCase MisalignedSplitKeys(size_t L, size_t workers) {
  return SdpaCase()
      .Shape(L, 2049, 67, 33)
      .Batch(2)
      .Heads(4, 2)
      .Misaligned()
      .Causal(CausalKind::kLowerRight)
      .Workers(workers)
      .Seed(static_cast<uint32_t>(workers));
}

TEST_P(SdpaDecodeTest, MisalignedAndSeveralWorkers) {
  for (size_t workers : {1, 2, 3}) Check(MisalignedSplitKeys(2, workers).Mask(MaskKind::kAdditive));
}

TEST_P(SdpaDecodeTest, ManyQueriesOverSeveralSplits) {
  // Decode variants must stay correct (if slow) for long query blocks too. In
  // hwy-decode, 100 rows (25 blocks) still split 2100 keys three ways; 300 rows
  // (75 blocks) are enough work items on their own and are not split.
  for (size_t L : {100, 300}) {
    for (CausalKind causal : {CausalKind::kUpperLeft, CausalKind::kLowerRight}) {
      Check(SdpaCase().Shape(L, 2100, 24, 40).Causal(causal));
    }
  }
}

TEST_P(SdpaDecodeTest, ScoreVariantsAcrossSplits) {
  // Windows that end inside, on and past split (1024) and chunk (64) edges, with
  // ALiBi, softcap and sinks merged across splits, L = 1..4, both causal kinds.
  const size_t windows[] = {1, 64, 65, 512, 1023, 1025, 3000};
  uint32_t seed = 700;
  for (size_t S : {size_t{1025}, size_t{4097}}) {
    for (size_t window : windows) {
      for (size_t L : {size_t{1}, size_t{4}}) {
        ++seed;
        const bool wide = seed % 2 == 0;
        SdpaCase c = SdpaCase()
                         .Shape(L, S, wide ? 64 : 19, wide ? 64 : 21)
                         .Heads(4, seed % 3 == 0 ? 1 : 2)
                         .Causal(wide ? CausalKind::kLowerRight : CausalKind::kUpperLeft)
                         .Window(window)
                         .Softcap(seed % 4 < 2 ? 8.0f : 0.0f)
                         .Logits(2.0f)
                         .Seed(seed);
        if (seed % 3 != 1) c.Alibi(0.02f);
        if (seed % 5 != 0) c.Sinks();
        CheckFloat64(c);
      }
    }
  }
}

TEST_P(SdpaDecodeTest, EachScoreVariantAloneOverLongKeys) {
  uint32_t seed = 800;
  for (int which = 0; which < 4; ++which) {
    for (size_t S : {size_t{2111}, size_t{3000}}) {
      SdpaCase c = SdpaCase()
                       .Shape(2, S, 32, 16)
                       .Heads(2, 2)
                       .Causal(which == 0 ? CausalKind::kLowerRight : CausalKind::kNone)
                       .Window(which == 0 ? 700 : 0)
                       .Softcap(which == 2 ? 5.0f : 0.0f)
                       .Logits(which == 2 ? 4.0f : 1.0f)
                       .Seed(++seed);
      if (which == 1) c.Alibi(0.01f);
      if (which == 3) c.Sinks();
      CheckFloat64(c);
    }
  }
}

TEST_P(SdpaDecodeTest, SinksWithSparseMasksAndDeadSplits) {
  // Dead splits next to live ones, rows dead in every split (zeros, sink or not),
  // and a window whose keys a sparse mask mostly hides.
  for (MaskKind m : {MaskKind::kBool, MaskKind::kAdditive}) {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      CheckFloat64(SdpaCase()
                       .Shape(4, 3000, 16, 24)
                       .Heads(2, 2)
                       .Mask(m)
                       .Keep(seed == 3 ? 0.0f : 0.002f)
                       .Causal(CausalKind::kLowerRight)
                       .Window(seed == 2 ? 1500 : 0)
                       .Sinks()
                       .Seed(seed));
    }
  }
}

TEST_P(SdpaDecodeTest, WindowedDecodeWithNonFiniteKeysAndWorkers) {
  for (size_t workers : {1, 2}) {
    CheckFloat64(MisalignedSplitKeys(3, workers)
                     .Window(workers == 1 ? 2 : 1100)  // 2: most rows miss every bad key
                     .NonfiniteKeys()
                     .Softcap(workers == 1 ? 0.0f : 3.0f)
                     .Sinks());
  }
}

TEST_P(SdpaDecodeTest, WindowedDecodeReadsOnlyTheLastKeys) {
  // L = 1, S = 8192, window 512: keys before S - 512 are NaN and must stay unread.
  if (kernel().algorithm == SdpaAlgorithm::kMaterialized ||
      kernel().algorithm == SdpaAlgorithm::kReference) {
    GTEST_SKIP() << "reads every key by design";
  }
  const SdpaCase c = SdpaCase()
                         .Shape(1, 8192, 64, 64)
                         .Heads(4, 2)
                         .Causal(CausalKind::kLowerRight)
                         .Window(512)
                         .Sinks();
  SdpaTester tester(c);
  SdpaResult clean, poisoned;
  tester.Float64(&clean);
  float* k = const_cast<float*>(tester.params().k);
  float* v = const_cast<float*>(tester.params().v);
  for (size_t g = 0; g < c.kv_heads; ++g) {
    for (size_t j = 0; j < c.S - c.window; ++j) {
      k[(g * c.S + j) * c.E] = NAN;
      v[(g * c.S + j) * c.Ev] = NAN;
    }
  }
  ASSERT_EQ(tester.Run(kernel(), &poisoned), "");
  EXPECT_LE(MaxRelativeError(poisoned.out, clean.out), kSdpaTolerance);
}

TEST_P(SdpaDecodeTest, SharedPartialsStayBoundedForLongQueryBlocks) {
  // Key splits buy parallelism; a long query block already has it, and splitting
  // it anyway kept B * Hq * L * S / 1024 partial records (138 MB at L = S = 8192).
  const SdpaKernel& k = kernel();
  if (k.shared_floats == nullptr) GTEST_SKIP() << "no shared buffer";
  SdpaParams decode, square;
  decode.batch = square.batch = 1;
  decode.q_heads = decode.kv_heads = square.q_heads = square.kv_heads = 8;
  decode.qk_dim = decode.v_dim = square.qk_dim = square.v_dim = 64;
  decode.q_len = 1;
  decode.kv_len = square.q_len = square.kv_len = 8192;
  EXPECT_GT(k.shared_floats(decode), 0u);        // one query per head: keys are split
  EXPECT_LT(k.shared_floats(decode), 1u << 20);  // 8 heads x 8 splits x 1 row
  EXPECT_LT(k.shared_floats(square), 1u << 20);  // enough rows: few or no splits
}

TEST_P(SdpaDecodeTest, DecodeScratchDoesNotGrowWithSequenceLength) {
  if (kernel().algorithm != SdpaAlgorithm::kDecode) GTEST_SKIP() << "not a decode variant";
  SdpaParams small, large;
  small.q_len = large.q_len = 4;
  small.kv_len = 64;
  large.kv_len = 1 << 20;
  small.qk_dim = large.qk_dim = small.v_dim = large.v_dim = 64;
  EXPECT_EQ(kernel().scratch_floats(small), kernel().scratch_floats(large));
}

}  // namespace
}  // namespace attnrt::testing
