// ReadSpans, the plain-read floor of the decode benchmarks: it must read every byte
// of every span once, whatever the span's alignment, length and split into chunks
// and workers, or the floor it reports is of fewer bytes than it claims.
#include "host/memory_read.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "attnrt/runtime/executor.h"
#include "common/steerable_targets.h"
#include "host/thread_pool.h"
#include "hwy/tests/hwy_gtest.h"

namespace attnrt::testing {
namespace {

// The contract, one word at a time: each span's 32-bit words from its start, then
// its tail bytes, summed modulo 2^32.
uint32_t ExpectedSum(const std::vector<ByteSpan>& spans) {
  uint32_t sum = 0;
  for (const ByteSpan& s : spans) {
    const auto* bytes = static_cast<const uint8_t*>(s.data);
    size_t b = 0;
    for (; b + 4 <= s.bytes; b += 4) {
      uint32_t word;
      std::memcpy(&word, bytes + b, sizeof(word));
      sum += word;
    }
    for (; b < s.bytes; ++b) sum += bytes[b];
  }
  return sum;
}

// Every target ReadSpans has on this CPU: its word sums take different vector
// widths and reductions (AVX3's must not overflow a signed int: issue 28).
class MemoryRead : public hwy::TestWithParamTarget {
 protected:
  void SetUp() override {
    hwy::TestWithParamTarget::SetUp();
    ASSERT_STREQ(MemoryReadIsa(), hwy::TargetName(GetParam()));
  }
};
INSTANTIATE_TEST_SUITE_P(MemoryReadGroup, MemoryRead,
                         ::testing::ValuesIn(TargetsToTest(MemoryReadIsa)),
                         ::hwy::TestParamTargetName);

TEST_P(MemoryRead, EveryByteOfOddlyPlacedSpansOnce) {
  std::mt19937 rng(7);
  std::vector<uint8_t> buffer(200000);
  for (uint8_t& b : buffer) b = static_cast<uint8_t>(rng());
  // Offsets off the word grid, lengths with tails, one past several 16 KiB chunks,
  // an empty one, and two spans over the same bytes (each is read).
  const std::vector<ByteSpan> spans = {
      {buffer.data() + 1, 3},          {buffer.data() + 5, 37},
      {buffer.data() + 64, 16384},     {buffer.data() + 16450, 16385 * 3 + 2},
      {buffer.data() + 70000, 0},      {buffer.data() + 70001, 129999},
      {buffer.data() + 70001, 129999}, {buffer.data() + 3, 1}};
  const uint32_t expected = ExpectedSum(spans);
  SerialExecutor serial;
  EXPECT_EQ(static_cast<uint32_t>(ReadSpans(spans.data(), spans.size(), &serial)), expected);
  for (size_t workers : {2, 3}) {
    ThreadPool pool(workers);
    EXPECT_EQ(static_cast<uint32_t>(ReadSpans(spans.data(), spans.size(), &pool)), expected)
        << workers << " workers";
  }
}

// Words near 2^32 in every lane: each vector's lane sum passes INT32_MAX and
// UINT32_MAX, which the reduction must wrap modulo 2^32, not trap on.
TEST_P(MemoryRead, WordSumsPastTheIntRangeWrap) {
  std::vector<uint8_t> buffer(4096 + 3, 0xFF);
  for (size_t i = 0; i < buffer.size(); i += 7) buffer[i] = 0x80;
  const std::vector<ByteSpan> spans = {{buffer.data(), buffer.size()},
                                       {buffer.data() + 1, 1024 + 2}};
  SerialExecutor serial;
  EXPECT_EQ(static_cast<uint32_t>(ReadSpans(spans.data(), spans.size(), &serial)),
            ExpectedSum(spans));
}

TEST_P(MemoryRead, NoSpansReadNothing) {
  SerialExecutor serial;
  EXPECT_EQ(ReadSpans(nullptr, 0, &serial), 0u);
}

}  // namespace
}  // namespace attnrt::testing
