// Arena: exact fits succeed, one byte less fails with the numbers, high-water mark.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "attnrt/runtime/arena.h"
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
  const Status st = Status::Error(StatusCode::kBadFile, "tensor %s: offset %z past end %z",
                                  "w_q", size_t{18446744073709551615ull}, size_t{0});
  EXPECT_FALSE(st.ok());
  EXPECT_STREQ(st.message(), "tensor w_q: offset 18446744073709551615 past end 0");
  EXPECT_STREQ(Status::Ok().message(), "ok");
}

TEST(Status, LongMessagesAreTruncatedNotOverflowed) {
  std::string long_name(1000, 'x');
  const Status st = Status::Error(StatusCode::kBadFile, "name %s", long_name.c_str());
  EXPECT_EQ(std::strlen(st.message()), Status::kMaxMessage - 1);
}

}  // namespace
}  // namespace attnrt
