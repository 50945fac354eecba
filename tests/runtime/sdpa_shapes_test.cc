// BindSdpaShapes: PyTorch broadcasting, GQA, mask broadcast and the errors that
// name the problem. Expected strides are derived by hand from C order.
#include <gtest/gtest.h>

#include <string>

#include "attnrt/runtime/sdpa.h"

namespace attnrt {
namespace {

TensorShape Shape(std::initializer_list<size_t> dims) {
  TensorShape s;
  for (size_t d : dims) s.dims[s.rank++] = d;
  return s;
}

std::string BindError(TensorShape q, TensorShape k, TensorShape v, const TensorShape* mask) {
  SdpaParams p;
  TensorShape out, w;
  return BindSdpaShapes(q, k, v, mask, MaskKind::kBool, &p, &out, &w).message();
}

TEST(BindSdpaShapes, FourDimensionalGroupedQuery) {
  SdpaParams p;
  TensorShape out, w;
  const TensorShape mask = Shape({2, 1, 5, 7});
  ASSERT_TRUE(BindSdpaShapes(Shape({2, 6, 5, 16}), Shape({2, 2, 7, 16}), Shape({2, 2, 7, 8}),
                             &mask, MaskKind::kAdditive, &p, &out, &w)
                  .ok());
  EXPECT_EQ(p.batch, 2u);
  EXPECT_EQ(p.q_heads, 6u);
  EXPECT_EQ(p.kv_heads, 2u);
  EXPECT_EQ(p.q_strides.batch, 6u * 5 * 16);
  EXPECT_EQ(p.k_strides.head, 7u * 16);
  EXPECT_EQ(p.mask_strides.head, 0u);
  EXPECT_EQ(p.mask_strides.batch, 35u);
  EXPECT_EQ(p.mask_strides.col, 1u);
  EXPECT_FLOAT_EQ(p.scale, 0.25f);
  EXPECT_EQ(out.rank, 4u);
  EXPECT_EQ(out.dims[3], 8u);
  EXPECT_EQ(w.dims[3], 7u);
}

TEST(BindSdpaShapes, RankTwoAndThreeAndBroadcastBatch) {
  SdpaParams p;
  TensorShape out, w;
  ASSERT_TRUE(BindSdpaShapes(Shape({5, 4}), Shape({7, 4}), Shape({7, 3}), nullptr,
                             MaskKind::kNone, &p, &out, &w)
                  .ok());
  EXPECT_EQ(out.rank, 2u);
  EXPECT_EQ(out.dims[0], 5u);
  // Key/value batch of 1 broadcasts against a query batch of 3.
  ASSERT_TRUE(BindSdpaShapes(Shape({3, 5, 4}), Shape({1, 7, 4}), Shape({1, 7, 3}), nullptr,
                             MaskKind::kNone, &p, &out, &w)
                  .ok());
  EXPECT_EQ(out.rank, 3u);
  EXPECT_EQ(out.dims[0], 3u);
  EXPECT_EQ(p.k_strides.head, 0u);
}

TEST(BindSdpaShapes, KeyBroadcastMaskAlongQueries) {
  SdpaParams p;
  TensorShape out, w;
  const TensorShape mask = Shape({7});
  ASSERT_TRUE(BindSdpaShapes(Shape({2, 5, 4}), Shape({2, 7, 4}), Shape({2, 7, 3}), &mask,
                             MaskKind::kBool, &p, &out, &w)
                  .ok());
  EXPECT_EQ(p.mask_strides.row, 0u);
  EXPECT_EQ(p.mask_strides.col, 1u);
}

TEST(BindSdpaShapes, ErrorsNameTheProblem) {
  EXPECT_NE(BindError(Shape({5, 4}), Shape({7, 3}), Shape({7, 3}), nullptr).find("E=4"),
            std::string::npos);
  EXPECT_NE(BindError(Shape({5, 4}), Shape({7, 4}), Shape({6, 3}), nullptr).find("S=7"),
            std::string::npos);
  EXPECT_NE(BindError(Shape({1, 3, 5, 4}), Shape({1, 2, 7, 4}), Shape({1, 2, 7, 4}), nullptr)
                .find("multiple"),
            std::string::npos);
  EXPECT_NE(BindError(Shape({2, 5, 4}), Shape({3, 7, 4}), Shape({3, 7, 4}), nullptr).find("heads"),
            std::string::npos);
  const TensorShape bad_mask = Shape({5, 6});
  EXPECT_NE(BindError(Shape({5, 4}), Shape({7, 4}), Shape({7, 3}), &bad_mask)
                .find("mask does not broadcast"),
            std::string::npos);
  const TensorShape deep_mask = Shape({1, 1, 5, 7});
  EXPECT_NE(BindError(Shape({5, 4}), Shape({7, 4}), Shape({7, 3}), &deep_mask).find("rank"),
            std::string::npos);
  EXPECT_NE(BindError(Shape({4}), Shape({7, 4}), Shape({7, 3}), nullptr).find("rank"),
            std::string::npos);
}

}  // namespace
}  // namespace attnrt
