// Runs a kernels_nn test once per Highway target this CPU supports and the
// kernels were compiled for (AVX3, AVX2, SSE4 and SCALAR on an AVX-512 x86), by
// steering the kernels' dynamic dispatch, so every tile width and code path in
// the library is tested on one machine.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "attnrt/kernels/linear.h"
#include "hwy/tests/hwy_gtest.h"
#include "common/steerable_targets.h"

namespace attnrt::testing {

// The targets this CPU supports that the kernels were compiled for.
inline std::vector<int64_t> KernelTargets() { return TargetsToTest(LinearIsa); }

class NnTargetTest : public hwy::TestWithParamTarget {
 protected:
  void SetUp() override {
    hwy::TestWithParamTarget::SetUp();
    ASSERT_EQ(std::string(LinearIsa()), hwy::TargetName(GetParam()));
  }
};

}  // namespace attnrt::testing

// Declares the test suite `suite` (an NnTargetTest) and instantiates it once per
// supported target, named after the target (e.g. LinearTest/AVX2). hwy's own
// macro says `testing::ValuesIn`, which would resolve to attnrt::testing here.
#define ATTNRT_PER_TARGET_SUITE(suite)                                              \
  class suite : public ::attnrt::testing::NnTargetTest {};                          \
  INSTANTIATE_TEST_SUITE_P(suite##Group, suite,                                     \
                           ::testing::ValuesIn(::attnrt::testing::KernelTargets()), \
                           ::hwy::TestParamTargetName)
