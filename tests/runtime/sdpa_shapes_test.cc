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

// torch.matmul broadcasting for 3-D inputs: the leading dim is a batch, so (6, L, E)
// against (3, S, E) is an error (it was taken as 6 query heads grouped over 3),
// while 4-D (1, 6, L, E) against (1, 3, S, E) is grouped-query attention.
TEST(BindSdpaShapes, ThreeDimensionalLeadingDimIsABatch) {
  EXPECT_NE(BindError(Shape({6, 5, 4}), Shape({3, 7, 4}), Shape({3, 7, 4}), nullptr)
                .find("3-D batch sizes do not broadcast: query 6, key/value 3"),
            std::string::npos);
  EXPECT_EQ(BindError(Shape({1, 6, 5, 4}), Shape({1, 3, 7, 4}), Shape({1, 3, 7, 4}), nullptr), "ok");
  EXPECT_EQ(BindError(Shape({6, 5, 4}), Shape({1, 7, 4}), Shape({1, 7, 4}), nullptr), "ok");
  EXPECT_EQ(BindError(Shape({1, 5, 4}), Shape({3, 7, 4}), Shape({3, 7, 4}), nullptr), "ok");
}

// Zero-size tensors may carry huge dimensions; the byte count of what the call
// writes must still fit size_t (these products wrap to 0 and 8 unchecked).
TEST(BindSdpaShapes, SizesThatOverflowAreRefused) {
  const size_t big = size_t{1} << 30;
  EXPECT_NE(BindError(Shape({big, big, 2, 0}), Shape({1, 1, 0, 0}), Shape({1, 1, 0, 8}), nullptr)
                .find("have more bytes than size_t can count"),
            std::string::npos);
  const size_t rows = (SIZE_MAX >> 3) + 2;  // rows * 8 keys wraps
  EXPECT_NE(BindError(Shape({1, 1, rows, 0}), Shape({1, 1, 8, 0}), Shape({1, 1, 8, 0}), nullptr)
                .find("have more bytes than size_t can count"),
            std::string::npos);
  EXPECT_EQ(BindError(Shape({1, 1, 2, 0}), Shape({1, 1, 0, 0}), Shape({1, 1, 0, 8}), nullptr), "ok");
}

}  // namespace
}  // namespace attnrt
