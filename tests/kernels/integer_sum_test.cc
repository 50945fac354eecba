// SumOfLanesExact (kernels/hwy/integer_sum-inl.h), called directly on every
// target this CPU supports, against a scalar sum in 64 bits: lanes at the int32
// and uint32 extremes, where a reduction that adds in `int` overflows (AVX3's
// hn::SumOfLanes does, and UBSan stops it: issue 28), and random lanes. Run in the
// ASan + UBSan stage too, where an overflowing reduction fails the test.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/integer_sum_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "kernels/hwy/integer_sum-inl.h"
#include "tests/kernels_nn/nn_target_fixture.h"

HWY_BEFORE_NAMESPACE();
namespace attnrt {
namespace HWY_NAMESPACE {
namespace {

template <class T>
std::vector<std::vector<T>> LanePatterns(size_t lanes) {
  constexpr T kMin = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  std::vector<std::vector<T>> patterns = {std::vector<T>(lanes, kMin),
                                          std::vector<T>(lanes, kMax),
                                          std::vector<T>(lanes, T{1})};
  std::vector<T> alternating(lanes);
  for (size_t i = 0; i < lanes; ++i) alternating[i] = (i % 2) ? kMin : kMax;
  patterns.push_back(alternating);
  std::mt19937 rng(11);
  for (int r = 0; r < 8; ++r) {
    std::vector<T> random(lanes);
    for (T& v : random) v = static_cast<T>(rng());
    patterns.push_back(random);
  }
  return patterns;
}

template <class T>
void CheckExactSums() {
  const hn::ScalableTag<T> d;
  const size_t lanes = hn::Lanes(d);
  auto buffer = hwy::AllocateAligned<T>(lanes);
  for (const std::vector<T>& pattern : LanePatterns<T>(lanes)) {
    using Wide = decltype(SumOfLanesExact(d, hn::Zero(d)));
    Wide expected = 0;
    for (T v : pattern) expected += static_cast<Wide>(v);
    for (size_t i = 0; i < lanes; ++i) buffer[i] = pattern[i];
    EXPECT_EQ(SumOfLanesExact(d, hn::Load(d, buffer.get())), expected)
        << lanes << " lanes, first lane " << pattern[0];
  }
}

void TestSumOfLanesExact() {
  CheckExactSums<int32_t>();
  CheckExactSums<uint32_t>();
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace attnrt
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace attnrt {
namespace {

ATTNRT_PER_TARGET_SUITE(IntegerSumTest);
HWY_EXPORT_AND_TEST_P(IntegerSumTest, TestSumOfLanesExact);

}  // namespace
}  // namespace attnrt
#endif  // HWY_ONCE
