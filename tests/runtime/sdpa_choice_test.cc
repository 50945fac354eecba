// ChooseSdpaKernel (`--kernel auto`): decode for few queries, the materialized
// family when weights are wanted, otherwise flash, always Highway's (its xsimd
// twins were not measured faster on any ISA). Highway's dispatch is steered to
// each target this CPU supports, as a CPU with only that ISA would run it.
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

void ExpectHighwayBlockedVariants() {
  EXPECT_EQ(Chosen(1024, false), "hwy-flash");
  EXPECT_EQ(Chosen(1024, true), "hwy-materialized");
  EXPECT_EQ(Chosen(1, false), "hwy-decode");
}

TEST(SdpaAutoChoice, BestHighwayTargetKeepsHighway) { ExpectHighwayBlockedVariants(); }

// Every Highway target this CPU supports and the kernels were built for, one at
// a time (x86 here: AVX3, AVX2, SSE4; AArch64: SVE2, SVE, NEON), with
// the xsimd twins of that ISA registered.
TEST(SdpaAutoChoice, EveryHighwayTargetKeepsHighway) {
  int targets_checked = 0;
  const uint64_t supported = static_cast<uint64_t>(hwy::SupportedTargets());
  for (uint64_t bit = 1; bit != 0; bit <<= 1) {
    if ((supported & bit) == 0) continue;
    const int64_t target = static_cast<int64_t>(bit);
    hwy::SetSupportedTargetsForTest(target);
    // A target the kernels were not built for falls back to another one.
    if (std::string(FindSdpaKernel("hwy-flash")->isa()) == hwy::TargetName(target)) {
      SCOPED_TRACE(hwy::TargetName(target));
      ExpectHighwayBlockedVariants();
      ++targets_checked;
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  // Highway 1.0.3 on ARMv7 detects no targets at run time (SupportedTargets() is
  // EMU128 | SCALAR) and the kernels always run their static NEON build there: the
  // previous test covers that one target.
  if (targets_checked == 0) GTEST_SKIP() << "Highway's dispatch cannot be steered here";
}

}  // namespace
}  // namespace attnrt
