// Reports which Highway target the nn kernels dispatch to, so CI logs show the
// ISA every other kernels_nn test ran on (hwy::TargetName of the dispatched target).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "attnrt/kernels/elementwise.h"
#include "attnrt/kernels/layer_norm.h"
#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/rope.h"

namespace attnrt::testing {
namespace {

TEST(NnKernelTarget, ReportsHighwayTarget) {
  const std::string linear = LinearIsa();
  std::printf("[ target   ] hwy: Linear %s, LayerNorm %s, elementwise %s, RoPE %s\n",
              linear.c_str(), LayerNormIsa(), ElementwiseIsa(), RopeIsa());
  RecordProperty("hwy_target", linear);
  EXPECT_FALSE(linear.empty());
  // All four files are compiled for the same targets, so they pick the same one.
  EXPECT_EQ(linear, LayerNormIsa());
  EXPECT_EQ(linear, ElementwiseIsa());
  EXPECT_EQ(linear, RopeIsa());
}

}  // namespace
}  // namespace attnrt::testing
