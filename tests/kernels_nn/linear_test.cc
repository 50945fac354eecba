// LinearRun (hwy) against ReferenceLinear: sizes straddling vector, panel, tile
// and depth-block edges, both the packed and the dot (few rows) path, strides,
// misaligned buffers, bias on and off, K up to 4096, large magnitudes, and any
// split of the work items giving bit-identical output; and the same for f16, bf16,
// q8, q4_0, q4_K and q6_K weights (typed_weights.h), against ReferenceLinear on the same typed
// weights and against the kernel's own f32 results on the decoded weights. Every call
// asks for f32 activations (LinearActivations::kF32), the exact path of every type;
// linear_int8_test.cc tests the integer kernel that `auto` runs for q8 and q4_0.
#include "attnrt/kernels/linear.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels_nn/linear_test_inputs.h"
#include "kernels_nn/nn_target_fixture.h"
#include "kernels_nn/nn_test_buffers.h"
#include "kernels_nn/typed_weights.h"

namespace attnrt::testing {
namespace {

ATTNRT_PER_TARGET_SUITE(LinearTest);

// Max |got - want| relative to sum_k |x w| + |bias| of that output.
constexpr double kTolerance = 1e-5;

class LinearTester : public LinearInputs {
 public:
  explicit LinearTester(const LinearCase& c) : LinearInputs(c, LinearActivations::kF32) {}

  GuardedFloats RunReference() const {
    GuardedFloats y = NewOutput();
    ReferenceLinear(Params(&y));
    return y;
  }

  // sum_k |x[m,k] w[n,k]| + |bias[n]|: the scale a float dot product's rounding error
  // is proportional to (cancellation can make |y| itself arbitrarily small).
  double Magnitude(size_t m, size_t n) const {
    double sum = c_.bias ? std::fabs(double(bias_[n])) : 0.0;
    for (size_t k = 0; k < c_.K; ++k) {
      sum += std::fabs(double(x_[m * (c_.K + c_.x_pad) + k]) * double(w_[n * c_.K + k]));
    }
    return sum;
  }

  // Max over outputs of |got - want| / Magnitude; padding between rows must be untouched.
  double Compare(const GuardedFloats& got, const GuardedFloats& want, std::string* problem) const {
    const size_t ys = c_.N + c_.y_pad;
    double worst = 0.0;
    for (size_t m = 0; m < c_.M; ++m) {
      for (size_t j = 0; j < ys; ++j) {
        const float g = got[m * ys + j], w = want[m * ys + j];
        if (j >= c_.N) {
          if (g != kUntouched) *problem = "wrote into the padding between rows of y";
          continue;
        }
        if (!std::isfinite(g)) *problem = "non-finite output";
        const double err = std::fabs(double(g) - double(w));
        const double magnitude = Magnitude(m, j);
        if (magnitude == 0.0) {
          if (err != 0.0) *problem = "nonzero output where every term is zero";
        } else {
          worst = std::max(worst, err / magnitude);
        }
      }
    }
    return worst;
  }

  void ExpectMatchesReference(const std::vector<size_t>& cuts = {}) const {
    GuardedFloats got = NewOutput();
    ASSERT_EQ(Run(cuts, &got), "") << c_.Describe();
    std::string problem;
    const double err = Compare(got, RunReference(), &problem);
    EXPECT_EQ(problem, "") << c_.Describe();
    EXPECT_LE(err, kTolerance) << c_.Describe();
    if (c_.type != WeightType::kF32) ExpectMatchesDecodedF32(got);
  }

  // A typed call against the kernel's f32 call on the decoded weights (and the
  // reference likewise). Widening is exact, so f16 and bf16 sum the same products
  // in the same order: identical bits. So does q8 on the packed path (it widens
  // q * scale exactly before the tiles); the dot path scales each 32-value block's
  // partial sum instead, which rounds differently: tolerance there (any block type).
  void ExpectMatchesDecodedF32(const GuardedFloats& typed_got) const {
    GuardedFloats f32_got = NewOutput();
    ASSERT_EQ(Run({}, &f32_got, false), "") << c_.Describe();
    GuardedFloats typed_want = RunReference(), f32_want = NewOutput();
    ReferenceLinear(Params(&f32_want, false));
    EXPECT_TRUE(typed_want.SameBitsAs(f32_want)) << "reference " << c_.Describe();
    // A block type (q8) on the dot path sums per block: tolerance there.
    const bool block_dot_path =
        FindWeightType(c_.type)->scales != WeightScales::kNone && c_.M < 20;
    if (!block_dot_path) {
      EXPECT_TRUE(typed_got.SameBitsAs(f32_got)) << c_.Describe();
    }
    std::string problem;
    EXPECT_LE(Compare(typed_got, f32_got, &problem), kTolerance) << c_.Describe();
    EXPECT_EQ(problem, "") << c_.Describe();
  }
};

// Panel widths are 8 to 64 columns and depth blocks 128 to 4096 k values
// depending on the target; the lists straddle all of those edges.
const size_t kOuts[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129};
const size_t kDepths[] = {0,  1,   2,   3,   7,   15,  16,  17,  31,  33,  63,
                          65, 127, 128, 129, 255, 256, 257, 511, 513, 1021};
const size_t kRows[] = {1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 47, 48, 49, 97};

template <size_t n>
size_t Cycle(const size_t (&list)[n], size_t i) {
  return list[i % n];
}

// Every output width, every depth, and a spread of (width, depth) pairs, each with
// a different row count, stride, alignment and bias setting.
TEST_P(LinearTest, SizesStraddlingVectorPanelAndDepthEdges) {
  std::vector<LinearCase> cases;
  const size_t n_outs = sizeof(kOuts) / sizeof(kOuts[0]);
  const size_t n_depths = sizeof(kDepths) / sizeof(kDepths[0]);
  for (size_t i = 0; i < n_outs; ++i) cases.push_back({Cycle(kRows, i), 37, kOuts[i]});
  for (size_t i = 0; i < n_depths; ++i) cases.push_back({Cycle(kRows, i + 3), kDepths[i], 19});
  for (size_t i = 0; i < 3 * n_depths; ++i) {
    cases.push_back({Cycle(kRows, i + 7), Cycle(kDepths, i), Cycle(kOuts, 5 * i + 1)});
  }
  uint32_t seed = 0;
  for (LinearCase c : cases) {
    // Deep cases with few rows keep this quick under emulators (qemu's SVE is slow).
    if (c.K > 300) c.M = std::min(c.M, size_t{13});
    c.bias = seed % 3 != 0;
    c.misalign = seed % 2 == 1;
    c.x_pad = seed % 4 == 2 ? 3 : 0;
    c.y_pad = seed % 5 == 1 ? 5 : 0;
    c.seed = ++seed;
    LinearTester(c).ExpectMatchesReference();
  }
}

TEST_P(LinearTest, EveryRowCountUpToThreeTiles) {
  for (size_t M = 0; M <= 20; ++M) {
    LinearCase c{M, 37, 41};
    c.x_pad = 1;
    c.y_pad = 2;
    c.seed = uint32_t(100 + M);
    LinearTester(c).ExpectMatchesReference();
  }
}

TEST_P(LinearTest, EmptyShapesDoNothing) {
  for (const auto& shape : {std::vector<size_t>{0, 8, 8}, {8, 8, 0}, {0, 0, 0}}) {
    const LinearCase c{shape[0], shape[1], shape[2]};
    LinearTester t(c);
    EXPECT_EQ(t.Items(), 0u) << c.Describe();
    t.ExpectMatchesReference();
  }
}

TEST_P(LinearTest, ZeroDepthGivesBias) {
  LinearTester(LinearCase{9, 0, 35}).ExpectMatchesReference();
}

// K up to 4096 (and just past the 4096-deep blocks of the scalar target).
TEST_P(LinearTest, DeepSumsStayAccurate) {
  const size_t ks[] = {1024, 4096, 4099};
  const size_t ms[] = {3, 5};  // dot path, packed path (one tile with a repeated row)
  for (size_t K : ks) {
    for (size_t M : ms) {
      LinearCase c{M, K, 33};
      c.seed = uint32_t(K + M);
      LinearTester(c).ExpectMatchesReference();
    }
  }
}

TEST_P(LinearTest, LargeAndSmallMagnitudes) {
  const float scales[][2] = {{1e4f, 1e3f}, {1e15f, 1e15f}, {1e-15f, 1e-10f}};
  uint32_t seed = 500;
  for (const auto& s : scales) {
    for (size_t M : {2, 13}) {
      LinearCase c{M, 300, 45};
      c.x_scale = s[0];
      c.w_scale = s[1];
      c.seed = ++seed;
      LinearTester(c).ExpectMatchesReference();
    }
  }
}

TEST_P(LinearTest, AnySplitOfItemsGivesIdenticalBits) {
  const size_t shapes[][3] = {{2, 70, 100}, {100, 70, 100}, {61, 300, 37}, {49, 16, 200}};
  uint32_t seed = 900;
  for (const auto& s : shapes) {
   for (WeightType w_type : {WeightType::kF32, WeightType::kF16, WeightType::kBF16,
                              WeightType::kQ8}) {
    LinearTester t(LinearCase::ForSplits(s, w_type, ++seed));
    ASSERT_NO_FATAL_FAILURE(t.ExpectSplitsGiveIdenticalBits(1u));
    t.ExpectMatchesReference({t.Items() / 2});
   }
  }
}

// Buffers of exactly the data's size (no guards, no padding), so a sanitizer build
// reports any read past the end of x, w, bias or y.
TEST_P(LinearTest, ExactSizeBuffers) {
  const size_t shapes[][3] = {{1, 1, 1}, {3, 17, 33}, {7, 65, 31}, {13, 130, 67}};
  std::mt19937 rng(77);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const auto& s : shapes) {
    const size_t M = s[0], K = s[1], N = s[2];
    ExactSizeLinearBuffers b(M, K, N, &rng, &normal);
    LinearParams p{M, K, N, b.x.data(), K, b.w.data(), b.bias.data(), b.got.data(), N};
    RunLinearExactScratch(p);
    p.y = b.want.data();
    ReferenceLinear(p);
    for (size_t i = 0; i < M * N; ++i) {
      ASSERT_NEAR(b.got[i], b.want[i], 1e-4f) << "M=" << M << " K=" << K << " N=" << N << " i=" << i;
    }
  }
}

TEST_P(LinearTest, ScratchDependsOnlyOnDepth) {
  LinearParams a{};
  a.rows = 1;
  a.in = 300;
  a.out = 7;
  LinearParams b = a;
  b.rows = 100000;
  b.out = 100000;
  EXPECT_EQ(LinearScratchFloats(a), LinearScratchFloats(b));
}

const WeightType kTypedWeights[] = {WeightType::kF16, WeightType::kBF16, WeightType::kQ8,
                                     WeightType::kQ4_0, WeightType::kQ4_K, WeightType::kQ6_K};

// Every stored type on both paths (1-3 rows: the dot path; 20 and 29: packed),
// K around q8's 32-value blocks (shorter last blocks, K < 32) and vector edges, N
// odd and even, bias on and off, strides and misaligned buffers.
TEST_P(LinearTest, TypedWeightsEveryDepthBothPaths) {
  const size_t depths[] = {1, 7, 31, 32, 33, 96, 288, 300};
  const size_t rows[] = {1, 2, 3, 20, 29};
  const size_t outs[] = {19, 40};
  uint32_t seed = 2000;
  for (WeightType w_type : kTypedWeights) {
    for (size_t K : depths) {
      for (size_t i = 0; i < 5; ++i) {
        for (size_t N : outs) {
          LinearCase c{rows[i], K, N};
          c.type = w_type;
          c.bias = (seed % 2) == 0;
          c.misalign = (seed % 3) == 1;
          c.x_pad = (seed % 4) == 2 ? 3 : 0;
          c.y_pad = (seed % 5) == 1 ? 5 : 0;
          c.seed = ++seed;
          LinearTester(c).ExpectMatchesReference();
        }
      }
    }
  }
}

TEST_P(LinearTest, TypedWeightsZeroDepthAndEmptyShapes) {
  for (WeightType w_type : kTypedWeights) {
    for (size_t M : {2, 9}) {
      LinearCase c{M, 0, 35};
      c.type = w_type;
      LinearTester(c).ExpectMatchesReference();
    }
    LinearCase empty{0, 33, 8};
    empty.type = w_type;
    EXPECT_EQ(LinearTester(empty).Items(), 0u);
  }
}

// Large weights through the dot path's prefetching branch (the next 8 rows' lines;
// it runs on every matrix, these span many groups): its last groups must not
// prefetch past W's end (exact-size typed buffers under ASan would show it) and
// must give the same sums.
TEST_P(LinearTest, TypedWeightsLargeEnoughToPrefetch) {
  uint32_t seed = 3000;
  for (WeightType w_type : kTypedWeights) {
    const size_t N = w_type == WeightType::kQ8 ? 7401 : 3703;  // >= 2 MiB at K = 300
    for (size_t M : {1, 2}) {
      LinearCase c{M, 300, N};
      c.type = w_type;
      c.seed = ++seed;
      LinearTester(c).ExpectMatchesReference();
    }
  }
}

// Deep rows: many q8 blocks and the packed path's depth blocks (256 to 4096 k).
TEST_P(LinearTest, TypedWeightsDeepSums) {
  uint32_t seed = 4000;
  for (WeightType w_type : kTypedWeights) {
    for (size_t K : {1000, 4099}) {
      for (size_t M : {3, 21}) {
        LinearCase c{M, K, 17};
        c.type = w_type;
        c.seed = ++seed;
        LinearTester(c).ExpectMatchesReference();
      }
    }
  }
}

// GGUF's k-quant super-blocks in the shapes files hold (rows of whole 256-value blocks; the
// cases above also run short last blocks, read as zero-padded): one to five blocks, both
// paths, and 4096-deep rows.
TEST_P(LinearTest, SuperBlockWeightsWholeBlocks) {
  uint32_t seed = 5000;
  for (WeightType w_type : {WeightType::kQ4_K, WeightType::kQ6_K}) {
    for (size_t K : {256, 512, 1280, 4096}) {
      for (size_t M : {1, 4, 9, 25}) {
        LinearCase c{K == 4096 ? std::min(M, size_t{5}) : M, K, size_t{K == 4096 ? 9u : 37u}};
        c.type = w_type;
        c.bias = seed % 2 == 0;
        c.misalign = seed % 3 == 1;
        c.seed = ++seed;
        LinearTester(c).ExpectMatchesReference();
      }
    }
  }
}

// An unknown type code is no work at all, never a misread of the bytes.
TEST_P(LinearTest, UnknownWeightTypeHasNoItems) {
  LinearParams p{};
  p.rows = 3;
  p.in = 8;
  p.out = 8;
  p.w_type = static_cast<WeightType>(9);
  EXPECT_EQ(LinearWorkItems(p), 0u);
}

}  // namespace
}  // namespace attnrt::testing
