// WeightFile: validating, zero-copy reader of the flat weight file (format in runtime/FORMAT.md).
//
// Open() checks every byte it will ever hand out (header, section bounds, tables, strings,
// alignment, checksum) against the caller's buffer, then keeps only a pointer to it: tensor data
// and names point straight into that buffer (an mmap on a host, a const array in flash on
// firmware), so the buffer must outlive the WeightFile. No heap, no exceptions; every problem with
// the bytes is a StatusCode::kBadFile status naming the field and the numbers involved (a null
// buffer is kInvalidArgument, a big-endian host kUnsupported).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/weight_codecs.h"
#include "attnrt/runtime/status.h"
#include "attnrt/runtime/crc32c.h"
#include "attnrt/runtime/tensor_shape.h"

namespace attnrt {

// Byte layout of version 1; FORMAT.md is the normative description, these mirror it.
// The reader (runtime) and the writer (tools/convert) both address fields through
// these names, so the two cannot drift apart.
struct WeightFileLayout {
  static constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'R', 'T', 'W', 'F'};
  // Version 2 added the f16, bf16 and q8 tensor types; a file with only f32 tensors is
  // written as version 1, so older readers keep reading it.
  static constexpr uint32_t kVersion = 2;
  static constexpr uint32_t kFirstTypedVersion = 2;
  static constexpr size_t kHeaderSize = 128;
  // Header fields (byte offsets; u32 unless noted).
  static constexpr size_t kVersionAt = 8;
  static constexpr size_t kHeaderSizeAt = 12;
  static constexpr size_t kFileSizeAt = 16;  // u64
  static constexpr size_t kFlagsAt = 24;
  static constexpr size_t kAlignmentAt = 28;
  static constexpr size_t kTensorCountAt = 32;
  static constexpr size_t kMetadataCountAt = 36;
  // Sections: u64 offset, then u64 size.
  static constexpr size_t kTensorTableAt = 40;
  static constexpr size_t kMetadataTableAt = 56;
  static constexpr size_t kStringTableAt = 72;
  static constexpr size_t kDataSectionAt = 88;
  static constexpr size_t kChecksumOffset = 104;  // u32 CRC32C, read as zero while summing
  static constexpr size_t kReservedAt = 108;      // zeros up to kHeaderSize
  // Tensor table entry: name (u32 string offset, u32 length), dtype u8, rank u8,
  // reserved zeros, dims u64[kMaxRank], data offset u64, byte size u64.
  static constexpr size_t kTensorEntrySize = 64;
  static constexpr size_t kEntryNameOffsetAt = 0;
  static constexpr size_t kEntryNameLengthAt = 4;
  static constexpr size_t kEntryTypeAt = 8;
  static constexpr size_t kTensorRankAt = 9;
  static constexpr size_t kTensorReservedAt = 10;
  static constexpr size_t kTensorDimsAt = 16;
  static constexpr size_t kTensorDataOffsetAt = 48;
  static constexpr size_t kTensorByteSizeAt = 56;
  // Metadata table entry: key (u32 offset, u32 length), value type u8, reserved
  // zeros, value u64 (a string value: u32 offset, then u32 length).
  static constexpr size_t kMetadataEntrySize = 24;
  static constexpr size_t kMetadataReservedAt = 9;
  static constexpr size_t kMetadataValueAt = 16;
  static constexpr size_t kTableAlignment = 8;  // tensor and metadata tables start on it
  static constexpr size_t kMinDataAlignment = 64;
  static constexpr size_t kMaxDataAlignment = 65536;
};

// The tensor table's dtype codes are the kernels' WeightType codes (weight_types.inc;
// weight_type.h gives each type's layout). Types other than f32 need format version 2.

// Value type codes of the metadata table.
enum class WeightMetadataType : uint8_t { kInt = 1, kFloat = 2, kString = 3 };

struct WeightTensor {
  const char* name = nullptr;  // NUL-terminated inside the file; name_len excludes the NUL
  size_t name_len = 0;
  WeightType dtype = WeightType::kF32;
  TensorShape shape;
  // The tensor's bytes inside the caller's buffer, `bytes` long and aligned to the file's
  // alignment (>= 64). A block type's tensor (q8) is the TensorMatrixRows x TensorMatrixCols
  // matrix below, laid out as weight_type.h says.
  const void* raw = nullptr;
  // The same bytes as floats when dtype is f32; nullptr for every other type.
  const float* data = nullptr;
  size_t bytes = 0;
};

// The rows x cols matrix view of a tensor that typed storage uses (q8 blocks run along a
// row): a rank-2+ tensor is dims[0] rows of everything else (torch.nn.Linear's (out, in),
// and a conv weight (out, C, kh, kw) as the (out, C*kh*kw) matrix the patch embedding
// multiplies by); a rank-0 or rank-1 tensor is one row. Products cannot overflow for a
// tensor WeightFile handed out (Open checked them).
inline size_t TensorMatrixRows(const TensorShape& s) { return s.rank >= 2 ? s.dims[0] : 1; }
inline size_t TensorMatrixCols(const TensorShape& s) {
  size_t cols = 1;
  for (size_t d = s.rank >= 2 ? 1 : 0; d < s.rank; ++d) cols *= s.dims[d];
  return cols;
}

// One metadata record; only the field matching `type` is meaningful.
struct WeightMetadata {
  const char* key = nullptr;  // NUL-terminated; key_len excludes the NUL
  size_t key_len = 0;
  WeightMetadataType type = WeightMetadataType::kInt;
  int64_t int_value = 0;
  double float_value = 0.0;
  const char* string_value = nullptr;  // NUL-terminated; string_len excludes the NUL
  size_t string_len = 0;
};

class WeightFile {
 public:
  // Validates the whole file before returning ok; on failure *out is left empty.
  // `data` must stay valid and unchanged while *out is used.
  static Status Open(const void* data, size_t size, WeightFile* out);

  size_t tensor_count() const { return tensor_count_; }
  // Tensors come in the file's order, which is sorted by name (bytewise).
  Status TensorAt(size_t i, WeightTensor* out) const;
  // Binary search by name; a missing name is kBadFile "missing tensor 'x'".
  Status FindTensor(const char* name, WeightTensor* out) const;

  size_t metadata_count() const { return metadata_count_; }
  // Records come sorted by key (bytewise); for `attnrt inspect`.
  Status MetadataAt(size_t i, WeightMetadata* out) const;
  // Typed lookups; a missing key or a record of another type is kBadFile naming the key.
  Status GetInt(const char* key, int64_t* out) const;
  Status GetFloat(const char* key, double* out) const;
  Status GetString(const char* key, const char** out, size_t* len) const;

  uint32_t format_version() const { return version_; }
  size_t alignment() const { return alignment_; }
  size_t file_size() const { return size_; }
  uint32_t checksum() const { return checksum_; }

 private:
  // The steps of Open(), in order; each fills in the fields the next one needs.
  Status CheckHeader(const uint8_t* p, size_t size);
  Status LocateSections();
  Status CheckTensors() const;
  Status CheckMetadata() const;

  Status DecodeTensor(size_t i, WeightTensor* out) const;
  Status DecodeMetadata(size_t i, WeightMetadata* out) const;
  Status FindMetadata(const char* key, WeightMetadata* out) const;
  Status CheckString(const char* what, size_t index, uint64_t offset, uint64_t length,
                     bool allow_empty, const char** out) const;
  Status CheckEntryName(const uint8_t* e, const char* what, size_t i, size_t* len,
                        const char** name) const;

  const uint8_t* base_ = nullptr;
  size_t size_ = 0;
  uint32_t version_ = 0;
  uint32_t checksum_ = 0;
  size_t alignment_ = 0;
  size_t tensor_count_ = 0;
  size_t metadata_count_ = 0;
  size_t tensor_table_ = 0;  // offsets from the start of the file
  size_t metadata_table_ = 0;
  size_t strings_ = 0;
  size_t strings_size_ = 0;
  size_t data_ = 0;
  size_t data_size_ = 0;
};

// The weight-file checksum: CRC32C of the whole file with the 4 checksum bytes read as zero.
// `size` must be at least WeightFileLayout::kHeaderSize.
uint32_t WeightFileChecksum(const void* data, size_t size);

}  // namespace attnrt
