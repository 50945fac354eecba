// CRC32C: published check values, chaining, and the hardware and table paths
// against a bit-by-bit reference written here from the definition.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "attnrt/runtime/weight_file.h"

namespace attnrt {
namespace {

// CRC32C by its definition: reflected, polynomial 0x82F63B78, init and final xor 0xFFFFFFFF.
uint32_t ReferenceCrc32c(const uint8_t* p, size_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int b = 0; b < 8; ++b) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
  }
  return crc ^ 0xFFFFFFFFu;
}

TEST(Crc32c, CheckValue) { EXPECT_EQ(Crc32c(0, "123456789", 9), 0xE3069283u); }

TEST(Crc32c, Rfc3720Vectors) {
  uint8_t buf[32];
  std::memset(buf, 0, sizeof buf);
  EXPECT_EQ(Crc32c(0, buf, 32), 0x8A9136AAu);
  std::memset(buf, 0xFF, sizeof buf);
  EXPECT_EQ(Crc32c(0, buf, 32), 0x62A8AB43u);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(Crc32c(0, buf, 32), 0x46DD794Eu);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<uint8_t>(31 - i);
  EXPECT_EQ(Crc32c(0, buf, 32), 0x113FDB5Cu);
}

TEST(Crc32c, EmptyInputIsZero) { EXPECT_EQ(Crc32c(0, nullptr, 0), 0u); }

TEST(Crc32c, MatchesReferenceAtEveryLengthAndMisalignment) {
  std::mt19937 rng(7);
  std::vector<uint8_t> data(300 + 8);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t n = 0; n <= 300; ++n) {
      ASSERT_EQ(Crc32c(0, data.data() + offset, n), ReferenceCrc32c(data.data() + offset, n))
          << "offset " << offset << " length " << n;
    }
  }
}

TEST(Crc32c, ChainsAcrossSplits) {
  std::vector<uint8_t> data(100);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 37 + 11);
  const uint32_t whole = ReferenceCrc32c(data.data(), data.size());
  for (size_t split = 0; split <= data.size(); ++split) {
    const uint32_t head = Crc32c(0, data.data(), split);
    EXPECT_EQ(Crc32c(head, data.data() + split, data.size() - split), whole) << split;
  }
}

// The table-driven path, which Crc32c uses only on CPUs without a CRC instruction.
TEST(Crc32cPortable, MatchesCheckValueReferenceAndChaining) {
  EXPECT_EQ(Crc32cPortable(0, "123456789", 9), 0xE3069283u);
  std::mt19937 rng(11);
  std::vector<uint8_t> data(300);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  for (size_t n = 0; n <= data.size(); ++n) {
    ASSERT_EQ(Crc32cPortable(0, data.data(), n), ReferenceCrc32c(data.data(), n)) << n;
  }
  const uint32_t head = Crc32cPortable(0, data.data(), 123);
  EXPECT_EQ(Crc32cPortable(head, data.data() + 123, data.size() - 123),
            ReferenceCrc32c(data.data(), data.size()));
}

TEST(WeightFileChecksum, IsCrcWithTheChecksumFieldZeroed) {
  std::vector<uint8_t> file(200);
  for (size_t i = 0; i < file.size(); ++i) file[i] = static_cast<uint8_t>(i ^ 0x5A);
  std::vector<uint8_t> zeroed = file;
  std::memset(zeroed.data() + 104, 0, 4);
  EXPECT_EQ(WeightFileChecksum(file.data(), file.size()),
            ReferenceCrc32c(zeroed.data(), zeroed.size()));
}

}  // namespace
}  // namespace attnrt
