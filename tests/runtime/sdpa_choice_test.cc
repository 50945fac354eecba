// ChooseSdpaKernel (`--kernel auto`): decode for few queries, the materialized
// family when weights are wanted, otherwise flash; and on Highway's AVX2 target
// the xsimd AVX2 twins, which were measured faster there. Highway's dispatch is
// steered to each target this CPU supports, as an AVX2-only CPU would run it.
#include <gtest/gtest.h>

#include <string>

#include "attnrt/runtime/sdpa.h"
#include "hwy/targets.h"

namespace attnrt {
namespace {

SdpaParams Call(size_t q_len, bool weights) {
  static float weights_buffer[1];
  SdpaParams p;
  p.batch = 1;
  p.q_heads = p.kv_heads = 8;
  p.q_len = q_len;
  p.kv_len = 4096;
  p.qk_dim = p.v_dim = 64;
  p.weights = weights ? weights_buffer : nullptr;
  return p;
}

std::string Chosen(size_t q_len, bool weights) { return ChooseSdpaKernel(Call(q_len, weights)).name; }

TEST(SdpaAutoChoice, FewQueriesDecodeUnlessWeightsAreWanted) {
  EXPECT_EQ(Chosen(1, false), "hwy-decode");
  EXPECT_EQ(Chosen(16, false), "hwy-decode");
  EXPECT_NE(Chosen(17, false), "hwy-decode");
  EXPECT_NE(Chosen(1, true), "hwy-decode");
  EXPECT_TRUE(FindSdpaKernel(Chosen(1, true).c_str())->returns_weights);
  EXPECT_TRUE(FindSdpaKernel(Chosen(512, true).c_str())->returns_weights);
}

TEST(SdpaAutoChoice, BestHighwayTargetOtherThanAvx2KeepsHighway) {
  const std::string isa = FindSdpaKernel("hwy-flash")->isa();
  if (isa == "AVX2") GTEST_SKIP() << "Highway runs AVX2 here: see the next test";
  EXPECT_EQ(Chosen(1024, false), "hwy-flash");
  EXPECT_EQ(Chosen(1024, true), "hwy-materialized");
}

#if HWY_ARCH_X86
bool Available(const char* name) {
  const SdpaKernel* kernel = FindSdpaKernel(name);
  return kernel != nullptr && kernel->available();
}

// Runs `check` with Highway's dispatch limited to `target`; false if this CPU or
// build lacks the target.
template <class Check>
bool WithHighwayTarget(int64_t target, Check check) {
  if ((hwy::SupportedTargets() & target) == 0) return false;
  hwy::SetSupportedTargetsForTest(target);
  check();
  hwy::SetSupportedTargetsForTest(0);
  return true;
}

TEST(SdpaAutoChoice, Avx2TargetPicksTheXsimdTwinsMeasuredFaster) {
  const bool ran = WithHighwayTarget(HWY_AVX2, [] {
    ASSERT_EQ(std::string(FindSdpaKernel("hwy-flash")->isa()), "AVX2");
    ASSERT_TRUE(Available("xsimd-flash-avx2"));  // AVX2 + FMA, as Highway's AVX2 needs
    EXPECT_EQ(Chosen(1024, false), "xsimd-flash-avx2");
    EXPECT_EQ(Chosen(1024, true), "xsimd-materialized-avx2");
    EXPECT_EQ(Chosen(1, false), "hwy-decode");
  });
  if (!ran) GTEST_SKIP() << "this CPU has no AVX2";
  // Dispatch restored: the best target chooses as before.
  EXPECT_EQ(Chosen(1024, false) == "xsimd-flash-avx2",
            std::string(FindSdpaKernel("hwy-flash")->isa()) == "AVX2");
}
#endif

}  // namespace
}  // namespace attnrt
