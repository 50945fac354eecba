// RmsNormRows (hwy) against ReferenceRmsNormRows: Llama widths (288, 768, 4096) and
// widths straddling vector edges, strides, misaligned buffers, weight present or
// not, in place, tiny and huge magnitudes, zero rows, NaN/inf, and row splits
// giving identical bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "attnrt/kernels/layer_norm.h"
#include "kernels_nn/nn_target_fixture.h"
#include "kernels_nn/nn_test_buffers.h"
#include "kernels_nn/row_norm_tester.h"

namespace attnrt::testing {
namespace {

ATTNRT_PER_TARGET_SUITE(RmsNormTest);

// Relative error: rstd's few float roundings plus the two products, a few 1e-7.
constexpr double kRelativeTolerance = 2e-6;

struct RmsCase : RowNormLayout {
  bool weight = true;
  float scale = 1.0f;

  std::string Describe() const {
    std::ostringstream s;
    s << DescribeLayout() << (weight ? " weight" : "") << " x~+-" << scale;
    return s.str();
  }
};

// Empty when got matches want: NaN where want is NaN, the same infinity, else
// within the relative tolerance (the absolute floor only matters for outputs
// that underflow).
std::string CompareValue(float got, float want) {
  if (std::isnan(want)) return std::isnan(got) ? "" : "expected NaN";
  if (std::isinf(want)) return got == want ? "" : "expected an infinity";
  if (!std::isfinite(got)) return "non-finite output";
  const double err = std::fabs(double(got) - double(want));
  return err <= kRelativeTolerance * std::fabs(double(want)) + 1e-37 ? "" : "too far off";
}

class RmsTester : public RowNormTester<RmsTester, RmsCase> {
 public:
  explicit RmsTester(const RmsCase& c) : RowNormTester(c), weight_(c.n, c.misalign) {
    std::mt19937 rng(c.seed);
    x_.FillNormal(&rng, c.scale);
    weight_.FillNormal(&rng, 0.5f, 1.0f);
  }

  const float* weight() const { return c_.weight ? weight_.data() : nullptr; }
  GuardedFloats Reference() const {
    GuardedFloats y = NewOutput();
    ReferenceRmsNormRows(x_.data(), XStride(), c_.rows, c_.n, weight(), c_.eps, y.data(),
                         YStride());
    return y;
  }

  void Norm(const float* x, size_t rows, float* y) const {
    RmsNormRows(x, XStride(), rows, c_.n, weight(), c_.eps, y, YStride());
  }

  // First mismatch as text, "" when none; the padding must equal want's.
  std::string Compare(const GuardedFloats& got, const GuardedFloats& want, size_t stride) const {
    for (size_t r = 0; r < c_.rows; ++r) {
      for (size_t j = 0; j < stride; ++j) {
        const float g = got[r * stride + j], w = want[r * stride + j];
        if (j >= c_.n) {
          if (!GuardedFloats::SameBits(g, w)) return "wrote into the padding between rows";
          continue;
        }
        const std::string problem = CompareValue(g, w);
        if (!problem.empty()) {
          std::ostringstream s;
          s << problem << " at row " << r << " column " << j << ": got " << g << ", want " << w;
          return s.str();
        }
      }
    }
    return got.GuardsIntact() ? "" : "wrote outside the output";
  }

  void ExpectMatchesReference() const {
    EXPECT_EQ(Compare(Run(c_.rows / 2), Reference(), YStride()), "") << c_.Describe();
  }

 private:
  GuardedFloats weight_;
};

TEST_P(RmsNormTest, RunsOnTheTargetUnderTest) {
  EXPECT_EQ(std::string(LayerNormIsa()), hwy::TargetName(GetParam()));
}

TEST_P(RmsNormTest, WidthsStraddlingVectorEdges) {
  ExpectWidthsMatchReference<RmsTester, RmsCase>(
      {1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 288, 768, 1021, 4096},
      [](RmsCase* c, int variant) {
        c->weight = variant & 1;
        c->misalign = variant & 2;
        c->eps = c->seed % 2 == 1 ? 1e-5f : 1e-6f;
      });
}

TEST_P(RmsNormTest, TinyAndHugeMagnitudes) {
  // eps dominates the tiny rows; the huge ones keep sum(x^2) (~n * 1e30) finite.
  const float scales[] = {1e-20f, 1e-3f, 1e3f, 1e14f};
  uint32_t seed = 100;
  for (float scale : scales) {
    for (size_t n : {3, 288, 768}) {
      RmsCase c{2, n};
      c.scale = scale;
      c.seed = ++seed;
      RmsTester(c).ExpectMatchesReference();
    }
  }
}

TEST_P(RmsNormTest, ZeroRowsGiveZeros) {
  for (size_t n : {1, 17, 288}) {
    RmsCase c{2, n};
    c.scale = 0.0f;
    RmsTester t(c);
    const GuardedFloats y = t.Run(1);
    for (size_t i = 0; i < y.size(); ++i) {
      if (i % t.YStride() < n) {
        ASSERT_EQ(y[i], 0.0f) << "n=" << n << " i=" << i;
      }
    }
  }
}

TEST_P(RmsNormTest, NanAndInfinityPropagateAsInTheReference) {
  // A NaN makes its row NaN; an inf makes rstd 0: finite values give 0, the inf NaN.
  for (size_t n : {1, 5, 17, 288}) {
    RmsCase c{3, n};
    c.seed = 400 + uint32_t(n);
    RmsTester t(c);
    t.x()[n / 2] = std::numeric_limits<float>::quiet_NaN();
    t.x()[c.n + n - 1] = -std::numeric_limits<float>::infinity();
    EXPECT_EQ(t.Compare(t.Run(1), t.Reference(), t.YStride()), "") << c.Describe();
    const GuardedFloats y = t.Run(0);
    EXPECT_TRUE(std::isnan(y[0])) << "n=" << n;
    EXPECT_TRUE(std::isnan(y[c.n + n - 1])) << "n=" << n;
    if (n > 1) {
      EXPECT_EQ(y[c.n], 0.0f) << "n=" << n;
    }
    EXPECT_TRUE(std::isfinite(y[2 * c.n])) << "n=" << n;  // the third row stays finite
  }
}

TEST_P(RmsNormTest, InPlace) {
  uint32_t seed = 200;
  for (size_t n : {1, 5, 16, 288, 768}) {
    for (bool weight : {false, true}) {
      RmsCase c{4, n};
      c.x_pad = 3;
      c.y_pad = 3;  // in place: y is x, same stride
      c.misalign = true;
      c.weight = weight;
      c.seed = ++seed;
      RmsTester t(c);
      const GuardedFloats y = t.RunInPlace();
      const GuardedFloats want = t.InPlaceWant(t.Reference());
      EXPECT_EQ(t.Compare(y, want, t.XStride()), "") << c.Describe();
    }
  }
}

TEST_P(RmsNormTest, RowSplitsGiveIdenticalBits) {
  ExpectRowSplitsGiveIdenticalBits<RmsTester, RmsCase>();
}

TEST_P(RmsNormTest, MatchesLlama2cFormula) {
  // llama2.c: ss = sum(x^2) / n + eps; ss = 1 / sqrtf(ss); o = weight * (ss * x), all float.
  std::mt19937 rng(9);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t n = 288;
  std::vector<float> x(n), weight(n), got(n);
  for (float& v : x) v = 3.0f * normal(rng);
  for (float& v : weight) v = 1.0f + 0.2f * normal(rng);
  RmsNormRows(x.data(), n, 1, n, weight.data(), 1e-5f, got.data(), n);
  float ss = 0.0f;
  for (float v : x) ss += v * v;
  ss = 1.0f / std::sqrt(ss / float(n) + 1e-5f);
  for (size_t i = 0; i < n; ++i) {
    const float want = weight[i] * (ss * x[i]);
    ASSERT_NEAR(got[i], want, 2e-6 * std::fabs(want)) << "i=" << i;
  }
}

// Buffers of exactly the data's size, so a sanitizer build reports any over-read.
TEST_P(RmsNormTest, ExactSizeBuffers) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (size_t n : {1, 3, 17, 33, 100, 288}) {
    const size_t rows = 3;
    std::vector<float> x(rows * n), weight(n), got(rows * n), want(rows * n);
    for (float& v : x) v = normal(rng);
    for (float& v : weight) v = normal(rng);
    RmsNormRows(x.data(), n, rows, n, weight.data(), 1e-5f, got.data(), n);
    ReferenceRmsNormRows(x.data(), n, rows, n, weight.data(), 1e-5f, want.data(), n);
    for (size_t i = 0; i < rows * n; ++i) {
      ASSERT_EQ(CompareValue(got[i], want[i]), "") << "n=" << n << " i=" << i;
    }
  }
}

TEST_P(RmsNormTest, EmptyRowsDoNothing) {
  GuardedFloats y = GuardedFloats::Filled(4, false, kUntouched);
  RmsNormRows(y.data(), 0, 4, 0, nullptr, 1e-5f, y.data(), 0);
  RmsNormRows(y.data(), 4, 0, 4, nullptr, 1e-5f, y.data(), 4);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(y[i], kUntouched);
}

}  // namespace
}  // namespace attnrt::testing
