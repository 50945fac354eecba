// LayerNormRows (hwy) against ReferenceLayerNormRows: widths straddling vector
// edges, strides, misaligned buffers, gamma/beta present or not, in place, large
// offsets and magnitudes, constant rows, and row splits giving identical bits.
#include "attnrt/kernels/layer_norm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "kernels_nn/nn_target_fixture.h"
#include "kernels_nn/nn_test_buffers.h"
#include "kernels_nn/row_norm_tester.h"

namespace attnrt::testing {
namespace {

ATTNRT_PER_TARGET_SUITE(LayerNormTest);

// Outputs are O(|gamma| + |beta|): absolute error against max(1, |reference|).
constexpr double kTolerance = 1e-5;

struct NormCase : RowNormLayout {
  bool gamma = true, beta = true;
  float offset = 0.0f, scale = 1.0f;

  std::string Describe() const {
    std::ostringstream s;
    s << DescribeLayout() << (gamma ? " gamma" : "") << (beta ? " beta" : "") << " x~" << offset
      << "+-" << scale;
    return s.str();
  }
};

class NormTester : public RowNormTester<NormTester, NormCase> {
 public:
  explicit NormTester(const NormCase& c)
      : RowNormTester(c), gamma_(c.n, c.misalign), beta_(c.n, c.misalign) {
    std::mt19937 rng(c.seed);
    x_.FillNormal(&rng, c.scale, c.offset);
    gamma_.FillNormal(&rng, 0.5f, 1.0f);
    beta_.FillNormal(&rng, 0.5f);
  }

  const float* gamma() const { return c_.gamma ? gamma_.data() : nullptr; }
  const float* beta() const { return c_.beta ? beta_.data() : nullptr; }
  GuardedFloats Reference() const {
    GuardedFloats y = NewOutput();
    ReferenceLayerNormRows(x_.data(), XStride(), c_.rows, c_.n, gamma(), beta(), c_.eps, y.data(),
                           YStride());
    return y;
  }

  void Norm(const float* x, size_t rows, float* y) const {
    LayerNormRows(x, XStride(), rows, c_.n, gamma(), beta(), c_.eps, y, YStride());
  }

  // Max abs error over real outputs relative to max(1, |want|); padding untouched.
  double Compare(const GuardedFloats& got, const GuardedFloats& want, size_t stride,
                 std::string* problem) const {
    double worst = 0.0;
    for (size_t r = 0; r < c_.rows; ++r) {
      for (size_t j = 0; j < stride; ++j) {
        const float g = got[r * stride + j], w = want[r * stride + j];
        if (j >= c_.n) {
          if (g != w) *problem = "wrote into the padding between rows";
          continue;
        }
        if (!std::isfinite(g)) *problem = "non-finite output";
        const double err = std::fabs(double(g) - double(w)) / std::max(1.0, std::fabs(double(w)));
        worst = std::max(worst, err);
      }
    }
    if (!got.GuardsIntact()) *problem = "wrote outside the output";
    return worst;
  }

  void ExpectMatchesReference() const {
    const GuardedFloats got = Run(c_.rows / 2);
    std::string problem;
    EXPECT_LE(Compare(got, Reference(), YStride(), &problem), kTolerance) << c_.Describe();
    EXPECT_EQ(problem, "") << c_.Describe();
  }

 private:
  GuardedFloats gamma_, beta_;
};

TEST_P(LayerNormTest, WidthsStraddlingVectorEdges) {
  ExpectWidthsMatchReference<NormTester, NormCase>(
      {1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 251, 512, 1021},
      [](NormCase* c, int variant) {
        c->gamma = variant & 1;
        c->beta = variant & 2;
        c->misalign = c->seed % 2 == 0;
      });
}

TEST_P(LayerNormTest, LargeOffsetsAndMagnitudes) {
  const float cases[][2] = {
      {1e4f, 1.0f}, {-3e5f, 10.0f}, {0.0f, 1e6f}, {1e6f, 1e5f}, {0.0f, 1e-3f}};
  uint32_t seed = 100;
  for (const auto& oc : cases) {
    NormCase c{4, 777};
    c.offset = oc[0];
    c.scale = oc[1];
    c.seed = ++seed;
    NormTester(c).ExpectMatchesReference();
  }
}

TEST_P(LayerNormTest, ConstantRowsGiveBeta) {
  NormCase c{2, 37};
  c.scale = 0.0f;
  c.offset = 123.25f;
  NormTester t(c);
  t.ExpectMatchesReference();
}

TEST_P(LayerNormTest, InPlace) {
  const size_t widths[] = {5, 16, 100};
  uint32_t seed = 200;
  for (size_t n : widths) {
    NormCase c{6, n};
    c.x_pad = 3;
    c.y_pad = 3;  // in place: y is x, same stride
    c.misalign = true;
    c.seed = ++seed;
    NormTester t(c);
    const GuardedFloats y = t.RunInPlace();
    const GuardedFloats want = t.InPlaceWant(t.Reference());
    std::string problem;
    EXPECT_LE(t.Compare(y, want, t.XStride(), &problem), kTolerance) << c.Describe();
    EXPECT_EQ(problem, "") << c.Describe();
  }
}

TEST_P(LayerNormTest, RowSplitsGiveIdenticalBits) {
  ExpectRowSplitsGiveIdenticalBits<NormTester, NormCase>();
}

// Buffers of exactly the data's size, so a sanitizer build reports any over-read.
TEST_P(LayerNormTest, ExactSizeBuffers) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (size_t n : {1, 3, 17, 33, 100}) {
    const size_t rows = 3;
    std::vector<float> x(rows * n), gamma(n), beta(n), got(rows * n), want(rows * n);
    for (float& v : x) v = normal(rng);
    for (float& v : gamma) v = normal(rng);
    for (float& v : beta) v = normal(rng);
    LayerNormRows(x.data(), n, rows, n, gamma.data(), beta.data(), 1e-5f, got.data(), n);
    ReferenceLayerNormRows(x.data(), n, rows, n, gamma.data(), beta.data(), 1e-5f, want.data(), n);
    for (size_t i = 0; i < rows * n; ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-5 * std::max(1.0f, std::fabs(want[i]))) << "n=" << n;
    }
  }
}

TEST_P(LayerNormTest, EmptyRowsDoNothing) {
  GuardedFloats y = GuardedFloats::Filled(4, false, kUntouched);
  LayerNormRows(y.data(), 0, 4, 0, nullptr, nullptr, 1e-5f, y.data(), 0);
  LayerNormRows(y.data(), 4, 0, 4, nullptr, nullptr, 1e-5f, y.data(), 4);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(y[i], kUntouched);
}

}  // namespace
}  // namespace attnrt::testing
