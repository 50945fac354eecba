// StoreKvRows (kv_store.h) on every Highway target this CPU supports: f16 bits
// equal float16.h's scalar F32ToF16 (round to nearest even, inf, NaN, subnormals;
// finite values past 65504 saturate to 65504 instead of becoming inf: issue 34
// item 8), q8 matches a float64 reference within rounding, strides
// and misaligned rows are honoured, and nothing outside a row is written.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attnrt/kernels/kv_store.h"
#include "kernels_nn/nn_target_fixture.h"
#include "hwy/targets.h"

namespace attnrt {
namespace {

// The targets this CPU supports that the kernels (StoreKvRows among them, built by the same
// foreach_target) were compiled for; on a static-dispatch build (32-bit ARM) the one it runs.
std::vector<int64_t> SupportedTargets() { return attnrt::testing::KernelTargets(); }

class KvStoreTest : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    hwy::SetSupportedTargetsForTest(GetParam());
    ASSERT_EQ(std::string(StoreKvRowsIsa()), hwy::TargetName(GetParam()));
  }
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

INSTANTIATE_TEST_SUITE_P(Targets, KvStoreTest, ::testing::ValuesIn(SupportedTargets()),
                         [](const ::testing::TestParamInfo<int64_t>& info) {
                           return std::string(hwy::TargetName(info.param));
                         });

// Values that exercise every rounding path of f16: ties, subnormals, overflow.
std::vector<float> HardF16Values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> bits(0, 0xFFFFFFFFu);
  std::vector<float> x(n);
  const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 65504.0f, 65520.0f, 65519.99f,
                           1e-8f, -3e-8f, 6.1e-5f, 5.96e-8f, 2.98e-8f, 1.0f + 1.0f / 2048,
                           1.0f + 3.0f / 2048, 1e6f};
  for (size_t i = 0; i < n; ++i) {
    if (i < sizeof(special) / sizeof(special[0])) {
      x[i] = special[i];
    } else if (i % 3 == 0) {
      x[i] = F32FromBits(bits(rng));  // any bit pattern (NaN payloads too)
    } else {
      // Exponents near f16's range, with the dropped 13 bits often a tie.
      uint32_t u = bits(rng) & 0x87FFFFFFu;
      u = (u & 0x807FFFFFu) | ((100u + bits(rng) % 45u) << 23);
      if (i % 2 == 0) u = (u & ~0x1FFFu) | 0x1000u;
      x[i] = F32FromBits(u);
    }
  }
  return x;
}

TEST_P(KvStoreTest, F16BitsEqualTheScalarConversion) {
  for (size_t cols : {1, 7, 16, 33, 64, 200}) {
    const size_t rows = 5, src_stride = cols + 3, dst_stride = cols + 5;
    const std::vector<float> x = HardF16Values(rows * src_stride, uint32_t(cols));
    std::vector<uint16_t> dst(rows * dst_stride + 1, 0xABCD);
    ASSERT_TRUE(StoreKvRows(KvType::kF16, x.data(), src_stride, rows, cols, dst.data() + 1,
                            dst_stride, nullptr, 0));
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < dst_stride; ++c) {
        const uint16_t got = dst[1 + r * dst_stride + c];
        if (c >= cols) {
          EXPECT_EQ(got, 0xABCD) << "wrote past the row";
          continue;
        }
        const float in = x[r * src_stride + c];
        // Finite values past f16's range saturate to +-65504 (0x7BFF); inf stays inf.
        const bool beyond = std::isfinite(in) && std::fabs(in) > 65504.0f;
        const uint16_t want = beyond ? uint16_t((in < 0 ? 0x8000u : 0u) | 0x7BFFu) : F32ToF16(in);
        EXPECT_EQ(F32ToKvF16(in), std::isnan(in) ? F32ToKvF16(in) : want) << "x=" << in;
        if (in == 1e6f || in == 65520.0f) {
          EXPECT_EQ(got, 0x7BFFu) << "x=" << in << " saturates";
        }
        if (std::isnan(in)) {
          EXPECT_TRUE((got & 0x7C00u) == 0x7C00u && (got & 0x3FFu) != 0) << std::hex << got;
        } else {
          EXPECT_EQ(got, want) << "x=" << in << " target " << hwy::TargetName(GetParam());
        }
      }
    }
    EXPECT_EQ(dst[0], 0xABCD) << "wrote before the first row";
  }
}

TEST_P(KvStoreTest, Q8MatchesAFloat64ReferenceWithinRounding) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (size_t cols : {1, 5, 16, 24, 33, 64, 129}) {
    const size_t rows = 6, src_stride = cols + 1, dst_stride = cols + 2;
    std::vector<float> x(rows * src_stride);
    for (float& v : x) v = normal(rng);
    for (size_t c = 0; c < cols; ++c) x[2 * src_stride + c] = 0.0f;  // an all-zero row
    x[3 * src_stride + cols / 2] = -1000.0f;                          // one dominant value
    std::vector<int8_t> dst(rows * dst_stride + 1, 99);
    std::vector<float> scales(2 * rows, -1.0f);
    ASSERT_TRUE(StoreKvRows(KvType::kQ8, x.data(), src_stride, rows, cols, dst.data() + 1,
                            dst_stride, scales.data(), 2));
    for (size_t r = 0; r < rows; ++r) {
      double amax = 0.0;
      for (size_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(double(x[r * src_stride + c])));
      const float scale = scales[2 * r];
      EXPECT_EQ(scales[2 * r + 1], -1.0f) << "scale stride ignored";
      EXPECT_NEAR(scale, amax / 127.0, amax / 127.0 * 1e-6) << "row " << r;
      for (size_t c = 0; c < dst_stride; ++c) {
        const int8_t q = dst[1 + r * dst_stride + c];
        if (c >= cols) {
          EXPECT_EQ(q, 99) << "wrote past the row";
          continue;
        }
        const double v = x[r * src_stride + c];
        if (amax == 0.0) {
          EXPECT_EQ(q, 0);
          continue;
        }
        EXPECT_GE(q, -127);
        // Rounded to nearest: |q - x / scale| <= 1/2 (plus float division rounding).
        EXPECT_LE(std::fabs(double(q) - v / double(scale)), 0.5 + 1e-4) << "x=" << v;
        // And the value read back is within half a step of x.
        EXPECT_LE(std::fabs(double(q) * scale - v), 0.5 * scale * (1 + 1e-4) + 1e-30);
      }
    }
    EXPECT_EQ(scales[4], 0.0f) << "all-zero row gets scale 0";
  }
}

TEST_P(KvStoreTest, Q8RowWithANonFiniteValueReadsAsNaN) {
  for (float bad : {NAN, INFINITY, -INFINITY}) {
    std::vector<float> x(40, 1.0f);
    x[37] = bad;
    std::vector<int8_t> q(40);
    float scale = 0.0f;
    ASSERT_TRUE(StoreKvRows(KvType::kQ8, x.data(), 40, 1, 40, q.data(), 40, &scale, 1));
    EXPECT_TRUE(std::isnan(scale)) << bad;
  }
}

TEST_P(KvStoreTest, F32CopiesAndBf16IsRefused) {
  const float x[3] = {1.5f, -2.0f, 3.25f};
  float y[3] = {};
  ASSERT_TRUE(StoreKvRows(KvType::kF32, x, 3, 1, 3, y, 3, nullptr, 0));
  EXPECT_EQ(y[2], 3.25f);
  uint16_t z[3] = {7, 7, 7};
  EXPECT_FALSE(StoreKvRows(static_cast<KvType>(3), x, 3, 1, 3, z, 3, nullptr, 0));
  EXPECT_EQ(z[0], 7);
}

}  // namespace
}  // namespace attnrt
