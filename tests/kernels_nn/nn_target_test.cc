// Reports which Highway target the nn kernels dispatch to, so CI logs show the
// ISA every other kernels_nn test ran on (hwy::TargetName of the dispatched target).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "attnrt/kernels/elementwise.h"
#include "attnrt/kernels/layer_norm.h"
#include "attnrt/kernels/linear.h"

namespace attnrt::testing {
namespace {

TEST(NnKernelTarget, ReportsHighwayTarget) {
  const std::string linear = LinearIsa();
  std::printf("[ target   ] hwy: Linear %s, LayerNorm %s, elementwise %s\n", linear.c_str(),
              LayerNormIsa(), ElementwiseIsa());
  RecordProperty("hwy_target", linear);
  EXPECT_FALSE(linear.empty());
  // All three files are compiled for the same targets, so they pick the same one.
  EXPECT_EQ(linear, LayerNormIsa());
  EXPECT_EQ(linear, ElementwiseIsa());
}

}  // namespace
}  // namespace attnrt::testing
