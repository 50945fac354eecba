// Damaged and hostile weight files: truncation, single-byte changes, garbage, and every structural
// check on its own (the checksum is recomputed after each edit so it cannot be what refuses the
// file). The reader must refuse each one with kBadFile and a message naming the field, and never
// read outside the buffer (run these under ASan too).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attnrt/runtime/weight_file.h"
#include "convert/weight_file_writer.h"
#include "weight_file/weight_file_test_util.h"

namespace attnrt {
namespace weight_file_test {
namespace {

constexpr uint64_t kMax64 = ~uint64_t{0};

// SmallFile() with `edit` applied and the checksum made right again.
template <typename Edit>
Bytes Corrupted(Edit edit, Bytes b = SmallFile()) {
  edit(&b);
  FixChecksum(&b);
  return b;
}

TEST(WeightFileDamage, SmallFileIsValid) {
  const Bytes b = SmallFile();
  WeightFile file;
  const Status st = OpenCopy(b, &file);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(file.tensor_count(), 2u);
  EXPECT_EQ(file.metadata_count(), 3u);
  EXPECT_LT(b.size(), 1024u);  // small enough to flip every byte to every value
}

TEST(WeightFileDamage, EmptyInput) {
  WeightFile file;
  Status st = WeightFile::Open(nullptr, 0, &file);
  EXPECT_EQ(st.code(), StatusCode::kBadFile);
  EXPECT_STREQ(st.message(), "weight file: empty (0 bytes)");
  const uint8_t byte = 0;
  EXPECT_EQ(WeightFile::Open(&byte, 0, &file).code(), StatusCode::kBadFile);
  EXPECT_EQ(WeightFile::Open(nullptr, 10, &file).code(), StatusCode::kInvalidArgument);
}

TEST(WeightFileDamage, TruncatedAtEveryHeaderFieldBoundary) {
  const Bytes b = SmallFile();
  for (size_t cut : {1, 8, 12, 16, 24, 28, 32, 36, 40, 48, 56, 64, 72, 80, 88, 96, 104, 108, 127}) {
    EXPECT_TRUE(Refused(Bytes(b.begin(), b.begin() + cut), "shorter than the 128-byte header"))
        << cut;
  }
  EXPECT_TRUE(Refused(Bytes(b.begin(), b.begin() + 128), "file_size"));
}

TEST(WeightFileDamage, TruncatedAtEveryByte) {
  const Bytes b = SmallFile();
  for (size_t cut = 0; cut < b.size(); ++cut) {
    EXPECT_TRUE(Refused(Bytes(b.begin(), b.begin() + cut), "weight file: ")) << cut;
  }
}

// Truncation that also patches file_size (and the checksum) to match: the section and tensor
// bounds checks must catch it instead.
TEST(WeightFileDamage, TruncatedWithConsistentHeaderAtEveryByte) {
  const Bytes b = SmallFile();
  for (size_t cut = kHeaderBytes; cut < b.size(); ++cut) {
    Bytes t(b.begin(), b.begin() + cut);
    Put64(&t, kFileSize, cut);
    FixChecksum(&t);
    EXPECT_TRUE(Refused(t, "past the end")) << cut;
  }
}

TEST(WeightFileDamage, EverySingleByteChangeIsRefused) {
  const Bytes b = SmallFile();
  size_t refused = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    for (int delta = 1; delta < 256; ++delta) {
      Bytes d = b;
      d[i] = static_cast<uint8_t>(d[i] + delta);
      WeightFile file;
      const Status st = WeightFile::Open(d.data(), d.size(), &file);
      ASSERT_FALSE(st.ok()) << "byte " << i << " + " << delta << " accepted";
      ASSERT_EQ(st.code(), StatusCode::kBadFile) << st.message();
      ++refused;
    }
  }
  EXPECT_EQ(refused, b.size() * 255);
}

TEST(WeightFileDamage, ChecksumMismatchIsNamed) {
  Bytes b = SmallFile();
  b.back() ^= 1;
  EXPECT_TRUE(Refused(b, "checksum"));
  b = SmallFile();
  Put32(&b, kChecksum, Get32(b, kChecksum) + 1);
  EXPECT_TRUE(Refused(b, "checksum"));
}

TEST(WeightFileDamage, Garbage) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 2000; ++round) {
    Bytes g(rng() % 700);
    for (auto& x : g) x = static_cast<uint8_t>(rng());
    EXPECT_TRUE(Refused(g, "weight file: ")) << round;
  }
}

// Random bytes behind a plausible header (right magic, version, sizes, checksum): the structural
// checks must refuse them without reading out of bounds.
TEST(WeightFileDamage, GarbageBehindAValidLookingHeader) {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 20000; ++round) {
    Bytes g(128 + rng() % 600);
    for (auto& x : g) x = static_cast<uint8_t>(rng());
    std::memcpy(g.data(), "ATTNRTWF", 8);
    Put32(&g, kVersion, 1);
    Put32(&g, kHeaderSize, 128);
    Put64(&g, kFileSize, g.size());
    // Keep some fields small so the checks further in get reached.
    if (round % 2 == 0) {
      Put32(&g, kFlags, 0);
      std::memset(g.data() + kReserved, 0, 20);
      Put32(&g, kAlignment, 64);
      Put32(&g, kTensorCount, 1 + rng() % 3);  // at least one entry, so it can never be valid
      Put32(&g, kMetadataCount, rng() % 4);
      for (size_t field = kTensorTableOffset; field < kChecksum; field += 8) {
        Put64(&g, field, rng() % (g.size() + 16));
      }
    }
    FixChecksum(&g);
    EXPECT_TRUE(Refused(g, "weight file: ")) << round;
  }
}

TEST(WeightFileDamage, MisalignedBuffer) {
  const Bytes b = SmallFile();
  std::vector<uint8_t> storage(b.size() + 8);
  for (size_t shift = 1; shift < 4; ++shift) {
    uint8_t* base = storage.data();
    while (reinterpret_cast<uintptr_t>(base) % 4 != shift) ++base;
    std::memcpy(base, b.data(), b.size());
    WeightFile file;
    const Status st = WeightFile::Open(base, b.size(), &file);
    EXPECT_EQ(st.code(), StatusCode::kBadFile);
    EXPECT_NE(std::string(st.message()).find("4-byte boundary"), std::string::npos) << st.message();
  }
}

// --- Header fields -----------------------------------------------------------------------------

TEST(WeightFileHeader, Magic) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { (*b)[7] = 'X'; }), "magic"));
}

TEST(WeightFileHeader, Version) {
  for (uint32_t v : {0u, 3u, 0xFFFFFFFFu}) {
    EXPECT_TRUE(Refused(Corrupted([v](Bytes* b) { Put32(b, kVersion, v); }),
                        "version " + std::to_string(v) + " not supported"));
  }
}

TEST(WeightFileHeader, HeaderSize) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, kHeaderSize, 64); }), "header_size 64"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, kHeaderSize, 256); }), "header_size 256"));
}

TEST(WeightFileHeader, FileSizeDisagreesWithBuffer) {
  EXPECT_TRUE(
      Refused(Corrupted([](Bytes* b) { Put64(b, kFileSize, b->size() + 1); }), "file_size"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kFileSize, kMax64); }), "file_size"));
  // Extra bytes after a valid file are not ignored.
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { b->push_back(0); }), "file_size"));
}

TEST(WeightFileHeader, FlagsAndReserved) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, kFlags, 1); }), "flags 1"));
  for (size_t at : {size_t{108}, size_t{127}}) {
    EXPECT_TRUE(Refused(Corrupted([at](Bytes* b) { (*b)[at] = 7; }),
                        "reserved byte " + std::to_string(at) + " is 7"));
  }
}

TEST(WeightFileHeader, Alignment) {
  for (uint32_t a : {0u, 1u, 4u, 32u, 96u, 131072u, 0x80000000u}) {
    EXPECT_TRUE(Refused(Corrupted([a](Bytes* b) { Put32(b, kAlignment, a); }),
                        "alignment " + std::to_string(a) + " must be a power of two"));
  }
}

TEST(WeightFileHeader, HugeCounts) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, kTensorCount, 0xFFFFFFFFu); }),
                      "tensor_count 4294967295"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, kMetadataCount, 0xFFFFFFFFu); }),
                      "metadata_count 4294967295"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, kTensorCount, 3); }), "tensor_count 3"));
}

TEST(WeightFileHeader, SectionPastTheEnd) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kTensorTableOffset, b->size()); }),
                      "tensor_table section ends at byte"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kStringTableSize, 1 << 20); }),
                      "string_table section ends at byte"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kDataSize, Get64(*b, kDataSize) + 1); }),
                      "data section ends at byte"));
}

TEST(WeightFileHeader, OffsetPlusSizeOverflows) {
  EXPECT_TRUE(
      Refused(Corrupted([](Bytes* b) { Put64(b, kDataOffset, kMax64 - 63); }), "data_offset"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kMetadataTableSize, kMax64); }),
                      "metadata_table_offset"));
  EXPECT_TRUE(
      Refused(Corrupted([](Bytes* b) { Put64(b, kStringTableOffset, kMax64); }), "overflows"));
}

// u64 fields past 2^32 are printed in full on every platform: a 32-bit size_t must not cut
// 2^40 to 4294967295 in the message, nor wrap it into range.
TEST(WeightFileHeader, FieldsBeyond32BitsAreNamedInFull) {
  constexpr uint64_t kTera = uint64_t{1} << 40;
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kTensorTableOffset, kTera); }),
                      "tensor_table section ends at byte 1099511627904, past the end of the file"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kDataSize, kTera); }),
                      "data section ends at byte 1099511628160, past the end of the file"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kFileSize, kTera); }),
                      "header file_size 1099511627776 but the buffer holds"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kStringTableOffset, kMax64); }),
                      "header string_table_offset 18446744073709551615 + size"));
}

TEST(WeightFileHeader, SectionInsideTheHeader) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kStringTableOffset, 64); }),
                      "string_table section starts at byte 64, inside the 128-byte header"));
}

TEST(WeightFileHeader, TableSizeDisagreesWithCount) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kTensorTableSize, 64); }),
                      "tensor_count 2 needs tensor_table_size"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kMetadataTableSize, 48); }),
                      "metadata_count 3 needs metadata_table_size"));
}

TEST(WeightFileHeader, TableOffsetNotMultipleOf8) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kTensorTableOffset, 132); }),
                      "tensor_table_offset 132 is not a multiple of 8"));
}

TEST(WeightFileHeader, DataOffsetMisaligned) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        Put64(b, kDataOffset, Get64(*b, kDataOffset) + 8);
                        Put64(b, kDataSize, Get64(*b, kDataSize) - 8);
                      }),
                      "data_offset 392 is not a multiple of the alignment 64"));
}

TEST(WeightFileHeader, SectionsOverlap) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, kMetadataTableOffset, 192); }),
                      "sections tensor_table and metadata_table overlap at byte 192"));
  EXPECT_TRUE(
      Refused(Corrupted([](Bytes* b) { Put64(b, kStringTableOffset, Get64(*b, kDataOffset)); }),
              "sections string_table and data overlap"));
}

// --- Tensor entries (entry 0 is "a" (2, 3), entry 1 is "b" (4)) ---------------------------------

TEST(WeightFileTensor, DTypes) {
  // 0, the first code after the list's last (weight_types.inc), and 255 are no type.
  const uint8_t next = static_cast<uint8_t>(kWeightTypes[kWeightTypeCount - 1].type) + 1;
  for (uint8_t d : {uint8_t{0}, next, uint8_t{255}}) {
    EXPECT_TRUE(Refused(Corrupted([d](Bytes* b) { (*b)[TensorEntry(*b, 0) + kDType] = d; }),
                        "tensor 'a': unknown dtype " + std::to_string(d)));
  }
  // The fixture is an f32-only file, written as version 1: typed tensors need version 2.
  const char* names[] = {"", "", "f16", "bf16", "q8", "q4_0", "q4_K", "q6_K"};
  for (uint8_t d : {2, 3, 4, 5, 6, 7}) {
    EXPECT_TRUE(Refused(Corrupted([d](Bytes* b) { (*b)[TensorEntry(*b, 1) + kDType] = d; }),
                        std::string("tensor 'b': dtype ") + names[d] +
                            " needs format version 2, the header says 1"));
  }
}

// A version-2 file: "h" (3, 5) f16, "q" (2, 40) q8 and "r" (2, 40) q4_0 (40 = a full and a
// partial block), "s" (2, 256) q4_K and "t" (2, 256) q6_K (one super-block a row).
Bytes TypedFile() {
  WeightFileWriter w;
  std::string error;
  const std::vector<float> h = SampleValues(1.0f, 15), q = SampleValues(-5.0f, 80);
  const std::vector<float> k = SampleValues(2.0f, 512);
  EXPECT_TRUE(w.AddTensor("h", {3, 5}, h.data(), WeightType::kF16, &error)) << error;
  EXPECT_TRUE(w.AddTensor("q", {2, 40}, q.data(), WeightType::kQ8, &error)) << error;
  EXPECT_TRUE(w.AddTensor("r", {2, 40}, q.data(), WeightType::kQ4_0, &error)) << error;
  EXPECT_TRUE(w.AddTensor("s", {2, 256}, k.data(), WeightType::kQ4_K, &error)) << error;
  EXPECT_TRUE(w.AddTensor("t", {2, 256}, k.data(), WeightType::kQ6_K, &error)) << error;
  Bytes out;
  EXPECT_TRUE(w.Serialize(&out, &error)) << error;
  return out;
}

template <typename Edit>
Bytes TypedCorrupted(Edit edit) {
  return Corrupted(edit, TypedFile());
}

TEST(WeightFileTypedTensor, TypedFileIsValidVersion2) {
  const Bytes b = TypedFile();
  EXPECT_EQ(Get32(b, kVersion), 2u);
  WeightFile file;
  ASSERT_TRUE(OpenCopy(b, &file).ok());
  EXPECT_EQ(Get64(b, TensorEntry(b, 1) + kByteSize), 128u + 2 * 2 * 2);  // int8 plane, scales
}

TEST(WeightFileTypedTensor, NeedsVersion2) {
  EXPECT_TRUE(Refused(TypedCorrupted([](Bytes* b) { Put32(b, kVersion, 1); }),
                      "tensor 'h': dtype f16 needs format version 2, the header says 1"));
}

TEST(WeightFileTypedTensor, ByteSizeFollowsTheType) {
  // q's f32 size (320) or the int8 plane alone (80) are both wrong for q8.
  for (uint64_t wrong : {320u, 80u, 135u}) {
    EXPECT_TRUE(Refused(TypedCorrupted([wrong](Bytes* b) {
                          Put64(b, TensorEntry(*b, 1) + kByteSize, wrong);
                        }),
                        "tensor 'q': byte_size " + std::to_string(wrong) +
                            " but its q8 dims need 136 bytes"));
  }
  EXPECT_TRUE(Refused(TypedCorrupted([](Bytes* b) { Put64(b, TensorEntry(*b, 0) + kByteSize, 60); }),
                      "tensor 'h': byte_size 60 but its f16 dims need 30 bytes"));
  // r: 2 rows of 2 blocks of 18 bytes; its f32 size, q8's size and one byte short are wrong.
  for (uint64_t wrong : {320u, 136u, 40u, 71u}) {
    EXPECT_TRUE(Refused(TypedCorrupted([wrong](Bytes* b) {
                          Put64(b, TensorEntry(*b, 2) + kByteSize, wrong);
                        }),
                        "tensor 'r': byte_size " + std::to_string(wrong) +
                            " but its q4_0 dims need 72 bytes"));
  }
}

TEST(WeightFileTypedTensor, Q8ScalesMustBeFinite) {
  // Scale plane at 128 bytes into q's data; scale 3 = row 1, block 1.
  for (uint16_t bits : {0x7C00u, 0xFC00u, 0x7E00u}) {
    EXPECT_TRUE(Refused(TypedCorrupted([bits](Bytes* b) {
                          const size_t at = Get64(*b, TensorEntry(*b, 1) + kTensorDataOffset) + 128 + 6;
                          PutLE(b, at, bits, 2);
                        }),
                        "tensor 'q': q8 scale 1 of row 1 is not finite (f16 bits " +
                            std::to_string(bits) + ")"));
  }
}

TEST(WeightFileTypedTensor, Q4_0ScalesMustBeFinite) {
  // The scales lead GGUF's 18-byte blocks: block 3 = row 1, block 1 at 54 bytes into r's data.
  for (uint16_t bits : {0x7C00u, 0xFC00u, 0x7E00u}) {
    EXPECT_TRUE(Refused(TypedCorrupted([bits](Bytes* b) {
                          const size_t at = Get64(*b, TensorEntry(*b, 2) + kTensorDataOffset) + 54;
                          PutLE(b, at, bits, 2);
                        }),
                        "tensor 'r': q4_0 scale 1 of row 1 is not finite (f16 bits " +
                            std::to_string(bits) + ")"));
  }
  // A nibble byte with every bit pattern is a valid value: only the scales are checked.
  const Bytes nibbles = TypedCorrupted([](Bytes* b) {
    (*b)[Get64(*b, TensorEntry(*b, 2) + kTensorDataOffset) + 56] = 0xFF;
  });
  WeightFile file;
  EXPECT_TRUE(OpenCopy(nibbles, &file).ok());
}

TEST(WeightFileTypedTensor, SuperBlockSizesAndRowWidths) {
  for (uint64_t wrong : {2048u, 287u, 289u, 420u}) {  // f32's size, a byte off, q6_K's size
    EXPECT_TRUE(Refused(TypedCorrupted([wrong](Bytes* b) {
                          Put64(b, TensorEntry(*b, 3) + kByteSize, wrong);
                        }),
                        "tensor 's': byte_size " + std::to_string(wrong) +
                            " but its q4_K dims need 288 bytes"));
  }
  EXPECT_TRUE(Refused(TypedCorrupted([](Bytes* b) {
                        Put64(b, TensorEntry(*b, 4) + kByteSize, 288);
                      }),
                      "tensor 't': byte_size 288 but its q6_K dims need 420 bytes"));
  // Rows of 128 or 257 values are no whole super-blocks, whatever byte_size says.
  for (uint64_t cols : {128u, 257u, 1u}) {
    EXPECT_TRUE(Refused(TypedCorrupted([cols](Bytes* b) {
                          Put64(b, TensorEntry(*b, 3) + kDims + 8, cols);
                        }),
                        "tensor 's': q4_K stores rows of whole 256-value blocks, but its rows "
                        "have " + std::to_string(cols) + " values"));
  }
  EXPECT_TRUE(Refused(TypedCorrupted([](Bytes* b) { Put64(b, TensorEntry(*b, 4) + kDims + 8, 64); }),
                      "tensor 't': q6_K stores rows of whole 256-value blocks, but its rows have "
                      "64 values"));
  // (1, 512): the same 288 bytes as one row of two super-blocks is a valid q4_K tensor.
  const Bytes reshaped = TypedCorrupted([](Bytes* b) {
    Put64(b, TensorEntry(*b, 3) + kDims, 1);
    Put64(b, TensorEntry(*b, 3) + kDims + 8, 512);
  });
  WeightFile file;
  EXPECT_TRUE(OpenCopy(reshaped, &file).ok());
}

TEST(WeightFileTypedTensor, SuperBlockScalesMustBeFinite) {
  // s: q4_K, 144-byte blocks, d at byte 0 and dmin at 2; block 1 = row 1. t: q6_K, 210-byte
  // blocks, d at byte 208.
  for (uint16_t bits : {0x7C00u, 0xFC00u, 0x7E01u}) {
    const std::string tail = " is not finite (f16 bits " + std::to_string(bits) + ")";
    EXPECT_TRUE(Refused(TypedCorrupted([bits](Bytes* b) {
                          PutLE(b, Get64(*b, TensorEntry(*b, 3) + kTensorDataOffset) + 144, bits, 2);
                        }),
                        "tensor 's': q4_K d of block 0 of row 1" + tail));
    EXPECT_TRUE(Refused(TypedCorrupted([bits](Bytes* b) {
                          PutLE(b, Get64(*b, TensorEntry(*b, 3) + kTensorDataOffset) + 2, bits, 2);
                        }),
                        "tensor 's': q4_K dmin of block 0 of row 0" + tail));
    EXPECT_TRUE(Refused(TypedCorrupted([bits](Bytes* b) {
                          PutLE(b, Get64(*b, TensorEntry(*b, 4) + kTensorDataOffset) + 210 + 208,
                                bits, 2);
                        }),
                        "tensor 't': q6_K d of block 0 of row 1" + tail));
  }
  // Every other byte (sub-block scales and mins, nibbles, q6_K's int8 scales) is a valid value.
  const Bytes others = TypedCorrupted([](Bytes* b) {
    const size_t s = Get64(*b, TensorEntry(*b, 3) + kTensorDataOffset);
    const size_t t = Get64(*b, TensorEntry(*b, 4) + kTensorDataOffset);
    for (size_t i = 4; i < 144; ++i) (*b)[s + i] = 0xFF;
    for (size_t i = 0; i < 208; ++i) (*b)[t + i] = 0x80;
  });
  WeightFile file;
  EXPECT_TRUE(OpenCopy(others, &file).ok());
}

TEST(WeightFileTensor, Rank) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { (*b)[TensorEntry(*b, 0) + kRank] = 5; }),
                      "tensor 'a': rank 5 exceeds the maximum 4"));
  EXPECT_TRUE(
      Refused(Corrupted([](Bytes* b) { (*b)[TensorEntry(*b, 0) + kRank] = 255; }), "rank 255"));
  // Rank 1 leaves dims[1] = 3 set: a dim beyond the rank must be 0.
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { (*b)[TensorEntry(*b, 0) + kRank] = 1; }),
                      "tensor 'a': dims[1] = 3 beyond the rank must be 0"));
}

TEST(WeightFileTensor, DimsProductMismatch) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, TensorEntry(*b, 0) + kDims, 3); }),
                      "tensor 'a': byte_size 24 but its f32 dims need 36 bytes"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, TensorEntry(*b, 1) + kByteSize, 20); }),
                      "tensor 'b': byte_size 20"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, TensorEntry(*b, 1) + kDims, 0); }),
                      "tensor 'b': byte_size 16 but its f32 dims need 0 bytes"));
}

TEST(WeightFileTensor, DimsProductOverflows) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        Put64(b, TensorEntry(*b, 0) + kDims, uint64_t{1} << 40);
                        Put64(b, TensorEntry(*b, 0) + kDims + 8, uint64_t{1} << 40);
                      }),
                      "tensor 'a': dims product x 4 bytes (f32) overflows"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put64(b, TensorEntry(*b, 1) + kDims, kMax64 / 2); }),
                      "tensor 'b': dims product x 4 bytes (f32) overflows"));
}

// A dim or a byte count of 2^32 or more fits a 64-bit size_t but not a 32-bit one: there the
// reader refuses it by name; on 64-bit it is an ordinary (here inconsistent) value.
TEST(WeightFileTensor, DimsBeyondThisPlatformsSizeT) {
  const bool wide = sizeof(size_t) == 8;
  // dims (0, 2^40): zero elements, but 2^40 has no 32-bit size_t.
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        Put64(b, TensorEntry(*b, 0) + kDims, 0);
                        Put64(b, TensorEntry(*b, 0) + kDims + 8, uint64_t{1} << 40);
                      }),
                      wide ? "tensor 'a': byte_size 24 but its f32 dims need 0 bytes"
                           : "tensor 'a': dims[1] = 1099511627776 does not fit this platform's "
                             "32-bit size_t"));
  // dims (2^16, 2^16): each fits, the 2^34 bytes do not.
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        Put64(b, TensorEntry(*b, 0) + kDims, 65536);
                        Put64(b, TensorEntry(*b, 0) + kDims + 8, 65536);
                      }),
                      wide ? "tensor 'a': byte_size 24 but its f32 dims need 17179869184 bytes"
                           : "tensor 'a': its f32 dims need 17179869184 bytes, which do not fit "
                             "this platform's 32-bit size_t"));
  // A dim beyond the rank is printed in full too.
  EXPECT_TRUE(Refused(
      Corrupted([](Bytes* b) { Put64(b, TensorEntry(*b, 0) + kDims + 16, uint64_t{1} << 40); }),
      "tensor 'a': dims[2] = 1099511627776 beyond the rank must be 0"));
}

TEST(WeightFileTensor, DataOffsets) {
  // Past the end, overflowing, misaligned, before the data section, overlapping the previous one.
  EXPECT_TRUE(
      Refused(Corrupted([](Bytes* b) { Put64(b, TensorEntry(*b, 1) + kTensorDataOffset, 512); }),
              "tensor 'b': data [512, 528) lies outside the data section"));
  EXPECT_TRUE(Refused(
      Corrupted([](Bytes* b) { Put64(b, TensorEntry(*b, 1) + kTensorDataOffset, kMax64 - 3); }),
      "tensor 'b': data_offset 18446744073709551612 + byte_size 16 overflows"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        Put64(b, TensorEntry(*b, 1) + kTensorDataOffset, uint64_t{1} << 40);
                      }),
                      "tensor 'b': data [1099511627776, 1099511627792) lies outside the data "
                      "section"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        const size_t e = TensorEntry(*b, 0) + kTensorDataOffset;
                        Put64(b, e, Get64(*b, e) + 4);
                      }),
                      "tensor 'a': data_offset 388 is not a multiple of the alignment 64"));
  EXPECT_TRUE(
      Refused(Corrupted([](Bytes* b) { Put64(b, TensorEntry(*b, 0) + kTensorDataOffset, 320); }),
              "tensor 'a': data [320, 344) lies outside the data section"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        Put64(b, TensorEntry(*b, 1) + kTensorDataOffset,
                              Get64(*b, TensorEntry(*b, 0) + kTensorDataOffset));
                      }),
                      "tensor 'b': data_offset 384 is before the end (408)"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        Put64(b, kDataSize, Get64(*b, kDataSize) - 16);
                        b->resize(b->size() - 16);
                        Put64(b, kFileSize, b->size());
                      }),
                      "tensor 'b': data [448, 464) lies outside the data section"));
}

TEST(WeightFileTensor, ReservedBytes) {
  EXPECT_TRUE(
      Refused(Corrupted([](Bytes* b) { (*b)[TensorEntry(*b, 1) + kTensorReserved + 3] = 1; }),
              "tensor 'b': reserved entry byte 13 is not 0"));
}

TEST(WeightFileTensor, Names) {
  // Both entries naming "a": a duplicate (the sort check sees equal names).
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        Put32(b, TensorEntry(*b, 1) + kNameOffset, Get32(*b, TensorEntry(*b, 0)));
                      }),
                      "duplicate tensor name 'a'"));
  // Swapped names: not sorted.
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        Put32(b, TensorEntry(*b, 0) + kNameOffset, 2);
                        Put32(b, TensorEntry(*b, 1) + kNameOffset, 0);
                      }),
                      "tensor table not sorted by name: 'a' follows a greater name"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, TensorEntry(*b, 0) + kNameLength, 0); }),
                      "tensor name 0: empty string"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, TensorEntry(*b, 1) + kNameOffset, 1000); }),
                      "tensor name 1: string (offset 1000) runs past the end of the string table"));
  EXPECT_TRUE(
      Refused(Corrupted([](Bytes* b) { Put32(b, TensorEntry(*b, 1) + kNameLength, 0xFFFFFFFFu); }),
              "tensor name 1: string (offset 2) runs past"));
  // "a\0b\0...": length 2 puts 'b' where the NUL should be; length 3 has a NUL inside.
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, TensorEntry(*b, 0) + kNameLength, 2); }),
                      "tensor name 0: no NUL after its 2 bytes"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, TensorEntry(*b, 0) + kNameLength, 3); }),
                      "tensor name 0: NUL byte inside the string at position 1"));
}

// --- Metadata entries (0 "arch" string, 1 "eps" float, 2 "n_heads" int) -------------------------

TEST(WeightFileMetadata, Types) {
  for (uint8_t t : {0, 4, 255}) {
    EXPECT_TRUE(Refused(Corrupted([t](Bytes* b) { (*b)[MetadataEntry(*b, 1) + kValueType] = t; }),
                        "metadata 'eps': unknown value type " + std::to_string(t)));
  }
  // An int reinterpreted as a string: its value (2) read as offset 2, length 0 is fine only if a
  // NUL sits there; "a\0b\0": byte 2 is 'b', so it is refused.
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { (*b)[MetadataEntry(*b, 2) + kValueType] = 3; }),
                      "metadata string value 2: no NUL after its 0 bytes"));
}

TEST(WeightFileMetadata, ReservedBytes) {
  EXPECT_TRUE(
      Refused(Corrupted([](Bytes* b) { (*b)[MetadataEntry(*b, 0) + kMetadataReserved] = 1; }),
              "metadata 'arch': reserved entry byte 9 is not 0"));
}

TEST(WeightFileMetadata, Keys) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        Put32(b, MetadataEntry(*b, 1) + kKeyOffset,
                              Get32(*b, MetadataEntry(*b, 0)));
                        Put32(b, MetadataEntry(*b, 1) + kKeyLength, 4);
                      }),
                      "duplicate metadata key 'arch'"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) {
                        Put32(b, MetadataEntry(*b, 0) + kKeyOffset,
                              Get32(*b, MetadataEntry(*b, 2)));
                        Put32(b, MetadataEntry(*b, 0) + kKeyLength, 7);
                      }),
                      "metadata table not sorted by key: 'eps' follows a greater key"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, MetadataEntry(*b, 2) + kKeyLength, 0); }),
                      "metadata key 2: empty string"));
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, MetadataEntry(*b, 2) + kKeyOffset, 26); }),
                      "metadata key 2: string (offset 26) runs past"));
}

TEST(WeightFileMetadata, StringValueRefs) {
  EXPECT_TRUE(Refused(Corrupted([](Bytes* b) { Put32(b, MetadataEntry(*b, 0) + kValue + 4, 100); }),
                      "metadata string value 0: string (offset 9) runs past"));
  EXPECT_TRUE(
      Refused(Corrupted([](Bytes* b) { Put32(b, MetadataEntry(*b, 0) + kValue, 0xFFFFFFF0u); }),
              "metadata string value 0: string (offset 4294967280) runs past"));
}

}  // namespace
}  // namespace weight_file_test
}  // namespace attnrt
