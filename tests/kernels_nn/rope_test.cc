// RoPE: RopeTable against cos/sin computed in double here, and RopeRows (hwy,
// both styles) against ReferenceRopeRows for head_dim 2..128 (vector edges on
// every target), 1..4 heads, positions up to 4096, padded and misaligned rows;
// the two styles give bit-identical pairs, position 0 is the identity, row splits
// give identical bits, NaN/inf follow the reference, and nothing outside the
// heads is written.
#include "attnrt/kernels/rope.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "kernels_nn/nn_target_fixture.h"
#include "kernels_nn/nn_test_buffers.h"

namespace attnrt::testing {
namespace {

ATTNRT_PER_TARGET_SUITE(RopeTest);

constexpr double kLlamaTheta = 10000.0;
// |error| of a rotated pair relative to |a| + |b|: the table's rounding of cos and
// sin plus one product and one fused multiply-add, about 2e-7.
constexpr double kTolerance = 1e-6;
const size_t kHeadDims[] = {2, 4, 6, 8, 10, 16, 18, 30, 32, 34, 48, 62, 64, 66, 96, 128};

const char* StyleName(RopeStyle style) {
  return style == RopeStyle::kInterleaved ? "interleaved" : "half";
}

std::vector<float> MakeTable(size_t positions, size_t head_dim, double theta) {
  std::vector<float> table(RopeTableFloats(positions, head_dim));
  RopeTable(positions, head_dim, theta, table.data());
  return table;
}

// Index of the two elements of pair i in a head.
void PairIndices(RopeStyle style, size_t head_dim, size_t i, size_t* a, size_t* b) {
  *a = style == RopeStyle::kInterleaved ? 2 * i : i;
  *b = style == RopeStyle::kInterleaved ? 2 * i + 1 : i + head_dim / 2;
}

struct RopeCase {
  size_t rows = 2, heads = 2, head_dim = 16, first_position = 0, x_pad = 0;
  bool misalign = false;
  RopeStyle style = RopeStyle::kHalf;
  double theta = kLlamaTheta;
  uint32_t seed = 1;

  // `rows` rows of `heads` heads of head_dim floats, at positions first_position onwards.
  static RopeCase Of(RopeStyle style, size_t rows, size_t heads, size_t head_dim,
                     size_t first_position) {
    RopeCase c{rows, heads, head_dim, first_position};
    c.style = style;
    return c;
  }

  std::string Describe() const {
    std::ostringstream s;
    s << StyleName(style) << " rows=" << rows << " heads=" << heads << " head_dim=" << head_dim
      << " first_position=" << first_position << " x_pad=" << x_pad
      << (misalign ? " misaligned" : "") << " theta=" << theta << " seed=" << seed;
    return s.str();
  }
};

class RopeTester {
 public:
  explicit RopeTester(const RopeCase& c)
      : c_(c),
        x_(c.rows * Stride(), c.misalign),
        table_(MakeTable(c.first_position + c.rows, c.head_dim, c.theta)) {
    std::mt19937 rng(c.seed);
    x_.FillNormal(&rng, 2.0f);
  }

  size_t Stride() const { return c_.heads * c_.head_dim + c_.x_pad; }
  GuardedFloats& x() { return x_; }
  const std::vector<float>& table() const { return table_; }

  GuardedFloats Reference() const {
    GuardedFloats y = x_;
    ReferenceRopeRows(y.data(), Stride(), c_.rows, c_.heads, c_.head_dim, c_.first_position,
                      c_.theta, c_.style);
    return y;
  }

  // Rows [0, split) and [split, rows) in two calls.
  GuardedFloats Run(size_t split) const {
    GuardedFloats y = x_;
    RopeRows(y.data(), Stride(), split, c_.heads, c_.head_dim, c_.first_position, table_.data(),
             c_.style);
    RopeRows(y.data() + split * Stride(), Stride(), c_.rows - split, c_.heads, c_.head_dim,
             c_.first_position + split, table_.data(), c_.style);
    return y;
  }

  // First problem as text, "" when none.
  std::string Compare(const GuardedFloats& got, const GuardedFloats& want) const {
    const size_t head_floats = c_.heads * c_.head_dim;
    for (size_t r = 0; r < c_.rows; ++r) {
      for (size_t j = head_floats; j < Stride(); ++j) {
        const size_t at = r * Stride() + j;
        if (!GuardedFloats::SameBits(got[at], x_[at])) return "wrote into the padding";
      }
      for (size_t h = 0; h < c_.heads; ++h) {
        const size_t head = r * Stride() + h * c_.head_dim;
        for (size_t i = 0; i < c_.head_dim / 2; ++i) {
          size_t a, b;
          PairIndices(c_.style, c_.head_dim, i, &a, &b);
          const double size = std::fabs(double(x_[head + a])) + std::fabs(double(x_[head + b]));
          for (size_t e : {head + a, head + b}) {
            const std::string problem = CompareValue(got[e], want[e], size);
            if (!problem.empty()) {
              std::ostringstream s;
              s << problem << " at row " << r << " head " << h << " pair " << i << ": got "
                << got[e] << ", want " << want[e];
              return s.str();
            }
          }
        }
      }
    }
    return got.GuardsIntact() ? "" : "wrote outside x";
  }

  void ExpectMatchesReference() const {
    EXPECT_EQ(Compare(Run(c_.rows / 2), Reference()), "") << c_.Describe();
  }

 private:
  static std::string CompareValue(float got, float want, double pair_size) {
    if (std::isnan(want)) return std::isnan(got) ? "" : "expected NaN";
    if (std::isinf(want)) return got == want ? "" : "expected an infinity";
    if (!std::isfinite(got)) return "non-finite output";
    return std::fabs(double(got) - double(want)) <= kTolerance * pair_size + 1e-37 ? ""
                                                                                   : "too far off";
  }

  RopeCase c_;
  GuardedFloats x_;
  std::vector<float> table_;
};

TEST(RopeTableTest, FloatsAndOverflow) {
  EXPECT_EQ(RopeTableFloats(10, 64), 640u);
  EXPECT_EQ(RopeTableFloats(4096, 128), 4096u * 128u);
  EXPECT_EQ(RopeTableFloats(0, 64), 0u);
  EXPECT_EQ(RopeTableFloats(10, 0), 0u);
  EXPECT_EQ(RopeTableFloats(10, 7), 0u);  // odd head_dim: no pairs
  EXPECT_EQ(RopeTableFloats(SIZE_MAX / 2, 4), 0u);
  EXPECT_EQ(RopeTableFloats(SIZE_MAX, 2), 0u);
}

TEST(RopeTableTest, OddHeadDimWritesNothing) {
  std::vector<float> table(64, kUntouched);
  RopeTable(4, 7, kLlamaTheta, table.data());
  for (float v : table) ASSERT_EQ(v, kUntouched);
}

TEST(RopeTableTest, CosinesThenSinesOfDoubleAngles) {
  for (size_t head_dim : {2, 6, 48, 64, 128}) {
    for (double theta : {kLlamaTheta, 500000.0}) {
      const size_t positions = 4097;
      const std::vector<float> table = MakeTable(positions, head_dim, theta);
      const size_t half = head_dim / 2;
      for (size_t p : {size_t{0}, size_t{1}, size_t{2}, size_t{37}, size_t{1000}, size_t{4096}}) {
        for (size_t i = 0; i < half; ++i) {
          const double angle = double(p) * std::pow(theta, -double(2 * i) / double(head_dim));
          ASSERT_EQ(table[p * head_dim + i], static_cast<float>(std::cos(angle)))
              << "p=" << p << " i=" << i << " head_dim=" << head_dim;
          ASSERT_EQ(table[p * head_dim + half + i], static_cast<float>(std::sin(angle)))
              << "p=" << p << " i=" << i << " head_dim=" << head_dim;
          // llama2.c / Meta: freqs = 1 / theta^(arange(0, d, 2) / d): the same angle.
          const double llama = double(p) / std::pow(theta, double(2 * i) / double(head_dim));
          ASSERT_NEAR(table[p * head_dim + i], std::cos(llama), 1.2e-7) << "p=" << p;
          ASSERT_NEAR(table[p * head_dim + half + i], std::sin(llama), 1.2e-7) << "p=" << p;
        }
      }
      for (size_t i = 0; i < half; ++i) {  // position 0: no rotation
        ASSERT_EQ(table[i], 1.0f);
        ASSERT_EQ(table[half + i], 0.0f);
      }
    }
  }
}

// The fixture steers dispatch by LinearIsa; rope.cc must follow it to the same target.
TEST_P(RopeTest, RunsOnTheTargetUnderTest) {
  EXPECT_EQ(std::string(RopeIsa()), hwy::TargetName(GetParam()));
}

TEST_P(RopeTest, HeadDimsStylesAndPositions) {
  const size_t first_positions[] = {0, 1, 4090};
  uint32_t seed = 0;
  for (size_t head_dim : kHeadDims) {
    for (size_t first_position : first_positions) {
      for (RopeStyle style : {RopeStyle::kInterleaved, RopeStyle::kHalf}) {
        // At most 7 rows: 4090 + 6 = 4096 positions.
        RopeCase c = RopeCase::Of(style, 1 + seed % 7, 1 + seed % 4, head_dim, first_position);
        c.x_pad = seed % 3 == 0 ? 0 : 5;
        c.misalign = seed % 2 == 1;
        c.theta = seed % 5 == 0 ? 500000.0 : kLlamaTheta;
        c.seed = ++seed;
        RopeTester(c).ExpectMatchesReference();
      }
    }
  }
}

TEST_P(RopeTest, LlamaShapes) {
  // llama2.c stories15M/110M (48 and 64 per head) and Llama 2 7B (128 per head).
  const size_t shapes[][2] = {{6, 48}, {12, 64}, {32, 128}};
  uint32_t seed = 50;
  for (const auto& shape : shapes) {
    for (RopeStyle style : {RopeStyle::kInterleaved, RopeStyle::kHalf}) {
      RopeCase c = RopeCase::Of(style, 3, shape[0], shape[1], 255);
      c.seed = ++seed;
      RopeTester(c).ExpectMatchesReference();
    }
  }
}

TEST_P(RopeTest, StylesGiveIdenticalPairs) {
  // The same pairs laid out both ways rotate to the same bits (the same rounding
  // in body and tail lanes of either layout).
  uint32_t seed = 70;
  for (size_t head_dim : kHeadDims) {
    const size_t half = head_dim / 2, heads = 3, rows = 2, first = 3001;
    const std::vector<float> table = MakeTable(first + rows, head_dim, kLlamaTheta);
    std::mt19937 rng(++seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> halves(rows * heads * head_dim), pairs(halves.size());
    for (float& v : halves) v = normal(rng);
    for (size_t h = 0; h < rows * heads; ++h) {
      for (size_t i = 0; i < half; ++i) {
        pairs[h * head_dim + 2 * i] = halves[h * head_dim + i];
        pairs[h * head_dim + 2 * i + 1] = halves[h * head_dim + half + i];
      }
    }
    const size_t stride = heads * head_dim;
    RopeRows(halves.data(), stride, rows, heads, head_dim, first, table.data(), RopeStyle::kHalf);
    RopeRows(pairs.data(), stride, rows, heads, head_dim, first, table.data(),
             RopeStyle::kInterleaved);
    for (size_t h = 0; h < rows * heads; ++h) {
      for (size_t i = 0; i < half; ++i) {
        ASSERT_TRUE(GuardedFloats::SameBits(pairs[h * head_dim + 2 * i], halves[h * head_dim + i]))
            << "head_dim=" << head_dim << " head " << h << " pair " << i;
        ASSERT_TRUE(GuardedFloats::SameBits(pairs[h * head_dim + 2 * i + 1],
                                            halves[h * head_dim + half + i]))
            << "head_dim=" << head_dim << " head " << h << " pair " << i;
      }
    }
  }
}

TEST_P(RopeTest, PositionZeroIsTheIdentity) {
  for (size_t head_dim : kHeadDims) {
    for (RopeStyle style : {RopeStyle::kInterleaved, RopeStyle::kHalf}) {
      const RopeCase c = RopeCase::Of(style, 1, 2, head_dim, 0);
      RopeTester t(c);
      EXPECT_TRUE(t.Run(0).SameBitsAs(t.x())) << c.Describe();
    }
  }
}

TEST_P(RopeTest, RowSplitsGiveIdenticalBits) {
  for (RopeStyle style : {RopeStyle::kInterleaved, RopeStyle::kHalf}) {
    RopeCase c = RopeCase::Of(style, 7, 3, 34, 100);
    c.x_pad = 2;
    RopeTester t(c);
    const GuardedFloats whole = t.Run(0);
    for (size_t split = 1; split <= c.rows; ++split) {
      EXPECT_TRUE(t.Run(split).SameBitsAs(whole)) << c.Describe() << " split at " << split;
    }
  }
}

TEST_P(RopeTest, NanAndInfinityFollowTheReference) {
  // A NaN or inf spoils its own pair only; position 1 has no zero cos or sin.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t head_dim : {2, 18, 64}) {
    for (RopeStyle style : {RopeStyle::kInterleaved, RopeStyle::kHalf}) {
      const RopeCase c = RopeCase::Of(style, 2, 2, head_dim, 1);
      RopeTester t(c);
      t.x()[0] = nan;
      t.x()[t.Stride() + head_dim + head_dim - 1] = -inf;
      EXPECT_EQ(t.Compare(t.Run(1), t.Reference()), "") << c.Describe();
    }
  }
}

TEST_P(RopeTest, OddHeadDimAndEmptyCallsDoNothing) {
  const std::vector<float> table(64, 0.5f);
  GuardedFloats x = GuardedFloats::Filled(14, false, 1.5f);
  RopeRows(x.data(), 7, 2, 1, 7, 0, table.data(), RopeStyle::kHalf);
  RopeRows(x.data(), 7, 2, 1, 7, 0, table.data(), RopeStyle::kInterleaved);
  RopeRows(x.data(), 8, 0, 1, 8, 0, table.data(), RopeStyle::kHalf);
  RopeRows(x.data(), 8, 1, 0, 8, 0, table.data(), RopeStyle::kInterleaved);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i], 1.5f);
  EXPECT_TRUE(x.GuardsIntact());
}

// Heads of exactly head_dim floats and a table of exactly the positions used, so
// a sanitizer build reports any over-read of x or of the table's last row.
TEST_P(RopeTest, ExactSizeBuffers) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (size_t head_dim : kHeadDims) {
    for (RopeStyle style : {RopeStyle::kInterleaved, RopeStyle::kHalf}) {
      const size_t position = 9;
      const std::vector<float> table = MakeTable(position + 1, head_dim, kLlamaTheta);
      std::vector<float> got(head_dim);
      for (float& v : got) v = normal(rng);
      std::vector<float> want = got;
      RopeRows(got.data(), head_dim, 1, 1, head_dim, position, table.data(), style);
      ReferenceRopeRows(want.data(), head_dim, 1, 1, head_dim, position, kLlamaTheta, style);
      for (size_t i = 0; i < head_dim; ++i) {
        ASSERT_NEAR(got[i], want[i], 4.0 * kTolerance) << "head_dim=" << head_dim;
      }
    }
  }
}

}  // namespace
}  // namespace attnrt::testing
