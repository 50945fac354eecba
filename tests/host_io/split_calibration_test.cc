// CalibrateSplit: the threshold formula on given figures, and a real calibration of
// a pool (positive, finite figures; the pool gets the threshold it reports). Never
// asserts on speed.
#include "host/split_calibration.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attnrt::testing {
namespace {

TEST(SplitCalibration, ThresholdIsTwiceTheBreakEven) {
  double us = -1;
  // 2 workers, 5 us dispatch: break-even at 10 us of one-thread work, threshold 20 us.
  SplitThreshold t = SplitThresholdFor(2, 5.0, 10.0, 4.0, &us);
  EXPECT_DOUBLE_EQ(us, 20.0);
  EXPECT_EQ(t.flops, 200000u);  // 20 us at 10 GFLOP/s
  EXPECT_EQ(t.bytes, 80000u);   // 20 us at 4 GB/s
  // 4 workers: 2 x 6 x 4 / 3 = 16 us.
  t = SplitThresholdFor(4, 6.0, 1.0, 1.0, &us);
  EXPECT_DOUBLE_EQ(us, 16.0);
  EXPECT_EQ(t.flops, 16000u);
  // One worker: nothing to split; no rate measured: nothing stays inline for it.
  t = SplitThresholdFor(1, 5.0, 10.0, 4.0, &us);
  EXPECT_EQ(t.flops, 0u);
  EXPECT_EQ(us, 0.0);
  EXPECT_EQ(SplitThresholdFor(2, 5.0, 0.0, NAN, &us).bytes, 0u);
  EXPECT_EQ(SplitThresholdFor(2, 1e30, 1e30, 1.0, &us).flops, UINT64_MAX);
}

TEST(SplitCalibration, SetsThePoolsThreshold) {
  ThreadPool pool(2);
  EXPECT_EQ(pool.split_threshold().flops, 0u) << "unset until calibrated";
  const SplitCalibration c = CalibrateSplit(&pool);
  EXPECT_EQ(c.workers, 2u);
  EXPECT_GT(c.dispatch_us, 0.0);
  EXPECT_LT(c.dispatch_us, 1e6) << "capped at 1 ms a job, median of 21";
  EXPECT_TRUE(std::isfinite(c.gflops) && c.gflops > 0.0);
  EXPECT_TRUE(std::isfinite(c.gbytes_per_s) && c.gbytes_per_s > 0.0);
  EXPECT_GT(c.threshold.flops, 0u);
  EXPECT_GT(c.threshold.bytes, 0u);
  EXPECT_EQ(pool.split_threshold().flops, c.threshold.flops);
  EXPECT_EQ(pool.split_threshold().bytes, c.threshold.bytes);
  EXPECT_NE(DescribeSplit(c).find("run on the calling thread"), std::string::npos);

  ThreadPool one(1);
  const SplitCalibration serial = CalibrateSplit(&one);
  EXPECT_EQ(serial.threshold.flops, 0u);
  EXPECT_EQ(DescribeSplit(serial), "one worker: every job on the calling thread");
}

}  // namespace
}  // namespace attnrt::testing
