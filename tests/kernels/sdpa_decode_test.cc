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
        SdpaCase c = seed % 2 == 0 ? ShapedCase(L, S, 64, 64) : ShapedCase(L, S, 19, 21);
        c.q_heads = c.kv_heads = 2;
        c.causal = causal;
        c.seed = ++seed;
        Check(c);
      }
    }
  }
}

TEST_P(SdpaDecodeTest, GroupedQueryHeadsShareLongKeys) {
  const size_t groups[][2] = {{8, 2}, {6, 1}, {3, 3}};
  uint32_t seed = 50;
  for (const auto& g : groups) {
    for (size_t L : {1, 3}) {
      SdpaCase c = ShapedCase(L, 2500, 32, 48);
      c.batch = 2;
      c.q_heads = g[0];
      c.kv_heads = g[1];
      c.causal = CausalKind::kLowerRight;
      c.seed = ++seed;
      Check(c);
    }
  }
}

TEST_P(SdpaDecodeTest, SparseMasksLeaveDeadSplitsAndDeadRows) {
  // With about 3 kept keys in 3000, most splits of a row are dead and some rows
  // keep nothing at all; the additive mask puts -inf where the bool mask has 0.
  for (MaskKind m : {MaskKind::kBool, MaskKind::kAdditive}) {
    for (bool per_head : {false, true}) {
      for (uint32_t seed = 1; seed <= 3; ++seed) {
        SdpaCase c = ShapedCase(4, 3000, 16, 24);
        c.q_heads = c.kv_heads = 2;
        c.mask = m;
        c.mask_per_head = per_head;
        c.keep_probability = 0.001;
        c.causal = seed == 3 ? CausalKind::kLowerRight : CausalKind::kNone;
        c.seed = seed;
        Check(c);
      }
    }
  }
}

TEST_P(SdpaDecodeTest, RowsDeadInEverySplitGiveZeros) {
  SdpaCase c = ShapedCase(3, 3000, 16, 16);
  c.mask = MaskKind::kBool;
  c.keep_probability = 0.0;
  SdpaTester tester(c);
  SdpaResult got;
  ASSERT_EQ(tester.Run(kernel(), &got), "");
  for (float x : got.out) ASSERT_EQ(x, 0.0f) << c.Describe();
}

TEST_P(SdpaDecodeTest, HugeLogitsAcrossSplits) {
  // |scores| around 1e4: the splits' maxima differ by thousands, so a merge that
  // skipped the exp(m_s - m) rescale, or overflowed, would be far off.
  for (CausalKind causal : {CausalKind::kNone, CausalKind::kLowerRight}) {
    SdpaCase c = ShapedCase(2, 3333, 16, 16);
    c.logit_magnitude = 100.0f;
    c.causal = causal;
    Check(c);
  }
}

TEST_P(SdpaDecodeTest, MisalignedAndSeveralWorkers) {
  for (size_t workers : {1, 2, 3}) {
    SdpaCase c = ShapedCase(2, 2049, 67, 33);
    c.batch = 2;
    c.q_heads = 4;
    c.kv_heads = 2;
    c.misalign = true;
    c.mask = MaskKind::kAdditive;
    c.causal = CausalKind::kLowerRight;
    c.workers = workers;
    c.seed = static_cast<uint32_t>(workers);
    Check(c);
  }
}

TEST_P(SdpaDecodeTest, ManyQueriesOverSeveralSplits) {
  // Decode variants must stay correct (if slow) for long query blocks too. In
  // hwy-decode, 100 rows (25 blocks) still split 2100 keys three ways; 300 rows
  // (75 blocks) are enough work items on their own and are not split.
  for (size_t L : {100, 300}) {
    for (CausalKind causal : {CausalKind::kUpperLeft, CausalKind::kLowerRight}) {
      SdpaCase c = ShapedCase(L, 2100, 24, 40);
      c.causal = causal;
      Check(c);
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
        SdpaCase c = seed % 2 == 0 ? ShapedCase(L, S, 64, 64) : ShapedCase(L, S, 19, 21);
        c.q_heads = 4;
        c.kv_heads = seed % 3 == 0 ? 1 : 2;
        c.causal = seed % 2 == 0 ? CausalKind::kLowerRight : CausalKind::kUpperLeft;
        c.window = window;
        c.alibi = seed % 3 != 1;
        c.alibi_scale = 0.02f;
        c.softcap = seed % 4 < 2 ? 8.0f : 0.0f;
        c.logit_magnitude = 2.0f;
        c.sinks = seed % 5 != 0;
        c.seed = seed;
        CheckFloat64(c);
      }
    }
  }
}

TEST_P(SdpaDecodeTest, EachScoreVariantAloneOverLongKeys) {
  uint32_t seed = 800;
  for (int which = 0; which < 4; ++which) {
    for (size_t S : {size_t{2111}, size_t{3000}}) {
      SdpaCase c = ShapedCase(2, S, 32, 16);
      c.q_heads = c.kv_heads = 2;
      c.causal = which == 0 ? CausalKind::kLowerRight : CausalKind::kNone;
      c.window = which == 0 ? 700 : 0;
      c.alibi = which == 1;
      c.alibi_scale = 0.01f;
      c.softcap = which == 2 ? 5.0f : 0.0f;
      c.logit_magnitude = which == 2 ? 4.0f : 1.0f;
      c.sinks = which == 3;
      c.seed = ++seed;
      CheckFloat64(c);
    }
  }
}

TEST_P(SdpaDecodeTest, SinksWithSparseMasksAndDeadSplits) {
  // Dead splits next to live ones, rows dead in every split (zeros, sink or not),
  // and a window whose keys a sparse mask mostly hides.
  for (MaskKind m : {MaskKind::kBool, MaskKind::kAdditive}) {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      SdpaCase c = ShapedCase(4, 3000, 16, 24);
      c.q_heads = c.kv_heads = 2;
      c.mask = m;
      c.keep_probability = seed == 3 ? 0.0 : 0.002;
      c.causal = CausalKind::kLowerRight;
      c.window = seed == 2 ? 1500 : 0;
      c.sinks = true;
      c.seed = seed;
      CheckFloat64(c);
    }
  }
}

TEST_P(SdpaDecodeTest, WindowedDecodeWithNonFiniteKeysAndWorkers) {
  for (size_t workers : {1, 2}) {
    SdpaCase c = ShapedCase(3, 2049, 67, 33);
    c.batch = 2;
    c.q_heads = 4;
    c.kv_heads = 2;
    c.misalign = true;
    c.causal = CausalKind::kLowerRight;
    c.window = workers == 1 ? 2 : 1100;  // 2: most rows miss every bad key
    c.nonfinite_keys = true;
    c.softcap = workers == 1 ? 0.0f : 3.0f;
    c.sinks = true;
    c.workers = workers;
    c.seed = static_cast<uint32_t>(workers);
    CheckFloat64(c);
  }
}

TEST_P(SdpaDecodeTest, WindowedDecodeReadsOnlyTheLastKeys) {
  // L = 1, S = 8192, window 512: keys before S - 512 are NaN and must stay unread.
  if (kernel().algorithm == SdpaAlgorithm::kMaterialized ||
      kernel().algorithm == SdpaAlgorithm::kReference) {
    GTEST_SKIP() << "reads every key by design";
  }
  SdpaCase c = ShapedCase(1, 8192, 64, 64);
  c.q_heads = 4;
  c.kv_heads = 2;
  c.causal = CausalKind::kLowerRight;
  c.window = 512;
  c.sinks = true;
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
