// The softmax's float-only exp (kernels/hwy/exp-inl.h) on every Highway target this
// CPU runs, against std::exp in double: accuracy over the whole range the softmax
// uses, exact zeros for masked scores and -inf, and NaN kept (PyTorch's softmax turns a
// NaN score into a NaN row; x86's max would have turned it into a tiny weight).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attnrt/kernels/elementwise.h"
#include "kernels/blocked/sdpa_mask.h"
#include "kernels_nn/nn_target_fixture.h"
#include "kernels_nn/nn_test_buffers.h"

namespace attnrt::testing {
namespace {

ATTNRT_PER_TARGET_SUITE(SoftmaxExpTest);

TEST_P(SoftmaxExpTest, DenseSweepWithinThreeTenMillionths) {
  // Every 2^-10 over [-87, 88]: the normal-result range, both sides of 0.
  const std::vector<float> x = DenseGrid(-87.0, 88.0, 1.0 / 1024.0);
  std::vector<float> y = x;
  SoftmaxExpInPlace(y.data(), y.size());
  double worst = 0.0;
  float worst_x = 0.0f;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(double(x[i]));
    const double rel = std::fabs(double(y[i]) - want) / want;
    if (rel > worst) {
      worst = rel;
      worst_x = x[i];
    }
  }
  EXPECT_LE(worst, 3e-7) << "at x = " << worst_x;
}

TEST_P(SoftmaxExpTest, UnderflowIsExactZeroAndNaNStaysNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Lanes mix kinds so a select that leaks between lanes shows up.
  // kMaskedScore is -inf; -1e30 and -FLT_MAX are finite scores a softmax may meet.
  const float lowest = std::numeric_limits<float>::lowest();
  std::vector<float> x = {-87.5f, kMaskedScore, -inf, nan, 0.0f, -1e10f, nan, -88.0f,
                          1.0f,   -0.0f,        nan,  -1e30f, -100.0f, 2.0f, nan, lowest,
                          nan};
  std::vector<float> y = x;
  SoftmaxExpInPlace(y.data(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(y[i])) << "lane " << i << " gave " << y[i];
    } else if (x[i] < -87.0f) {
      EXPECT_EQ(y[i], 0.0f) << "x = " << x[i];
    } else {
      EXPECT_NEAR(y[i], std::exp(double(x[i])), 3e-7 * std::exp(double(x[i]))) << "x = " << x[i];
    }
  }
}

}  // namespace
}  // namespace attnrt::testing
