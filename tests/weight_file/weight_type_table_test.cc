// The weight-type list (weight_types.inc) and what weight_type.h derives from it: the
// codes and names runtime/FORMAT.md documents (the document's dtype table is written by
// hand and kept in sync; this test fails when they drift), and the byte counts of every
// scale layout, including a 4-bit GGUF-style layout no type uses yet.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "attnrt/kernels/weight_q8.h"
#include "attnrt/kernels/weight_type.h"
#include "gtest/gtest.h"

namespace attnrt {
namespace {

TEST(WeightTypeTable, CodesAndNamesAreTheFileFormats) {
  EXPECT_STREQ(kWeightTypeCodes, "1 f32, 2 f16, 3 bf16, 4 q8, 5 q4_0, 6 q4_K, 7 q6_K");
  for (const WeightTypeInfo& t : kWeightTypes) {
    WeightType parsed;
    ASSERT_TRUE(ParseWeightType(t.name, &parsed)) << t.name;
    EXPECT_EQ(parsed, t.type);
    EXPECT_STREQ(WeightTypeName(t.type), t.name);
    EXPECT_TRUE(IsKnownWeightType(static_cast<uint8_t>(t.type)));
  }
  EXPECT_FALSE(IsKnownWeightType(0));
  EXPECT_FALSE(IsKnownWeightType(static_cast<uint8_t>(kWeightTypes[kWeightTypeCount - 1].type) + 1));
  EXPECT_EQ(WeightTypeName(static_cast<WeightType>(200)), nullptr);
  WeightType unused;
  EXPECT_FALSE(ParseWeightType("f64", &unused));
}

// Every row of FORMAT.md's `dtype` codes table names a type of the list, and every
// type has its row.
TEST(WeightTypeTable, FormatDocumentListsEveryType) {
  std::ifstream in(ATTNRT_FORMAT_MD);
  ASSERT_TRUE(in) << ATTNRT_FORMAT_MD;
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (const WeightTypeInfo& t : kWeightTypes) {
    const std::string row =
        "| " + std::to_string(static_cast<int>(t.type)) + " | `" + std::string(t.name) + "`";
    EXPECT_NE(doc.find(row), std::string::npos) << "FORMAT.md has no dtype row " << row;
  }
  const std::string next = "| " + std::to_string(static_cast<int>(kWeightTypes[kWeightTypeCount - 1].type) + 1) + " | `";
  EXPECT_EQ(doc.find(next), std::string::npos) << "FORMAT.md documents a code the list lacks";
}

TEST(WeightTypeTable, BytesOfEachLayout) {
  size_t bytes = 0;
  ASSERT_TRUE(MatrixBytes(WeightType::kF32, size_t{3}, size_t{5}, &bytes));
  EXPECT_EQ(bytes, 60u);
  ASSERT_TRUE(MatrixBytes(WeightType::kBF16, size_t{3}, size_t{5}, &bytes));
  EXPECT_EQ(bytes, 30u);
  // q8: values, zeros to 64 bytes, f16 scales (FORMAT.md's formula).
  for (size_t rows : {0u, 1u, 3u, 64u}) {
    for (size_t cols : {0u, 1u, 31u, 32u, 33u, 100u}) {
      ASSERT_TRUE(MatrixBytes(WeightType::kQ8, rows, cols, &bytes));
      EXPECT_EQ(bytes, (rows * cols + 63) / 64 * 64 + 2 * rows * ((cols + 31) / 32));
      EXPECT_EQ(Q8ScalesOffset(rows, cols), (rows * cols + 63) / 64 * 64);
    }
  }
  // GGUF's q4_0 layout: 32 values in 18 bytes (an f16 scale and 16 bytes of nibbles).
  constexpr WeightTypeInfo q4{static_cast<WeightType>(99), "q4", 4, 32, WeightScales::kF16InBlock, 18};
  ASSERT_TRUE(MatrixBytes(q4, size_t{2}, size_t{64}, &bytes));
  EXPECT_EQ(bytes, 2u * 2u * 18u);
  ASSERT_TRUE(MatrixBytes(q4, size_t{1}, size_t{33}, &bytes));  // a short last block
  EXPECT_EQ(bytes, 2u * 18u);
  EXPECT_EQ(ValueRowsBytes(q4, 3, 64), 3u * 2u * 18u);
  // GGUF's k-quants: 256 values in 144 (q4_K) and 210 (q6_K) bytes, scales inside; only rows
  // of whole super-blocks are storable.
  ASSERT_TRUE(MatrixBytes(WeightType::kQ4_K, size_t{3}, size_t{512}, &bytes));
  EXPECT_EQ(bytes, 3u * 2u * 144u);
  ASSERT_TRUE(MatrixBytes(WeightType::kQ6_K, size_t{2}, size_t{256}, &bytes));
  EXPECT_EQ(bytes, 2u * 210u);
  EXPECT_EQ(ValueRowsBytes(*FindWeightType(WeightType::kQ6_K), 5, 768), 5u * 3u * 210u);
  for (WeightType t : {WeightType::kQ4_K, WeightType::kQ6_K}) {
    const WeightTypeInfo& info = *FindWeightType(t);
    EXPECT_EQ(info.scales, WeightScales::kSuperBlock);
    for (size_t cols : {0u, 256u, 512u, 4096u}) EXPECT_TRUE(RowWidthIsStorable(info, cols)) << cols;
    for (size_t cols : {1u, 32u, 255u, 257u, 300u}) EXPECT_FALSE(RowWidthIsStorable(info, cols)) << cols;
  }
  EXPECT_TRUE(RowWidthIsStorable(*FindWeightType(WeightType::kQ4_0), 33));
}

TEST(WeightTypeTable, BytesOverflowIsRefused) {
  const uint32_t max = ~uint32_t{0};
  uint32_t bytes = 0;
  EXPECT_FALSE(MatrixBytes<uint32_t>(WeightType::kF32, 1u << 16, 1u << 14, &bytes));
  EXPECT_TRUE(MatrixBytes<uint32_t>(WeightType::kF32, 1u << 15, 1u << 14, &bytes));
  EXPECT_FALSE(MatrixBytes<uint32_t>(WeightType::kQ8, 1, max - 10, &bytes));
  constexpr WeightTypeInfo q4{static_cast<WeightType>(99), "q4", 4, 32, WeightScales::kF16InBlock, 18};
  EXPECT_FALSE(MatrixBytes<uint32_t>(q4, 1u << 28, 1, &bytes));  // 2^28 blocks of 18 B
  EXPECT_TRUE(MatrixBytes<uint32_t>(q4, 1u << 12, 1u << 14, &bytes));
  EXPECT_EQ(bytes, (1u << 12) * (1u << 9) * 18u);
  EXPECT_FALSE(MatrixBytes<uint32_t>(static_cast<WeightType>(0), 1, 1, &bytes));
}

}  // namespace
}  // namespace attnrt
