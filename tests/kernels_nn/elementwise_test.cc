// GELU (erf and tanh forms), erf, ReLU, residual add, scaling, SwiGLU's silu(gate) * up
// and GeGLU's gelu_tanh(gate) * up (hwy) against the scalar references: dense erf, silu
// and gelu_tanh sweeps against double math, lengths straddling vector edges, misaligned
// buffers, huge magnitudes, NaN/inf/-0, and no writes past the end.
#include "attnrt/kernels/elementwise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/bit_patterns.h"
#include "kernels_nn/nn_target_fixture.h"
#include "kernels_nn/nn_test_buffers.h"

namespace attnrt::testing {
namespace {

ATTNRT_PER_TARGET_SUITE(ErfTest);
ATTNRT_PER_TARGET_SUITE(GeluTest);
ATTNRT_PER_TARGET_SUITE(ReluTest);
ATTNRT_PER_TARGET_SUITE(AddTest);
ATTNRT_PER_TARGET_SUITE(SiluMulTest);
ATTNRT_PER_TARGET_SUITE(GeluTanhTest);
ATTNRT_PER_TARGET_SUITE(ScaleTest);

const size_t kLengths[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 65, 127, 129, 251, 1021};

TEST_P(ErfTest, DenseSweepWithinOneMillionth) {
  // Every 2^-13 over [-8, 8] (all of erf's transition, both tails), one call.
  const std::vector<float> x = DenseGrid(-8.0, 8.0, 1.0 / 8192.0);
  std::vector<float> y = x;
  ErfInPlace(y.data(), y.size());
  WorstError worst;
  for (size_t i = 0; i < x.size(); ++i) {
    worst.Update(std::fabs(double(y[i]) - std::erf(double(x[i]))), x[i]);
  }
  RecordProperty("erf_max_abs_error", worst.Text());
  EXPECT_LT(worst.error, 1e-6) << "at x=" << worst.x;
}

TEST_P(ErfTest, RandomArgumentsAndLimits) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-5.0f, 5.0f);
  std::vector<float> x(100000);
  for (float& v : x) v = uniform(rng);
  const float specials[] = {0.0f,
                            -0.0f,
                            1e-30f,
                            -1e-30f,
                            1e-6f,
                            3.9f,
                            4.0f,
                            4.1f,
                            -4.1f,
                            1e30f,
                            -1e30f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
  x.insert(x.end(), std::begin(specials), std::end(specials));
  std::vector<float> y = x;
  ErfInPlace(y.data(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_LT(std::fabs(double(y[i]) - std::erf(double(x[i]))), 1e-6) << "x=" << x[i];
  }
  // Exactly 0 at 0, exactly +-1 in the saturated range, NaN stays NaN.
  EXPECT_EQ(y[x.size() - 13], 0.0f);
  EXPECT_EQ(y[x.size() - 2], 1.0f);
  EXPECT_EQ(y[x.size() - 1], -1.0f);
  float nan = std::nanf("");
  ErfInPlace(&nan, 1);
  EXPECT_TRUE(std::isnan(nan));
}

// |gelu - reference| <= tolerance * max(1, |x|): erf's 1e-6 enters scaled by x/2.
TEST_P(GeluTest, MatchesReferenceAcrossLengthsAndMagnitudes) {
  const float scales[] = {1.0f, 4.0f, 1e3f};
  uint32_t seed = 0;
  for (size_t n : kLengths) {
    for (float scale : scales) {
      GuardedFloats got(n, seed % 2 == 1);
      std::mt19937 rng(++seed);
      got.FillNormal(&rng, scale);
      GuardedFloats want = got;
      const GuardedFloats x = got;
      GeluInPlace(got.data(), n);
      ReferenceGeluInPlace(want.data(), n);
      EXPECT_TRUE(got.GuardsIntact()) << "n=" << n;
      for (size_t i = 0; i < n; ++i) {
        const double tol = 1e-6 * std::max(1.0, std::fabs(double(x[i])));
        ASSERT_LE(std::fabs(double(got[i]) - double(want[i])), tol)
            << "x=" << x[i] << " n=" << n << " i=" << i;
      }
    }
  }
}

TEST_P(GeluTest, TailLanesComputeLikeBodyLanes) {
  // The same value at every position of a ragged array gives the same bits.
  for (size_t n : {17, 33, 65}) {
    std::vector<float> x(n, -0.734375f);
    GeluInPlace(x.data(), n);
    for (size_t i = 1; i < n; ++i) ASSERT_EQ(x[i], x[0]) << "n=" << n << " i=" << i;
  }
}

TEST_P(GeluTest, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  // As torch.nn.functional.gelu: gelu(-inf) is NaN (-inf * 0).
  std::vector<float> x = {0.0f, 1e30f, -1e30f, inf, std::nanf(""), -inf, 6.0f, -6.0f};
  GeluInPlace(x.data(), x.size());
  EXPECT_EQ(x[0], 0.0f);
  EXPECT_EQ(x[1], 1e30f);
  EXPECT_EQ(x[2], 0.0f);
  EXPECT_EQ(x[3], inf);
  EXPECT_TRUE(std::isnan(x[4]));
  EXPECT_TRUE(std::isnan(x[5]));
  // erf saturates to exactly +-1 from |x / sqrt 2| = 4 on.
  EXPECT_EQ(x[6], 6.0f);
  EXPECT_EQ(x[7], 0.0f);
}

TEST_P(ReluTest, BitExactIncludingNanAndSignedZero) {
  uint32_t seed = 50;
  for (size_t n : kLengths) {
    GuardedFloats got(n, n % 2 == 1);
    std::mt19937 rng(++seed);
    got.FillNormal(&rng, 100.0f);
    if (n > 2) {
      got[0] = std::nanf("");
      got[1] = -0.0f;
      got[n - 1] = -std::numeric_limits<float>::infinity();
    }
    GuardedFloats want = got;
    ReluInPlace(got.data(), n);
    ReferenceReluInPlace(want.data(), n);
    EXPECT_TRUE(got.SameBitsAs(want)) << "n=" << n;
    EXPECT_TRUE(got.GuardsIntact()) << "n=" << n;
  }
}

TEST_P(AddTest, BitExactSeparateAndAliased) {
  uint32_t seed = 80;
  for (size_t n : kLengths) {
    std::mt19937 rng(++seed);
    GuardedFloats y(n, n % 2 == 0), x(n, n % 2 == 1);
    y.FillNormal(&rng, 1e3f);
    x.FillNormal(&rng, 1e-3f);
    GuardedFloats want = y;
    AddInPlace(y.data(), x.data(), n);
    ReferenceAddInPlace(want.data(), x.data(), n);
    EXPECT_TRUE(y.SameBitsAs(want)) << "n=" << n;
    EXPECT_TRUE(y.GuardsIntact()) << "n=" << n;
    // y += y doubles every element exactly.
    AddInPlace(y.data(), y.data(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * want[i]) << "n=" << n;
  }
}

// |silu(g) * up - reference| within 1e-6 relative. Below g = -87 the kernel's silu is
// exactly -0 while the true value is under 1.5e-36 in magnitude: the absolute
// floor 2e-36 |up| admits that and nothing else.
bool SiluMulClose(float got, float want, float up) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  const double err = std::fabs(double(got) - double(want));
  return err <= 1e-6 * std::fabs(double(want)) + 2e-36 * std::fabs(double(up));
}

TEST_P(SiluMulTest, RunsOnTheTargetUnderTest) {
  EXPECT_EQ(std::string(ElementwiseIsa()), hwy::TargetName(GetParam()));
}

TEST_P(SiluMulTest, DenseSweepWithinOneMillionth) {
  // Every 2^-9 over [-120, 120]: both saturated tails, the underflow edge at -87
  // and everything between, with up = 1 so the product is silu itself.
  const std::vector<float> x = DenseGrid(-120.0, 120.0, 1.0 / 512.0);
  const std::vector<float> up(x.size(), 1.0f);
  std::vector<float> got = x, want = x;
  SiluMulInPlace(got.data(), up.data(), got.size());
  ReferenceSiluMulInPlace(want.data(), up.data(), want.size());
  WorstError worst;
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_TRUE(SiluMulClose(got[i], want[i], 1.0f))
        << "x=" << x[i] << " got " << got[i] << " want " << want[i];
    if (want[i] != 0.0f && x[i] > -87.0f) {
      worst.Update(std::fabs(double(got[i]) - double(want[i])) / std::fabs(double(want[i])), x[i]);
    }
  }
  RecordProperty("silu_max_rel_error", worst.Text());
}

TEST_P(SiluMulTest, MatchesReferenceAcrossLengthsAndMagnitudes) {
  const float scales[] = {1.0f, 8.0f, 100.0f};
  uint32_t seed = 900;
  for (size_t n : kLengths) {
    for (float scale : scales) {
      std::mt19937 rng(++seed);
      GuardedFloats got(n, seed % 2 == 1), up(n, seed % 3 == 1);
      got.FillNormal(&rng, scale);
      up.FillNormal(&rng, 2.0f);
      const GuardedFloats up_before = up;
      GuardedFloats want = got;
      const GuardedFloats gate = got;
      SiluMulInPlace(got.data(), up.data(), n);
      ReferenceSiluMulInPlace(want.data(), up.data(), n);
      EXPECT_TRUE(got.GuardsIntact()) << "n=" << n;
      EXPECT_TRUE(up.SameBitsAs(up_before) && up.GuardsIntact()) << "n=" << n;
      for (size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(SiluMulClose(got[i], want[i], up[i]))
            << "gate=" << gate[i] << " up=" << up[i] << " got " << got[i] << " want " << want[i]
            << " n=" << n << " i=" << i;
      }
    }
  }
}

TEST_P(SiluMulTest, TailLanesComputeLikeBodyLanes) {
  for (size_t n : {17, 33, 65}) {
    std::vector<float> gate(n, -1.734375f), up(n, 0.8125f);
    SiluMulInPlace(gate.data(), up.data(), n);
    for (size_t i = 1; i < n; ++i) ASSERT_EQ(gate[i], gate[0]) << "n=" << n << " i=" << i;
  }
}

TEST_P(SiluMulTest, SpecialValuesAsTorch) {
  // torch.nn.functional.silu (1.13, float32): silu(-inf) = NaN (-inf / inf),
  // silu(+inf) = inf, silu(-100) = -0, silu(-0) = -0, NaN stays NaN.
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> gate = {0.0f, -0.0f, 100.0f, -100.0f, 1e30f, -1e30f, inf, -inf,
                             std::nanf(""), 88.0f, -88.0f, 1.0f, 2.0f};
  std::vector<float> up(gate.size(), 1.0f);
  up[11] = std::nanf("");
  up[12] = inf;
  std::vector<float> want = gate;
  SiluMulInPlace(gate.data(), up.data(), gate.size());
  ReferenceSiluMulInPlace(want.data(), up.data(), want.size());
  EXPECT_EQ(gate[0], 0.0f);
  EXPECT_FALSE(std::signbit(gate[0]));
  EXPECT_EQ(gate[1], 0.0f);
  EXPECT_TRUE(std::signbit(gate[1]));
  EXPECT_EQ(gate[2], 100.0f);
  EXPECT_EQ(gate[3], 0.0f);
  EXPECT_TRUE(std::signbit(gate[3]));
  EXPECT_EQ(gate[4], 1e30f);
  EXPECT_EQ(gate[5], 0.0f);
  EXPECT_TRUE(std::signbit(gate[5]));
  EXPECT_EQ(gate[6], inf);
  EXPECT_TRUE(std::isnan(gate[7]));
  EXPECT_TRUE(std::isnan(gate[8]));
  EXPECT_EQ(gate[9], 88.0f);
  EXPECT_EQ(gate[10], 0.0f);
  EXPECT_TRUE(std::isnan(gate[11]));
  EXPECT_EQ(gate[12], inf);
  for (size_t i = 0; i < gate.size(); ++i) {
    EXPECT_TRUE(SiluMulClose(gate[i], want[i], up[i]))
        << "i=" << i << " got " << gate[i] << " want " << want[i];
  }
}

TEST_P(SiluMulTest, ExactSizeBuffers) {
  for (size_t n : {1, 3, 5, 17, 33, 288, 768}) {
    std::vector<float> gate(n), up(n);
    for (size_t i = 0; i < n; ++i) {
      gate[i] = 0.37f * float(i % 40) - 6.0f;
      up[i] = 1.0f - 0.01f * float(i % 100);
    }
    std::vector<float> want = gate;
    SiluMulInPlace(gate.data(), up.data(), n);
    ReferenceSiluMulInPlace(want.data(), up.data(), n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(SiluMulClose(gate[i], want[i], up[i])) << "n=" << n << " i=" << i;
    }
  }
}

// torch's gelu(x, approximate='tanh') for float32 (ATen's GeluKernelImpl), in float.
float TorchFloatGeluTanh(float x) {
  const float beta = 0.7978845608028654f, kappa = 0.044715f;
  return 0.5f * x * (1.0f + std::tanh(beta * (x + kappa * x * x * x)));
}

// The oracle's x / (1 + e^(-2u)) is torch's formula 0.5 x (1 + tanh(u)) evaluated
// without cancellation: the two agree in double wherever 1 + tanh(u) keeps its digits.
TEST(GeluTanhReference, IsTorchsFormula) {
  const std::vector<float> x = DenseGrid(-5.0, 12.0, 1.0 / 256.0);
  std::vector<float> got = x;
  ReferenceGeluTanhInPlace(got.data(), got.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const double u = std::sqrt(2.0 / 3.14159265358979323846) * (v + 0.044715 * v * v * v);
    const double want = 0.5 * v * (1.0 + std::tanh(u));
    ASSERT_LE(std::fabs(double(got[i]) - want), 1e-7 * std::fabs(want)) << "x=" << x[i];
  }
}

// |gelu_tanh(g) * up - reference| within 1e-6 relative, plus an absolute floor of
// 2e-37 |up|: below g = -10 the kernel gives -0 where the true value is under 1.7e-37
// in magnitude, and ARMv7 NEON flushes subnormal inputs and results to zero.
bool GeluTanhClose(float got, float want, float up) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  const double err = std::fabs(double(got) - double(want));
  return err <= 1e-6 * std::fabs(double(want)) + 2e-37 * std::fabs(double(up));
}

// The inputs of the gelu_tanh sweep: every 2^-12 over [-12, 12] (the transition, the
// tail down to the -0 edge at -10, the saturated side); every float of four runs of
// 2^16 consecutive bit patterns (from -9.5, -3, 1e-3 and 0.75, growing in magnitude);
// every 4093rd bit pattern of all 2^32 (every binade, subnormals, huge values, NaNs);
// and +-inf.
std::vector<float> GeluTanhSweepInputs() {
  std::vector<float> x = DenseGrid(-12.0, 12.0, 1.0 / 4096.0);
  for (float start : {-9.5f, -3.0f, 1e-3f, 0.75f}) {
    for (uint32_t k = 0; k < (1u << 16); ++k) x.push_back(FloatFromBits(Bits(start) + k));
  }
  for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 4093) x.push_back(FloatFromBits(uint32_t(b)));
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-std::numeric_limits<float>::infinity());
  return x;
}

TEST_P(GeluTanhTest, SweepWithinOneMillionth) {
  const std::vector<float> x = GeluTanhSweepInputs();
  std::vector<float> got = x, want = x;
  GeluTanhInPlace(got.data(), got.size());
  ReferenceGeluTanhInPlace(want.data(), want.size());
  // The worst relative error where |true value| >= 1e-36 (above the -0 edge at -10,
  // whose values are under 2e-37, and above the subnormals).
  WorstError worst;
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_TRUE(GeluTanhClose(got[i], want[i], 1.0f))
        << "x=" << x[i] << " got " << got[i] << " want " << want[i];
    if (std::isfinite(want[i]) && std::fabs(want[i]) >= 1e-36f) {
      worst.Update(std::fabs(double(got[i]) - double(want[i])) / std::fabs(double(want[i])), x[i]);
    }
  }
  RecordProperty("gelu_tanh_max_rel_error", worst.Text());
  std::printf("[ accuracy ] gelu_tanh max relative error %s (%zu inputs)\n", worst.Text().c_str(),
              x.size());
  // The floor above is wide beside values of 1e-36..1e-30 (x from -10 to -9): this is not.
  EXPECT_LE(worst.error, 1e-6) << "at x=" << worst.x;
}

// The GeGLU product on the same sweep with up = 1 gives gelu_tanh's own bits.
TEST_P(GeluTanhTest, MulByOneIsGeluTanh) {
  const std::vector<float> x = GeluTanhSweepInputs();
  const std::vector<float> up(x.size(), 1.0f);
  std::vector<float> got = x, alone = x;
  GeluTanhMulInPlace(got.data(), up.data(), got.size());
  GeluTanhInPlace(alone.data(), alone.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_TRUE(GuardedFloats::SameBits(got[i], alone[i]) ||
                (std::isnan(got[i]) && std::isnan(alone[i])))
        << "x=" << x[i] << " got " << got[i] << " alone " << alone[i];
  }
}

TEST_P(GeluTanhTest, MatchesReferenceAcrossLengthsAndMagnitudes) {
  const float scales[] = {1.0f, 4.0f, 1e3f};
  uint32_t seed = 1200;
  for (size_t n : kLengths) {
    for (float scale : scales) {
      std::mt19937 rng(++seed);
      GuardedFloats gelu(n, seed % 2 == 1), gate(n, seed % 3 == 1), up(n, seed % 5 == 1);
      gelu.FillNormal(&rng, scale);
      gate.FillNormal(&rng, scale);
      up.FillNormal(&rng, 2.0f);
      const GuardedFloats x = gelu, g = gate, up_before = up;
      GuardedFloats want_gelu = gelu, want_gate = gate;
      GeluTanhInPlace(gelu.data(), n);
      ReferenceGeluTanhInPlace(want_gelu.data(), n);
      GeluTanhMulInPlace(gate.data(), up.data(), n);
      ReferenceGeluTanhMulInPlace(want_gate.data(), up.data(), n);
      EXPECT_TRUE(gelu.GuardsIntact() && gate.GuardsIntact()) << "n=" << n;
      EXPECT_TRUE(up.SameBitsAs(up_before) && up.GuardsIntact()) << "n=" << n;
      for (size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(GeluTanhClose(gelu[i], want_gelu[i], 1.0f))
            << "x=" << x[i] << " got " << gelu[i] << " want " << want_gelu[i] << " n=" << n;
        ASSERT_TRUE(GeluTanhClose(gate[i], want_gate[i], up[i]))
            << "gate=" << g[i] << " up=" << up[i] << " got " << gate[i] << " want " << want_gate[i]
            << " n=" << n << " i=" << i;
      }
    }
  }
}

TEST_P(GeluTanhTest, TailLanesComputeLikeBodyLanes) {
  for (size_t n : {17, 33, 65}) {
    std::vector<float> x(n, -4.734375f), gate(n, -1.734375f), up(n, 0.8125f);
    GeluTanhInPlace(x.data(), n);
    GeluTanhMulInPlace(gate.data(), up.data(), n);
    for (size_t i = 1; i < n; ++i) {
      ASSERT_EQ(x[i], x[0]) << "n=" << n << " i=" << i;
      ASSERT_EQ(gate[i], gate[0]) << "n=" << n << " i=" << i;
    }
  }
}

// Where torch's float formula is exact (zeros, saturation, inf, NaN) the kernel gives
// its values, signs of zero included: gelu_tanh(-inf) = -inf * 0 = NaN, finite x far
// below 0 give -0. Lanes mix kinds so a select that leaks between lanes shows up.
TEST_P(GeluTanhTest, SpecialValuesAsTorch) {
  const float inf = std::numeric_limits<float>::infinity();
  const float lowest = std::numeric_limits<float>::lowest();
  const float max = std::numeric_limits<float>::max();
  const std::vector<float> x = {0.0f,   -0.0f,  inf,    -inf,  std::nanf(""), 1e30f,
                                -1e30f, max,    lowest, 20.0f, -20.0f,        -15.9f,
                                16.0f,  -16.0f, 1e6f,   -1e6f, -std::nanf("")};
  std::vector<float> got = x;
  GeluTanhInPlace(got.data(), got.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float torch = TorchFloatGeluTanh(x[i]);
    if (std::isnan(torch)) {
      EXPECT_TRUE(std::isnan(got[i])) << "x=" << x[i] << " got " << got[i];
    } else {
      EXPECT_TRUE(GuardedFloats::SameBits(got[i], torch))
          << "x=" << x[i] << " got " << got[i] << " torch " << torch;
    }
  }
  EXPECT_TRUE(std::isnan(got[3]));                      // -inf
  EXPECT_EQ(got[2], inf);                               // +inf
  EXPECT_TRUE(got[6] == 0.0f && std::signbit(got[6]));  // -1e30 -> -0
  // The GeGLU product: gelu_tanh(gate) * up, as torch multiplies.
  std::vector<float> gate = {1.0f, 2.0f, 0.0f, -inf, -1e30f, 3.0f, 1.0f};
  std::vector<float> up = {std::nanf(""), inf, inf, 1.0f, 2.0f, -0.0f, -2.0f};
  std::vector<float> want = gate;
  GeluTanhMulInPlace(gate.data(), up.data(), gate.size());
  ReferenceGeluTanhMulInPlace(want.data(), up.data(), want.size());
  EXPECT_TRUE(std::isnan(gate[0]));
  EXPECT_EQ(gate[1], inf);
  EXPECT_TRUE(std::isnan(gate[2]));  // 0 * inf
  EXPECT_TRUE(std::isnan(gate[3]));
  EXPECT_TRUE(gate[4] == 0.0f && std::signbit(gate[4]));  // -0 * 2
  EXPECT_TRUE(gate[5] == 0.0f && std::signbit(gate[5]));  // 3 * -0
  for (size_t i = 0; i < gate.size(); ++i) {
    EXPECT_TRUE(GeluTanhClose(gate[i], want[i], up[i]))
        << "i=" << i << " got " << gate[i] << " want " << want[i];
  }
}

// x * s is one float multiply, so the kernel matches the reference bit for bit (NaN
// by being NaN: x86 and Arm make different default NaNs).
TEST_P(ScaleTest, BitExactAcrossLengthsAndSpecials) {
  const float inf = std::numeric_limits<float>::infinity();
  const float scales[] = {33.941125f, 0.5f, -1.0f, 0.0f, 3e38f, 1e-30f};
  uint32_t seed = 1500;
  for (size_t n : kLengths) {
    for (float s : scales) {
      std::mt19937 rng(++seed);
      GuardedFloats got(n, seed % 2 == 1);
      got.FillNormal(&rng, 100.0f);
      if (n > 4) {
        got[0] = std::nanf("");
        got[1] = -0.0f;
        got[2] = inf;
        got[n - 1] = -inf;
      }
      GuardedFloats want = got;
      ScaleInPlace(got.data(), n, s);
      ReferenceScaleInPlace(want.data(), n, s);
      EXPECT_TRUE(got.GuardsIntact()) << "n=" << n;
      for (size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(GuardedFloats::SameBits(got[i], want[i]) ||
                    (std::isnan(got[i]) && std::isnan(want[i])))
            << "x*" << s << " got " << got[i] << " want " << want[i] << " n=" << n << " i=" << i;
      }
    }
  }
  float x[3] = {2.0f, -3.0f, 1.5f};
  ScaleInPlace(x, 3, 0.5f);
  EXPECT_EQ(x[0], 1.0f);
  EXPECT_EQ(x[1], -1.5f);
  EXPECT_EQ(x[2], 0.75f);
}

// Buffers of exactly n floats, so a sanitizer build reports any over-read or
// over-write of the partial last vector.
TEST_P(GeluTest, ExactSizeBuffers) {
  for (size_t n : {1, 3, 5, 17, 33}) {
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = 0.37f * float(i) - 2.0f;
    std::vector<float> gelu = x, want_gelu = x, relu = x, want_relu = x, sum = x, erf = x;
    std::vector<float> gelu_tanh = x, want_gelu_tanh = x, geglu = x, want_geglu = x, scaled = x;
    GeluTanhInPlace(gelu_tanh.data(), n);
    ReferenceGeluTanhInPlace(want_gelu_tanh.data(), n);
    GeluTanhMulInPlace(geglu.data(), x.data(), n);
    ReferenceGeluTanhMulInPlace(want_geglu.data(), x.data(), n);
    ScaleInPlace(scaled.data(), n, 3.0f);
    GeluInPlace(gelu.data(), n);
    ReferenceGeluInPlace(want_gelu.data(), n);
    ReluInPlace(relu.data(), n);
    ReferenceReluInPlace(want_relu.data(), n);
    AddInPlace(sum.data(), x.data(), n);
    ErfInPlace(erf.data(), n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_NEAR(gelu[i], want_gelu[i], 1e-6f) << "n=" << n;
      ASSERT_EQ(relu[i], want_relu[i]) << "n=" << n;
      ASSERT_EQ(sum[i], 2.0f * x[i]) << "n=" << n;
      ASSERT_NEAR(erf[i], std::erf(double(x[i])), 1e-6) << "n=" << n;
      ASSERT_TRUE(GeluTanhClose(gelu_tanh[i], want_gelu_tanh[i], 1.0f)) << "n=" << n;
      ASSERT_TRUE(GeluTanhClose(geglu[i], want_geglu[i], x[i])) << "n=" << n;
      ASSERT_EQ(scaled[i], 3.0f * x[i]) << "n=" << n;
    }
  }
}

}  // namespace
}  // namespace attnrt::testing
