// SDPA over an f16 or q8 KV cache (SdpaParams::kv_type), for every variant in the
// registry and every Highway target this CPU supports. A variant that reads typed
// K/V (hwy-decode, hwy-flash, reference) must match
//   - the tester's float64 oracle on the same typed cache (widened exactly; the
//     reference kernel, itself a variant here, is checked against it too), within
//     kSdpaTolerance, and
//   - the f32-cache result within the quantization error of the type,
// over decode split edges, GQA, E != Ev, odd head dims, every causal kind, the
// score variants, masks, misalignment, workers and non-finite queries. Every
// other variant must refuse a typed cache by name (kUnsupported).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "kernels/sdpa_tester.h"

namespace attnrt::testing {
namespace {

// Bound on MaxRelativeError between the typed-cache output and the f32-cache
// output on these cases (random N(0,1) inputs, |scores| ~ 1): f16 keeps 11 bits
// (relative error <= 2^-12 per element); q8 rounds each element to within
// max|row| / 254, about 1% of a typical element. Measured worst (printed as
// "kv error" by each test): f16 4.5e-4, q8 9.7e-3; the bounds leave about 3-4x.
double QuantizationTolerance(KvType t) { return t == KvType::kF16 ? 2e-3 : 3e-2; }

const KvType kTypedKv[] = {KvType::kF16, KvType::kQ8};

class SdpaKvCacheTest : public SdpaRegistryTest {
 protected:
  // Runs the case with a typed cache on the variant and checks it as described above.
  void CheckTyped(SdpaCase c) {
    const std::shared_ptr<const SdpaTester> typed = SharedTester(c);
    SdpaResult got;
    if (!kernel().reads_typed_kv) {
      const std::string msg = typed->Run(kernel(), &got);
      EXPECT_NE(msg.find("reads f32 keys and values only"), std::string::npos) << msg;
      EXPECT_NE(msg.find(kernel().name), std::string::npos) << msg;
      return;
    }
    ASSERT_EQ(typed->Run(kernel(), &got), "") << c;
    const std::shared_ptr<const SdpaResult> f64 = Float64Result(c);
    EXPECT_LE(MaxRelativeErrorNanAware(got.out, f64->out), kSdpaTolerance)
        << "vs float64 on the typed cache, " << c;
    const SdpaCase f32_case = SdpaCase(c).KvType(KvType::kF32);
    const std::shared_ptr<const SdpaResult> want = ReferenceResult(f32_case);
    const double err = MaxRelativeErrorNanAware(got.out, want->out);
    EXPECT_LE(err, QuantizationTolerance(c.kv_type)) << "vs the f32 cache, " << c;
    double& worst = worst_[c.kv_type == KvType::kF16 ? 0 : 1];
    worst = std::max(worst, err);
  }
  void TearDown() override {
    // The measured distance to the f32 cache, for the tolerance comment above.
    if (worst_[0] + worst_[1] > 0.0) {
      std::printf("[ kv error ] worst vs the f32 cache: f16 %.3g, q8 %.3g\n", worst_[0], worst_[1]);
    }
    SdpaRegistryTest::TearDown();
  }
  double worst_[2] = {0.0, 0.0};  // f16, q8
};
ATTNRT_INSTANTIATE_PER_VARIANT(SdpaKvCacheTest);

TEST_P(SdpaKvCacheTest, DecodeSplitEdgesEveryCausalRule) {
  const CausalKind causals[] = {CausalKind::kNone, CausalKind::kUpperLeft, CausalKind::kLowerRight};
  uint32_t seed = 0;
  for (KvType t : kTypedKv) {
    for (size_t S : {1, 63, 64, 65, 1023, 1025, 2111}) {
      for (size_t L : {1, 3}) {
        const bool wide = seed % 2 == 0;
        CheckTyped(SdpaCase()
                       .Shape(L, S, wide ? 64 : 24, wide ? 64 : 33)
                       .Heads(2, 2)
                       .Causal(causals[seed % 3])
                       .KvType(t)
                       .Seed(seed + 1));
        ++seed;
      }
    }
  }
}

TEST_P(SdpaKvCacheTest, GroupedQueryHeadsAndOddDims) {
  const size_t groups[][2] = {{8, 4}, {6, 1}, {6, 6}, {3, 3}};
  const size_t dims[][2] = {{24, 24}, {33, 33}, {48, 48}, {64, 16}, {17, 40}};
  uint32_t seed = 100;
  for (KvType t : kTypedKv) {
    for (size_t d = 0; d < 5; ++d) {
      for (size_t L : {1, 4, 70}) {
        CheckTyped(SdpaCase()
                       .Shape(L, 300 + 37 * d, dims[d][0], dims[d][1])
                       .Batch(2)
                       .Heads(groups[d % 4][0], groups[d % 4][1])
                       .Causal(L == 70 ? CausalKind::kUpperLeft : CausalKind::kLowerRight)
                       .Misaligned(d % 2 == 1)
                       .KvType(t)
                       .Seed(++seed));
      }
    }
  }
}

TEST_P(SdpaKvCacheTest, ScoreVariantsMasksAndWorkers) {
  uint32_t seed = 200;
  for (KvType t : kTypedKv) {
    for (size_t L : {1, 2, 65}) {
      for (int combo = 0; combo < 6; ++combo) {
        SdpaCase c =
            SdpaCase()
                .Shape(L, 1500, 24, 33)
                .Heads(4, 2)
                .Causal(combo % 2 == 0 ? CausalKind::kLowerRight : CausalKind::kUpperLeft)
                .Window(combo < 3 ? 100 + combo * 300 : 0)
                .Softcap(combo == 2 || combo == 4 ? 3.0f : 0.0f)
                .Mask(combo == 5 ? MaskKind::kBool
                                 : (combo == 3 ? MaskKind::kAdditive : MaskKind::kNone))
                .Workers(1 + combo % 3)
                .KvType(t)
                .Seed(++seed);
        if (combo == 1 || combo == 3) c.Alibi();
        if (combo >= 4 || combo == 0) c.Sinks();
        CheckTyped(c);
      }
    }
  }
}

TEST_P(SdpaKvCacheTest, NonFiniteQueries) {
  uint32_t seed = 300;
  for (KvType t : kTypedKv) {
    for (size_t L : {1, 4, 80}) {
      CheckTyped(SdpaCase()
                     .Shape(L, 1100, 33, 24)
                     .Heads(4, 2)
                     .Causal(CausalKind::kLowerRight)
                     .NonfiniteQueries()
                     .KvType(t)
                     .Seed(++seed));
    }
  }
}

TEST_P(SdpaKvCacheTest, HugeLogits) {
  // |scores| ~ 1e4: a q8 scale lost or applied twice cannot hide here.
  for (KvType t : kTypedKv) {
    for (size_t L : {1, 64}) {
      const SdpaCase c =
          SdpaCase().Shape(L, 700, 16, 16).Logits(30.0f).Causal(CausalKind::kLowerRight).KvType(t);
      if (!kernel().reads_typed_kv) GTEST_SKIP() << "f32 K/V only";
      SdpaResult got;
      ASSERT_EQ(SharedTester(c)->Run(kernel(), &got), "");
      EXPECT_LE(MaxRelativeError(got.out, ReferenceResult(c)->out), kSdpaTolerance) << c;
    }
  }
}

TEST_P(SdpaKvCacheTest, TypedCacheChangesTheResult) {
  // The typed path must really read the typed bytes: with q8 the output moves away
  // from the f32 cache's by more than float rounding.
  if (!kernel().reads_typed_kv) GTEST_SKIP() << "f32 K/V only";
  const SdpaCase c = SdpaCase().Shape(2, 500, 32, 32).KvType(KvType::kQ8);
  SdpaTester typed(c);
  SdpaTester f32(SdpaCase(c).KvType(KvType::kF32));
  SdpaResult a, b;
  ASSERT_EQ(typed.Run(kernel(), &a), "");
  ASSERT_EQ(f32.Run(kernel(), &b), "");
  EXPECT_GT(MaxRelativeError(a.out, b.out), 1e-4);
}

// bf16 (a weight type's code 3) is no KV type: refused by its code.
TEST_P(SdpaKvCacheTest, Bf16CacheIsRefused) {
  SdpaTester tester(SdpaCase().Shape(1, 8, 8, 8));
  SdpaParams& p = const_cast<SdpaParams&>(tester.params());
  p.kv_type = static_cast<KvType>(3);
  p.k_data = p.k;
  p.v_data = p.v;
  p.k = p.v = nullptr;
  SdpaResult got;
  const std::string msg = tester.Run(kernel(), &got);
  EXPECT_NE(msg.find("type code 3 is not supported"), std::string::npos) << msg;
}

TEST(SdpaKvCacheChoice, AutoPicksAKernelThatReadsTypedKv) {
  for (KvType t : kTypedKv) {
    for (size_t L : {1, 16, 17, 500}) {
      for (bool weights : {false, true}) {
        SdpaParams p;
        p.q_len = L;
        p.kv_len = 100;
        p.kv_type = t;
        float w = 0.0f;
        if (weights) p.weights = &w;
        const SdpaKernel& k = ChooseSdpaKernel(p);
        EXPECT_TRUE(k.reads_typed_kv) << k.name << " L=" << L << " weights=" << weights;
        EXPECT_EQ(k.returns_weights || !weights, true) << k.name;
      }
    }
  }
}

}  // namespace
}  // namespace attnrt::testing
