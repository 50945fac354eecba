// q4_0 blocks (weight_q4_0.h, runtime/FORMAT.md): GGUF's byte layout (f16 d, then the low
// nibbles holding values 0..15 and the high nibbles 16..31), the scale ggml picks (the value
// of largest magnitude stored as -8 d), the padding of a short block, and the tiny-block rule:
// every value within the documented bound of what it stands for and no block whose largest
// value reaches 2^-25 zeroed. Float64 arithmetic is the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/weight_codecs.h"
#include "attnrt/kernels/weight_q4_0.h"

namespace attnrt::testing {
namespace {

// Nibble pattern (7 j) mod 16 at scale 0.5: value j is ((7 j) mod 16 - 8) / 2, so the first
// value (j = 0) is -4, the largest magnitude: d = -4 / -8 = 0.5 and nibble j = (7 j) mod 16.
TEST(Q4_0Blocks, GgufByteLayout) {
  std::vector<float> x(kQ4_0Block);
  for (size_t j = 0; j < x.size(); ++j) x[j] = static_cast<float>(int(j * 7 % 16) - 8) * 0.5f;
  uint8_t block[kQ4_0BlockBytes];
  QuantizeQ4_0Row(x.data(), x.size(), block);
  EXPECT_EQ(block[0], 0x00);  // f16 0.5 = 0x3800, little-endian
  EXPECT_EQ(block[1], 0x38);
  for (size_t j = 0; j < 16; ++j) {
    const unsigned low = j * 7 % 16, high = (j + 16) * 7 % 16;
    EXPECT_EQ(block[2 + j], low | high << 4) << "byte " << j;
  }
  for (size_t j = 0; j < kQ4_0Block; ++j) EXPECT_EQ(Q4_0Value(block, j), x[j]) << j;
}

// A positive largest value gets a negative d (ggml's m / -8) and nibble 0.
TEST(Q4_0Blocks, PositiveLargestValueHasANegativeScale) {
  std::vector<float> x(kQ4_0Block, 0.0f);
  x[17] = 4.0f;
  x[3] = -3.5f;
  uint8_t block[kQ4_0BlockBytes];
  QuantizeQ4_0Row(x.data(), x.size(), block);
  EXPECT_EQ(Q4_0ScaleBits(block), 0xB800u);  // -0.5
  EXPECT_EQ(Q4_0Nibble(block, 17), 0u);
  EXPECT_EQ(Q4_0Nibble(block, 3), 15u);  // -3.5 / -0.5 = 7
  EXPECT_EQ(Q4_0Nibble(block, 0), 8u);
  EXPECT_EQ(Q4_0Value(block, 17), 4.0f);
  EXPECT_EQ(Q4_0Value(block, 3), -3.5f);
}

// 40 values: a full block and one of 8, padded with nibble 8 (value 0).
TEST(Q4_0Blocks, ShortLastBlockIsPaddedWithZeros) {
  std::vector<float> x(40, 1.0f);
  x[39] = -2.0f;
  std::vector<uint8_t> row(WeightBlocksPerRow(kQ4_0Info, x.size()) * kQ4_0BlockBytes);
  ASSERT_EQ(row.size(), 36u);
  QuantizeQ4_0Row(x.data(), x.size(), row.data());
  const uint8_t* last = row.data() + kQ4_0BlockBytes;
  EXPECT_EQ(Q4_0Value(last, 7), -2.0f);
  for (size_t j = 8; j < kQ4_0Block; ++j) EXPECT_EQ(Q4_0Nibble(last, j), 8u) << j;
  const WeightMatrixRef m{row.data(), nullptr, x.size()};
  for (size_t k = 0; k < x.size(); ++k) EXPECT_EQ(Q4_0Scalar::Value(m, 0, k), x[k]) << k;
}

// Tiny blocks (the scale an f16 subnormal, or flushed to zero by rounding): the scale's
// magnitude covers |m| / 8.5, every value is within half a step (values of m's sign) or the
// clamp at 7 steps (the other sign), and a block whose largest value reaches 2^-25 keeps a
// nonzero value.
TEST(Q4_0Blocks, TinyBlocksStayWithinTheBoundAndAreNeverZeroed) {
  for (double amax : {1e-2, 1e-3, 4.9e-4, 1e-4, 1e-5, 1e-6, 3e-7, 1e-7, 3.0e-8,
                      std::ldexp(1.0, -25)}) {
    std::vector<float> x(2 * kQ4_0Block);
    for (size_t i = 0; i < x.size(); ++i) {
      // The block's largest value at amax (negative in block 0, positive in block 1), the rest
      // spread below it with both signs.
      const double v = amax * (i % kQ4_0Block == 5 ? 1.0 : static_cast<double>(i % 9) / 9.0);
      x[i] = static_cast<float>((i % kQ4_0Block == 5 ? i < kQ4_0Block : i % 2 == 1) ? -v : v);
    }
    std::vector<uint8_t> row(2 * kQ4_0BlockBytes);
    QuantizeQ4_0Row(x.data(), x.size(), row.data());
    for (size_t b = 0; b < 2; ++b) {
      const uint8_t* block = row.data() + b * kQ4_0BlockBytes;
      const double d = std::fabs(double(F16ToF32(Q4_0ScaleBits(block))));
      const double m = x[b * kQ4_0Block + 5];
      ASSERT_GT(d, 0.0) << "amax " << amax;
      EXPECT_GE(d * 8.5, std::fabs(m)) << "amax " << amax;
      bool nonzero = false;
      for (size_t j = 0; j < kQ4_0Block; ++j) {
        const double want = x[b * kQ4_0Block + j], got = Q4_0Value(block, j);
        nonzero = nonzero || got != 0.0;
        const bool clamped = want * m < 0 && std::fabs(want) > 7.5 * d;
        const double bound = clamped ? std::fabs(m) - 7 * d : 0.5 * d;
        EXPECT_LE(std::fabs(got - want), bound * (1 + 1e-6))
            << "amax " << amax << " value " << want << " came back as " << got;
      }
      EXPECT_TRUE(nonzero) << "amax " << amax << ": block " << b << " was zeroed";
    }
  }
}

// Above the subnormal range the rule changes nothing: d is m / -8 rounded to nearest f16,
// ggml's choice.
TEST(Q4_0Blocks, NormalScalesAreRoundedToNearest) {
  for (double m : {5e-4, 3e-3, -0.02, 0.7, -3.0, 1000.0, 5e5}) {
    std::vector<float> x(kQ4_0Block, 0.0f);
    x[9] = static_cast<float>(m);
    uint8_t block[kQ4_0BlockBytes];
    QuantizeQ4_0Row(x.data(), x.size(), block);
    EXPECT_EQ(Q4_0ScaleBits(block), F32ToF16(static_cast<float>(m) / -8.0f)) << m;
    EXPECT_EQ(Q4_0Nibble(block, 9), 0u) << m;
  }
}

}  // namespace
}  // namespace attnrt::testing
