// q8 blocks of tiny values (issue 34, item 11): a block whose max |x| is below ~3.8e-6
// had its f16 scale flushed to zero and became zeros, silently, and subnormal scales
// rounded down clamped the largest value (24% error at 1e-5). Each value must come
// back within half a scale step, the scale must cover max|x| / 127.5, and a nonzero
// block must never dequantize to zeros. Float64 arithmetic is the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/weight_q8.h"

namespace attnrt::testing {
namespace {

TEST(Q8TinyBlocks, EveryValueWithinHalfAStepAndNoBlockZeroed) {
  for (double amax : {1e-2, 7e-3, 1e-3, 1e-4, 1e-5, 3.7e-6, 1e-6, 1e-7, 1e-9, 1e-30}) {
    std::vector<float> x(2 * kQ8Block);
    for (size_t i = 0; i < x.size(); ++i) {
      // The block's max at amax, the rest spread below it, both signs.
      const double v = amax * (i % kQ8Block == 3 ? 1.0 : static_cast<double>(i % 7) / 7.0);
      x[i] = static_cast<float>(i % 2 ? -v : v);
    }
    std::vector<int8_t> q(x.size());
    std::vector<uint16_t> scales(Q8BlocksPerRow(x.size()));
    QuantizeQ8Row(x.data(), x.size(), q.data(), scales.data());
    for (size_t b = 0; b < scales.size(); ++b) {
      const double scale = F16ToF32(scales[b]);
      const double block_max = std::fabs(static_cast<double>(x[b * kQ8Block + 3]));
      ASSERT_GT(scale, 0.0) << "amax " << amax << ": the block was zeroed";
      EXPECT_GE(scale * 127.5, block_max) << "amax " << amax;
      for (size_t i = b * kQ8Block; i < (b + 1) * kQ8Block; ++i) {
        const double back = scale * q[i];
        EXPECT_LE(std::fabs(back - x[i]), 0.5 * scale * (1 + 1e-6))
            << "amax " << amax << " value " << x[i] << " came back as " << back;
      }
    }
  }
}

// Above the subnormal range the rule changes nothing: the scale is max|x| / 127
// rounded to nearest f16, as before (files of ordinary weights keep their bytes).
TEST(Q8TinyBlocks, NormalScalesAreRoundedToNearest) {
  for (double amax : {7.8e-3, 0.02, 0.5, 3.0, 1000.0}) {
    std::vector<float> x(kQ8Block, 0.0f);
    x[5] = static_cast<float>(amax);
    std::vector<int8_t> q(x.size());
    uint16_t scale_bits;
    QuantizeQ8Row(x.data(), x.size(), q.data(), &scale_bits);
    EXPECT_EQ(scale_bits, F32ToF16(static_cast<float>(amax) / 127.0f)) << amax;
    EXPECT_EQ(q[5], 127) << amax;
  }
}

}  // namespace
}  // namespace attnrt::testing
