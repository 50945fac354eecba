// q4_K and q6_K super-blocks (weight_q4_K.h, weight_q6_K.h, runtime/FORMAT.md): the scalar
// codecs against a float64 decode of hand-built blocks written here from ggml's layout (its
// dequantize_row_q4_K / _q6_K loop structure, not this code's indexing), and the quantizers:
// every value within the documented bound of what it stands for (the bound from the stored
// block and float64 math), tiny blocks not zeroed, zeros exact, a short block padded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/weight_codecs.h"
#include "attnrt/kernels/weight_q4_K.h"
#include "attnrt/kernels/weight_q6_K.h"

namespace attnrt::testing {
namespace {

void PutHalf(uint8_t* p, uint16_t h) {
  p[0] = static_cast<uint8_t>(h);
  p[1] = static_cast<uint8_t>(h >> 8);
}

// float64 value of f16 bits (normal and subnormal), independent of float16.h.
double HalfValue(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

// ggml's dequantize_row_q4_K for one block, in float64: for each 64 values, sub-blocks is and
// is + 1 (get_scale_min_k4), 32 low nibbles then 32 high nibbles of the next 32 bytes.
std::vector<double> DecodeQ4_K(const uint8_t* b) {
  const double d = HalfValue(static_cast<uint16_t>(b[0] | b[1] << 8));
  const double dmin = HalfValue(static_cast<uint16_t>(b[2] | b[3] << 8));
  const uint8_t* scales = b + 4;
  const uint8_t* q = b + 16;
  const auto scale_min = [&](int j, int* sc, int* m) {
    if (j < 4) {
      *sc = scales[j] & 63;
      *m = scales[j + 4] & 63;
    } else {
      *sc = (scales[j + 4] & 0xF) | ((scales[j - 4] >> 6) << 4);
      *m = (scales[j + 4] >> 4) | ((scales[j] >> 6) << 4);
    }
  };
  std::vector<double> y;
  for (int j = 0, is = 0; j < 256; j += 64, is += 2, q += 32) {
    int sc, m;
    scale_min(is, &sc, &m);
    for (int l = 0; l < 32; ++l) y.push_back(d * sc * (q[l] & 0xF) - dmin * m);
    scale_min(is + 1, &sc, &m);
    for (int l = 0; l < 32; ++l) y.push_back(d * sc * (q[l] >> 4) - dmin * m);
  }
  return y;
}

// ggml's dequantize_row_q6_K for one block, in float64: two halves of 128, each l < 32 giving
// values l, l + 32, l + 64, l + 96 from ql[l], ql[l + 32] (low, then high nibbles) and qh[l].
std::vector<double> DecodeQ6_K(const uint8_t* b) {
  const double d = HalfValue(static_cast<uint16_t>(b[208] | b[209] << 8));
  std::vector<double> y(256);
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const int8_t* sc = reinterpret_cast<const int8_t*>(b + 192);
  for (int n = 0; n < 256; n += 128, ql += 64, qh += 32, sc += 8) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[n + l] = d * sc[is] * q1;
      y[n + l + 32] = d * sc[is + 2] * q2;
      y[n + l + 64] = d * sc[is + 4] * q3;
      y[n + l + 96] = d * sc[is + 6] * q4;
    }
  }
  return y;
}

// Hand-built q4_K block: every byte pattern of the scales (top bits set, so sub-blocks 4..7
// take their high scale and min bits from bytes 0..7), nibbles (7 i + 3) mod 256.
TEST(KQuantBlocks, Q4_KDecodesAsGgmlsLayout) {
  for (uint16_t d_bits : {0x2E66u, 0x0203u, 0xB400u}) {  // ~0.1, a subnormal, -0.25
    uint8_t b[kQ4_KBlockBytes];
    PutHalf(b, d_bits);
    PutHalf(b + 2, 0x2A00);  // dmin 0.046875
    const uint8_t scales[12] = {0xC1, 0x7F, 0x80, 0x3F, 0x45, 0xFF, 0x00, 0x9A,
                                0x12, 0xF0, 0x0F, 0xA5};
    for (size_t i = 0; i < 12; ++i) b[4 + i] = scales[i];
    for (size_t i = 0; i < 128; ++i) b[16 + i] = static_cast<uint8_t>(7 * i + 3);
    const std::vector<double> want = DecodeQ4_K(b);
    for (size_t j = 0; j < kQ4_KBlock; ++j) {
      // Both products are exact; the one subtraction rounds to f32 (exact in float64 here).
      EXPECT_EQ(Q4_KValue(b, j), static_cast<float>(want[j])) << "d " << d_bits << " value " << j;
    }
    // The sub-block scales and mins themselves, from ggml's packing.
    unsigned sc, m;
    Q4_KScaleMin(b, 0, &sc, &m);
    EXPECT_EQ(sc, 0x01u);
    EXPECT_EQ(m, 0x05u);
    Q4_KScaleMin(b, 4, &sc, &m);
    EXPECT_EQ(sc, 0x02u | 3u << 4);  // low nibble of byte 8, top bits of byte 0
    EXPECT_EQ(m, 0x01u | 1u << 4);   // high nibble of byte 8, top bits of byte 4
    Q4_KScaleMin(b, 7, &sc, &m);
    EXPECT_EQ(sc, 0x05u | 0u << 4);
    EXPECT_EQ(m, 0x0Au | 2u << 4);
  }
}

TEST(KQuantBlocks, Q6_KDecodesAsGgmlsLayout) {
  for (uint16_t d_bits : {0x1C00u, 0x0011u, 0x9C00u}) {  // 2^-8, a subnormal, -2^-8
    uint8_t b[kQ6_KBlockBytes];
    for (size_t i = 0; i < 192; ++i) b[i] = static_cast<uint8_t>(13 * i + 5);
    const int8_t scales[16] = {-128, 127, -1, 0, 1, 64, -64, 5, 33, -33, 100, -100, 7, -7, 2, -2};
    for (size_t i = 0; i < 16; ++i) b[192 + i] = static_cast<uint8_t>(scales[i]);
    PutHalf(b + 208, d_bits);
    const std::vector<double> want = DecodeQ6_K(b);
    for (size_t j = 0; j < kQ6_KBlock; ++j) {
      EXPECT_EQ(Q6_KValue(b, j), static_cast<float>(want[j])) << "d " << d_bits << " value " << j;
      EXPECT_EQ(double(Q6_KValue(b, j)), want[j]) << "exact in f32: value " << j;
    }
  }
}

// A matrix of two rows of two super-blocks: the scalar codec finds row and block.
TEST(KQuantBlocks, ScalarCodecsIndexRowsOfBlocks) {
  std::vector<uint8_t> q4(4 * kQ4_KBlockBytes), q6(4 * kQ6_KBlockBytes);
  for (size_t i = 0; i < q4.size(); ++i) q4[i] = static_cast<uint8_t>(i * 29 + 1);
  for (size_t i = 0; i < q6.size(); ++i) q6[i] = static_cast<uint8_t>(i * 37 + 11);
  for (size_t blk = 0; blk < 4; ++blk) {
    PutHalf(q4.data() + blk * kQ4_KBlockBytes, static_cast<uint16_t>(0x2000 + blk));
    PutHalf(q4.data() + blk * kQ4_KBlockBytes + 2, static_cast<uint16_t>(0x1800 + blk));
    PutHalf(q6.data() + blk * kQ6_KBlockBytes + 208, static_cast<uint16_t>(0x2400 + blk));
  }
  const WeightMatrixRef m4{q4.data(), nullptr, 512}, m6{q6.data(), nullptr, 512};
  for (size_t r = 0; r < 2; ++r) {
    for (size_t blk = 0; blk < 2; ++blk) {
      const std::vector<double> want4 = DecodeQ4_K(q4.data() + (2 * r + blk) * kQ4_KBlockBytes);
      const std::vector<double> want6 = DecodeQ6_K(q6.data() + (2 * r + blk) * kQ6_KBlockBytes);
      for (size_t j = 0; j < 256; ++j) {
        ASSERT_EQ(WeightValue(WeightType::kQ4_K, m4, r, 256 * blk + j), float(want4[j])) << r << j;
        ASSERT_EQ(WeightValue(WeightType::kQ6_K, m6, r, 256 * blk + j), float(want6[j])) << r << j;
      }
    }
  }
}

// Row data: normal values with a spread of sub-block ranges (one sub-block wide, one narrow,
// one all positive, one all negative), scaled by `scale`.
std::vector<float> RowValues(size_t n, double scale, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) {
    double v = normal(rng);
    if (i % 256 < 32) v *= 8;                       // a wide sub-block
    if (i % 256 >= 32 && i % 256 < 64) v *= 0.01;   // a narrow one
    if (i % 256 >= 64 && i % 256 < 96) v = std::fabs(v) + 3;   // all positive
    if (i % 256 >= 96 && i % 256 < 128) v = -std::fabs(v) - 3;  // all negative
    x[i] = static_cast<float>(v * scale);
  }
  return x;
}

// q4_K: each value within half its sub-block's stored step (plus f32 rounding), and the step
// no coarser than the sub-block's range allows: t / 15 + d with t = hi + dmin m <= hi - lo +
// dmin (weight_q4_K.h), from the stored d and dmin.
TEST(KQuantBlocks, Q4_KQuantizerStaysWithinHalfAStep) {
  for (double scale : {1.0, 1e-3, 1e3, 1e-6, 3e-8, 1e5}) {
    const std::vector<float> x = RowValues(512, scale, 7);
    std::vector<uint8_t> row(2 * kQ4_KBlockBytes);
    QuantizeQ4_KRow(x.data(), x.size(), row.data());
    for (size_t blk = 0; blk < 2; ++blk) {
      const uint8_t* b = row.data() + blk * kQ4_KBlockBytes;
      const double d = HalfValue(static_cast<uint16_t>(b[0] | b[1] << 8));
      const double dmin = HalfValue(static_cast<uint16_t>(b[2] | b[3] << 8));
      ASSERT_TRUE(std::isfinite(d) && std::isfinite(dmin) && d > 0 && dmin >= 0) << scale;
      const std::vector<double> got = DecodeQ4_K(b);
      for (size_t s = 0; s < 8; ++s) {
        double lo = 0, hi = -1e300;
        for (size_t i = 0; i < 32; ++i) {
          lo = std::min(lo, double(x[blk * 256 + s * 32 + i]));
          hi = std::max(hi, double(x[blk * 256 + s * 32 + i]));
        }
        unsigned sc, m;
        Q4_KScaleMin(b, s, &sc, &m);
        const double step = d * sc;
        EXPECT_LE(step, ((hi - lo + dmin) / 15 + d) * (1 + 1e-6))
            << "scale " << scale << " sub-block " << s;
        for (size_t i = 0; i < 32; ++i) {
          const size_t j = s * 32 + i;
          const double want = x[blk * 256 + j];
          // The nibble is rounded from an f32 quotient: a few 2^-24 of 15 steps of slack.
          EXPECT_LE(std::fabs(got[j] - want), 0.5 * step * (1 + 1e-4) + std::fabs(want) * 1e-6)
              << "scale " << scale << " value " << j << " came back as " << got[j];
        }
      }
    }
  }
}

// q6_K: values of the sign of their sub-block's largest one within half a step, the others
// within a step (the clamp at 31); the step at most a / 32 + d.
TEST(KQuantBlocks, Q6_KQuantizerStaysWithinTheBound) {
  for (double scale : {1.0, 1e-3, 1e3, 1e-6, 3e-8, 1e5}) {
    const std::vector<float> x = RowValues(512, scale, 9);
    std::vector<uint8_t> row(2 * kQ6_KBlockBytes);
    QuantizeQ6_KRow(x.data(), x.size(), row.data());
    for (size_t blk = 0; blk < 2; ++blk) {
      const uint8_t* b = row.data() + blk * kQ6_KBlockBytes;
      const double d = HalfValue(static_cast<uint16_t>(b[208] | b[209] << 8));
      ASSERT_TRUE(std::isfinite(d) && d > 0) << scale;
      const std::vector<double> got = DecodeQ6_K(b);
      for (size_t s = 0; s < 16; ++s) {
        double mx = 0;
        for (size_t i = 0; i < 16; ++i) {
          const double v = x[blk * 256 + s * 16 + i];
          if (std::fabs(v) > std::fabs(mx)) mx = v;
        }
        const double step = std::fabs(d * static_cast<int8_t>(b[192 + s]));
        EXPECT_LE(step, std::fabs(mx) / 32 + d) << "scale " << scale << " sub-block " << s;
        for (size_t i = 0; i < 16; ++i) {
          const size_t j = s * 16 + i;
          const double want = x[blk * 256 + j];
          const double bound = want * mx < 0 && std::fabs(want) > 31.5 * step ? step : 0.5 * step;
          EXPECT_LE(std::fabs(got[j] - want), bound * (1 + 1e-4) + std::fabs(want) * 1e-6)
              << "scale " << scale << " value " << j << " came back as " << got[j];
        }
      }
    }
  }
}

// Blocks whose values are all tiny (f16 d subnormal) keep a nonzero value; all-zero blocks
// decode to exact zeros; a short row is padded (the padding decodes to 0).
TEST(KQuantBlocks, TinyZeroAndShortRows) {
  for (double amax : {1e-5, 1e-7, 3e-8, std::ldexp(1.0, -25)}) {
    std::vector<float> x(256, 0.0f);
    x[70] = static_cast<float>(amax);
    x[200] = static_cast<float>(-amax / 3);
    uint8_t q4[kQ4_KBlockBytes], q6[kQ6_KBlockBytes];
    QuantizeQ4_KRow(x.data(), x.size(), q4);
    QuantizeQ6_KRow(x.data(), x.size(), q6);
    EXPECT_NE(Q4_KValue(q4, 70), 0.0f) << amax;
    EXPECT_NE(Q6_KValue(q6, 70), 0.0f) << amax;
    EXPECT_EQ(Q4_KValue(q4, 5), 0.0f) << amax;  // a zero in a sub-block of zeros stays 0
  }
  const std::vector<float> zeros(256, 0.0f);
  uint8_t q4[kQ4_KBlockBytes], q6[kQ6_KBlockBytes];
  QuantizeQ4_KRow(zeros.data(), zeros.size(), q4);
  QuantizeQ6_KRow(zeros.data(), zeros.size(), q6);
  for (size_t j = 0; j < 256; ++j) {
    EXPECT_EQ(Q4_KValue(q4, j), 0.0f) << j;
    EXPECT_EQ(Q6_KValue(q6, j), 0.0f) << j;
  }
  std::vector<float> shortx(40, 1.5f);
  QuantizeQ4_KRow(shortx.data(), shortx.size(), q4);
  QuantizeQ6_KRow(shortx.data(), shortx.size(), q6);
  for (size_t j = 40; j < 256; ++j) {
    EXPECT_EQ(Q4_KValue(q4, j), 0.0f) << j;
    EXPECT_EQ(Q6_KValue(q6, j), 0.0f) << j;
  }
  EXPECT_NEAR(Q4_KValue(q4, 39), 1.5, 1.5 / 15 / 2);  // within half a step
  EXPECT_NEAR(Q6_KValue(q6, 39), 1.5, 1.5 / 32 / 2);
}

}  // namespace
}  // namespace attnrt::testing
