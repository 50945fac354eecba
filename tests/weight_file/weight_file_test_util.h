// Shared helpers for the weight-file tests: field offsets as FORMAT.md states them (literals on
// purpose, so a drift between the document and the code fails a test), byte patching, and
// expectations about refusals.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnrt/runtime/weight_file.h"

namespace attnrt {
namespace weight_file_test {

using Bytes = std::vector<uint8_t>;

// Header fields (FORMAT.md, "Header").
enum HeaderField : size_t {
  kMagic = 0,
  kVersion = 8,
  kHeaderSize = 12,
  kFileSize = 16,
  kFlags = 24,
  kAlignment = 28,
  kTensorCount = 32,
  kMetadataCount = 36,
  kTensorTableOffset = 40,
  kTensorTableSize = 48,
  kMetadataTableOffset = 56,
  kMetadataTableSize = 64,
  kStringTableOffset = 72,
  kStringTableSize = 80,
  kDataOffset = 88,
  kDataSize = 96,
  kChecksum = 104,
  kReserved = 108,
  kHeaderBytes = 128,
};

// Tensor table entry fields (64 bytes each).
enum TensorField : size_t {
  kNameOffset = 0,
  kNameLength = 4,
  kDType = 8,
  kRank = 9,
  kTensorReserved = 10,
  kDims = 16,
  kTensorDataOffset = 48,
  kByteSize = 56,
  kTensorEntryBytes = 64,
};

// Metadata table entry fields (24 bytes each).
enum MetadataField : size_t {
  kKeyOffset = 0,
  kKeyLength = 4,
  kValueType = 8,
  kMetadataReserved = 9,
  kValue = 16,
  kMetadataEntryBytes = 24,
};

inline uint64_t GetLE(const Bytes& b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(b.at(at + i)) << (8 * i);
  return v;
}
inline void PutLE(Bytes* b, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b->at(at + i) = static_cast<uint8_t>(v >> (8 * i));
}
inline uint64_t Get64(const Bytes& b, size_t at) { return GetLE(b, at, 8); }
inline uint32_t Get32(const Bytes& b, size_t at) { return static_cast<uint32_t>(GetLE(b, at, 4)); }
inline void Put64(Bytes* b, size_t at, uint64_t v) { PutLE(b, at, v, 8); }
inline void Put32(Bytes* b, size_t at, uint32_t v) { PutLE(b, at, v, 4); }

// Absolute offsets of entry i's fields.
inline size_t TensorEntry(const Bytes& b, size_t i) {
  return static_cast<size_t>(Get64(b, kTensorTableOffset)) + i * kTensorEntryBytes;
}
inline size_t MetadataEntry(const Bytes& b, size_t i) {
  return static_cast<size_t>(Get64(b, kMetadataTableOffset)) + i * kMetadataEntryBytes;
}

// Makes the checksum right again after a deliberate edit, so structural checks fire on their own.
inline void FixChecksum(Bytes* b) { Put32(b, kChecksum, WeightFileChecksum(b->data(), b->size())); }

// Opens a private, exactly sized copy (so ASan sees any read past the end).
inline Status OpenCopy(const Bytes& bytes, WeightFile* out) {
  Bytes copy(bytes);
  return WeightFile::Open(copy.empty() ? nullptr : copy.data(), copy.size(), out);
}

// The file must be refused with kBadFile, a message containing `needle`, and an empty *out.
inline ::testing::AssertionResult Refused(const Bytes& bytes, const std::string& needle) {
  WeightFile file;
  const Status st = OpenCopy(bytes, &file);
  if (st.ok()) return ::testing::AssertionFailure() << "accepted";
  if (st.code() != StatusCode::kBadFile) {
    return ::testing::AssertionFailure()
           << "code " << StatusCodeName(st.code()) << ": " << st.message();
  }
  if (std::string(st.message()).find(needle) == std::string::npos) {
    return ::testing::AssertionFailure()
           << "message '" << st.message() << "' lacks '" << needle << "'";
  }
  if (file.tensor_count() != 0 || file.metadata_count() != 0) {
    return ::testing::AssertionFailure() << "failed Open left a non-empty file";
  }
  return ::testing::AssertionSuccess();
}

// A small valid file: tensors "a" (2, 3) and "b" (4); metadata arch, eps, n_heads.
Bytes SmallFile();

// Values seed + 0.25 * k, as tests/weight_file/weight_files.py makes them.
std::vector<float> SampleValues(float seed, size_t count);

}  // namespace weight_file_test
}  // namespace attnrt
