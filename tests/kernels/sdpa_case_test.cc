// SdpaCase (tests/common/sdpa_case.h) on its own: a chain sets what it names, the
// boards' table is a compile-time constant, Describe prints the line both harnesses
// print (cut to the caller's buffer), and the shared input rules do what they say.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/sdpa_board_cases.h"
#include "common/sdpa_case_inputs.h"
#include "common/sdpa_case_text.h"
#include "kernels/sdpa_tester.h"

namespace attnrt::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// The boards keep their table in flash: it must be a constant expression.
static_assert(kBoardCases[0].L == 64 && kBoardCases[0].q_heads == 2, "plain: 2 heads, L = 64");
static_assert(kBoardCaseCount >= 30, "the boards' cases (none may be dropped)");

// The SDPA suites share a case's inputs and oracle results by CaseKey: two cases
// that differ in any one setting must have different keys, or one would be checked
// against the other's oracle.
TEST(SdpaCase, KeyTellsEverySettingApart) {
  const SdpaCase base;
  const std::vector<SdpaCase> changed = {
      SdpaCase("named"), SdpaCase().Batch(2), SdpaCase().Heads(2, 1), SdpaCase().Heads(1, 2),
      SdpaCase().Shape(2, 1, 1, 1), SdpaCase().Shape(1, 2, 1, 1), SdpaCase().Shape(1, 1, 2, 1),
      SdpaCase().Shape(1, 1, 1, 2), SdpaCase().Mask(MaskKind::kBool),
      SdpaCase().Mask(MaskKind::kNone, MaskShape::kL1), SdpaCase().Keep(0.5f),
      SdpaCase().DeadEvery(3), SdpaCase().Causal(CausalKind::kUpperLeft), SdpaCase().Scale(0.5f),
      SdpaCase().Window(4), SdpaCase().Alibi(0.1f), SdpaCase().Alibi(0.1f).Alibi(0.2f),
      SdpaCase().Softcap(3.0f), SdpaCase().Sinks(2.0f, 0.0f), SdpaCase().Sinks(3.0f, 0.0f),
      SdpaCase().Sinks(2.0f, 1.0f), SdpaCase().Poison('q', 0, kInf), SdpaCase().Poison('k', 0, kInf),
      SdpaCase().Poison('q', 1, kInf), SdpaCase().Poison('q', 0, -kInf),
      SdpaCase().NonfiniteKeys(), SdpaCase().NonfiniteQueries(),
      SdpaCase().Extreme(ExtremeKind::kLowestMask), SdpaCase().KvType(KvType::kQ8),
      SdpaCase().Logits(2.0f), SdpaCase().Misaligned(), SdpaCase().Weights(), SdpaCase().Workers(2),
      SdpaCase().Seed(2), SdpaCase().Scale(std::nextafter(1.0f, 2.0f)),
      SdpaCase().Scale(1.0f)};
  std::vector<std::string> keys = {CaseKey(base)};
  for (const SdpaCase& c : changed) keys.push_back(CaseKey(c));
  for (size_t i = 0; i < keys.size(); ++i) {
    for (size_t j = i + 1; j < keys.size(); ++j) {
      EXPECT_NE(keys[i], keys[j]) << "cases " << i << " and " << j << ": " << Describe(changed[j - 1]);
    }
  }
  EXPECT_EQ(CaseKey(SdpaCase().Seed(5)), CaseKey(SdpaCase().Seed(5))) << "the same case, one key";
}

TEST(SdpaCase, ChainSetsWhatItNames) {
  const SdpaCase c = SdpaCase("keypad")
                         .Shape(9, 130, 12, 20)
                         .Batch(2)
                         .Heads(4, 2)
                         .Mask(MaskKind::kBool, MaskShape::kB11S)
                         .Causal(CausalKind::kLowerRight)
                         .Scale(0.5f)
                         .Poison('k', 72, kInf)
                         .Seed(3);
  EXPECT_EQ(c.L, 9u);
  EXPECT_EQ(c.S, 130u);
  EXPECT_EQ(c.E, 12u);
  EXPECT_EQ(c.Ev, 20u);
  EXPECT_EQ(c.batch, 2u);
  EXPECT_EQ(c.q_heads, 4u);
  EXPECT_EQ(c.kv_heads, 2u);
  EXPECT_EQ(c.mask_shape, MaskShape::kB11S);
  EXPECT_EQ(c.poison_count, 1u);
  EXPECT_EQ(c.poison[0].index, 72u);
  EXPECT_TRUE(c.HasNonFiniteInputs());
  EXPECT_EQ(Describe(c),
            "keypad B=2 Hq=4 Hkv=2 L=9 S=130 E=12 Ev=20 mask=bool(B11S) keep=0.7 "
            "causal=lower-right scale=0.5 k[72]=inf seed=3");
}

TEST(SdpaCase, DescribeIsCutToTheBufferAndSaysHowLongItIs) {
  const SdpaCase c = SdpaCase().Shape(1, 2, 3, 4).Alibi(-0.05f).Sinks(2.0f, 12.0f);
  const std::string full = Describe(c);
  EXPECT_EQ(full, "B=1 Hq=1 Hkv=1 L=1 S=2 E=3 Ev=4 alibi*-0.05 sinks*2+12 seed=1");
  char text[8];
  EXPECT_EQ(Describe(c, text, sizeof(text)), full.size());
  EXPECT_EQ(std::string(text), "B=1 Hq=");
  EXPECT_EQ(Describe(c, nullptr, 0), full.size());
}

TEST(SdpaCase, NumbersKeepFourSignificantDigits) {
  const struct {
    float value;
    const char* text;
  } numbers[] = {{0.1f, "0.1"},         {1.7f, "1.7"},
                 {100.0f, "100"},       {-0.05f, "-0.05"},
                 {0.0012f, "0.0012"},   {12345.0f, "12350"},
                 {1e31f, "1e+31"},      {std::numeric_limits<float>::lowest(), "-3.403e+38"},
                 {1e-5f, "1e-5"},       {0.0f, "0"},
                 {-kInf, "-inf"},       {std::nanf(""), "nan"}};
  for (const auto& n : numbers) {
    char text[32];
    TextBuffer(text, sizeof(text)).Number(n.value);
    EXPECT_EQ(std::string(text), n.text) << n.value;
  }
}

TEST(SdpaCase, AlibiSlopesAreTheGeometricSeries) {
  for (size_t heads : {1, 3, 8, 12}) {
    const SdpaCase c = SdpaCase().Heads(heads, 1).Alibi(0.1f);
    for (size_t h = 0; h < heads; ++h) {
      const double want = 0.1 * std::pow(2.0, -8.0 * double(h + 1) / double(heads));
      EXPECT_NEAR(AlibiSlope(c, h), want, want * 1e-6) << "head " << h << " of " << heads;
    }
  }
}

TEST(SdpaCase, BadValuesGoWhereTheCaseSays) {
  const SdpaCase c = SdpaCase()
                         .Shape(4, 8, 2, 2)
                         .Mask(MaskKind::kBool, MaskShape::kB11S)
                         .Poison('v', 15, kInf)
                         .Poison('m', 7, 1.0f)
                         .NonfiniteKeys();
  std::vector<float> q(8, 1.0f), k(16, 1.0f), v(16, 1.0f), mask_f(8, 0.0f);
  std::vector<uint8_t> mask_b(8, 0);
  ASSERT_TRUE(WriteBadValues(c, {q.data(), 8, k.data(), 16, v.data(), 16, mask_f.data(),
                                 mask_b.data(), 8}));
  EXPECT_EQ(v[15], kInf);
  EXPECT_EQ(mask_b[7], 1);
  EXPECT_EQ(k[3 * 2], kInf);   // key 3, element 0
  EXPECT_EQ(k[7 * 2], -kInf);  // key 7
  EXPECT_EQ(k[2 * 2], 1.0f);
  // Outside its tensor, or one poison too many: a bug in the case, refused.
  SdpaCase outside = SdpaCase(c).Poison('q', 8, 0.0f);
  EXPECT_FALSE(WriteBadValues(outside, {q.data(), 8, k.data(), 16, v.data(), 16, nullptr,
                                        nullptr, 8}));
  SdpaCase many = SdpaCase().Poison('q', 0, 0).Poison('q', 1, 0).Poison('q', 2, 0);
  many.Poison('q', 3, 0).Poison('q', 4, 0);
  EXPECT_EQ(many.poison_count, kMaxBadValues + 1);
  EXPECT_FALSE(
      WriteBadValues(many, {q.data(), 8, k.data(), 16, v.data(), 16, nullptr, nullptr, 0}));
}

TEST(SdpaCase, DeadMaskRowsFollowTheMaskShape) {
  // (B, 1, 1, S): a mask row is a batch; dead_every 2 kills batch 1, every key.
  const SdpaCase c = SdpaCase()
                         .Batch(2)
                         .Shape(3, 5, 1, 1)
                         .Mask(MaskKind::kAdditive, MaskShape::kB11S)
                         .DeadEvery(2);
  std::vector<float> mask(10, 0.0f);
  FillMask(c, mask.size(), [] { return 0.0f; }, mask.data(), nullptr);
  for (size_t j = 0; j < 5; ++j) {
    EXPECT_NE(mask[j], -kInf) << "batch 0 key " << j;
    EXPECT_EQ(mask[5 + j], -kInf) << "batch 1 key " << j;
  }
}

}  // namespace
}  // namespace attnrt::testing
