// Arena: exact fits succeed, one byte less fails with the numbers, high-water mark. Status
// formatting, and the checked size arithmetic on 64- and 32-bit size_t.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/checked_math.h"
#include "host/aligned_buffer.h"

namespace attnrt {
namespace {

TEST(Arena, ExactSizeFitsAndOneByteLessFails) {
  AlignedBuffer buffer(4096);
  Arena exact(buffer.data(), 100 + 64 + 28);
  void *a, *b;
  ASSERT_TRUE(exact.Allocate(100, 64, &a).ok());
  ASSERT_TRUE(exact.Allocate(28, 64, &b).ok());  // starts at 128
  EXPECT_EQ(static_cast<unsigned char*>(b) - static_cast<unsigned char*>(a), 128);
  EXPECT_EQ(exact.high_water(), 156u);

  Arena small(buffer.data(), 155);
  ASSERT_TRUE(small.Allocate(100, 64, &a).ok());
  const Status st = small.Allocate(28, 64, &b);
  EXPECT_EQ(st.code(), StatusCode::kArenaTooSmall);
  EXPECT_STREQ(st.message(), "arena too small: need 156 bytes, have 155");
  EXPECT_EQ(small.used(), 100u) << "a failed allocation must leave the arena unchanged";
}

TEST(Arena, ResetKeepsHighWaterMark) {
  AlignedBuffer buffer(1024);
  Arena arena(buffer.data(), 1024);
  void* p;
  const size_t mark = arena.Mark();
  ASSERT_TRUE(arena.Allocate(512, 64, &p).ok());
  arena.Reset(mark);
  EXPECT_EQ(arena.used(), 0u);
  EXPECT_EQ(arena.high_water(), 512u);
  ASSERT_TRUE(arena.Allocate(1024, 64, &p).ok());
}

TEST(Arena, RejectsBadAlignmentAndOverflow) {
  AlignedBuffer buffer(256);
  Arena arena(buffer.data(), 256);
  void* p;
  EXPECT_EQ(arena.Allocate(8, 3, &p).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(arena.Allocate(8, 128, &p).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(arena.Allocate(8, 8, &p).ok());
  EXPECT_EQ(arena.Allocate(~size_t{0}, 8, &p).code(), StatusCode::kOverflow);
  Arena misaligned(buffer.data() + 4, 128);
  EXPECT_EQ(misaligned.Allocate(8, 4, &p).code(), StatusCode::kInvalidArgument);
}

TEST(Status, FormatsStringsAndNumbers) {
  // The largest size_t of this platform: 18446744073709551615 on 64-bit, 4294967295 on 32-bit.
  const Status st = Status::Error(StatusCode::kBadFile, "tensor %s: offset %z past end %z",
                                  "w_q", SIZE_MAX, size_t{0});
  EXPECT_FALSE(st.ok());
  const std::string expected = sizeof(size_t) == 8
                                   ? "tensor w_q: offset 18446744073709551615 past end 0"
                                   : "tensor w_q: offset 4294967295 past end 0";
  static_assert(sizeof(size_t) == 8 || sizeof(size_t) == 4, "a size_t of 4 or 8 bytes");
  EXPECT_EQ(std::string(st.message()), expected);
  EXPECT_STREQ(Status::Ok().message(), "ok");
}

// Whether CheckedAdd(A, size_t, size_t*) compiles.
template <typename A, typename = void>
struct CheckedAddAccepts : std::false_type {};
template <typename A>
struct CheckedAddAccepts<A, std::void_t<decltype(CheckedAdd(std::declval<A>(), size_t{1},
                                                            static_cast<size_t*>(nullptr)))>>
    : std::true_type {};

// Where size_t is 32 bits a uint64_t would be cut before the check, so such calls must not
// compile there; where size_t is 64 bits uint64_t is the same width and is accepted.
static_assert(CheckedAddAccepts<size_t>::value, "size_t arguments");
static_assert(CheckedAddAccepts<uint32_t>::value, "narrower arguments widen safely");
static_assert(CheckedAddAccepts<uint64_t>::value == (sizeof(size_t) == 8),
              "uint64_t arguments only where size_t holds them");

TEST(CheckedMath, SizeFromU64NarrowsOnlyWhatFits) {
  EXPECT_EQ(kSizeBits, sizeof(size_t) * 8);
  size_t out = 7;
  EXPECT_TRUE(SizeFromU64(SIZE_MAX, &out));
  EXPECT_EQ(out, SIZE_MAX);
  const uint64_t one_past = uint64_t{SIZE_MAX} + 1;  // 2^32 on 32-bit, wraps to 0 on 64-bit
  out = 7;
  EXPECT_EQ(SizeFromU64(one_past, &out), sizeof(size_t) == 8);
  EXPECT_EQ(out, sizeof(size_t) == 8 ? 0u : 7u) << "untouched on failure";
  out = 7;
  EXPECT_EQ(SizeFromU64(uint64_t{1} << 40, &out), sizeof(size_t) == 8);
  EXPECT_EQ(SizeFromU64(UINT64_MAX, &out), sizeof(size_t) == 8);
}

TEST(CheckedMath, U64ArithmeticIsIndependentOfSizeT) {
  uint64_t r = 0;
  EXPECT_TRUE(CheckedMulU64(uint64_t{1} << 32, uint64_t{1} << 31, &r));
  EXPECT_EQ(r, uint64_t{1} << 63);
  EXPECT_FALSE(CheckedMulU64(uint64_t{1} << 32, uint64_t{1} << 32, &r));
  EXPECT_EQ(r, uint64_t{1} << 63) << "untouched on overflow";
  EXPECT_TRUE(CheckedAddU64(UINT64_MAX - 1, 1, &r));
  EXPECT_EQ(r, UINT64_MAX);
  EXPECT_FALSE(CheckedAddU64(UINT64_MAX, 1, &r));
  // The size_t versions overflow at this platform's width.
  size_t s = 0;
  EXPECT_FALSE(CheckedMul(size_t{1} << (kSizeBits / 2), size_t{1} << (kSizeBits / 2), &s));
  EXPECT_TRUE(CheckedMul(size_t{1} << (kSizeBits / 2), size_t{1} << (kSizeBits / 2 - 1), &s));
  EXPECT_EQ(s, size_t{1} << (kSizeBits - 1));
  EXPECT_FALSE(CheckedAdd(SIZE_MAX, 1, &s));
  EXPECT_FALSE(CheckedAlignUp(SIZE_MAX - 2, 4, &s));
  EXPECT_TRUE(CheckedAlignUp(SIZE_MAX - 3, 4, &s));
  EXPECT_EQ(s, SIZE_MAX - 3);
}

TEST(Status, LongMessagesAreTruncatedNotOverflowed) {
  std::string long_name(1000, 'x');
  const Status st = Status::Error(StatusCode::kBadFile, "name %s", long_name.c_str());
  EXPECT_EQ(std::strlen(st.message()), Status::kMaxMessage - 1);
}

}  // namespace
}  // namespace attnrt
