// Vectorized read of a byte buffer (see byte_read.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/byte_read.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace attnrt {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Four accumulators so the loop is bound by loads, not by add latency; integer
// adds, so any bit pattern reads at the same speed (no denormal or NaN paths).
uint32_t ReadBytes(const void* data, size_t bytes) {
  const hn::ScalableTag<uint32_t> d;
  const size_t N = hn::Lanes(d);
  const auto* words = static_cast<const uint32_t*>(data);
  const size_t n = bytes / 4;
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    s0 = hn::Add(s0, hn::LoadU(d, words + i));
    s1 = hn::Add(s1, hn::LoadU(d, words + i + N));
    s2 = hn::Add(s2, hn::LoadU(d, words + i + 2 * N));
    s3 = hn::Add(s3, hn::LoadU(d, words + i + 3 * N));
  }
  uint32_t sum = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; i < n; ++i) sum += words[i];
  const auto* tail = static_cast<const uint8_t*>(data) + n * 4;
  for (size_t b = 0; b < bytes % 4; ++b) sum += tail[b];
  return sum;
}

}  // namespace HWY_NAMESPACE
}  // namespace attnrt
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "bench/byte_read.h"

namespace attnrt {

HWY_EXPORT(ReadBytes);

uint32_t ReadBytes(const void* data, size_t bytes) {
  return HWY_DYNAMIC_DISPATCH(ReadBytes)(data, bytes);
}

}  // namespace attnrt
#endif  // HWY_ONCE
