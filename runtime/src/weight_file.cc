// Flat weight file reader: header and section checks, per-entry decoding, lookups, the
// checksum (CRC32C from crc32c.h).
//
// Every multi-byte field is decoded byte by byte as little-endian, so the tables need no alignment
// and a hostile file cannot cause an unaligned load. Tables are sorted by name, which lets Open()
// find duplicates in one pass and lookups binary-search, both without any heap.
#include "attnrt/runtime/weight_file.h"

#include <cstring>

#include "attnrt/kernels/weight_codecs.h"  // SuperBlockF16Fields
#include "attnrt/runtime/checked_math.h"


namespace attnrt {

namespace {

using Layout = WeightFileLayout;

constexpr bool kHostLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
constexpr uint32_t kFirstVersion = 1;

uint32_t LoadU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

uint64_t LoadU64(const uint8_t* p) {
  return static_cast<uint64_t>(LoadU32(p)) | static_cast<uint64_t>(LoadU32(p + 4)) << 32;
}

// Every validation failure is a kBadFile status; numbers print in full as u64.
template <typename... Args>
Status BadFile(const char* format, Args... args) {
  return Status::Error(StatusCode::kBadFile, format, args...);
}

// Bytes [begin, end) of entry `e` are reserved and must be 0; `kind` and `name` say whose.
Status CheckReservedBytes(const uint8_t* e, size_t begin, size_t end, const char* kind,
                          const char* name) {
  for (size_t b = begin; b < end; ++b) {
    if (e[b] != 0) {
      return BadFile("weight file: %s '%s': reserved entry byte %z is not 0", kind, name, b);
    }
  }
  return Status::Ok();
}

// TensorAt and MetadataAt take an index below the count of `unit`.
Status CheckIndex(size_t i, size_t count, const char* what, const char* unit) {
  if (i < count) return Status::Ok();
  return Status::Error(StatusCode::kInvalidArgument,
                       "weight file: %s index %z out of range (%z %s)", what, i, count, unit);
}

bool IsPowerOfTwo(size_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Bytewise order of (a, a_len) against (b, b_len): negative, zero or positive.
int CompareBytes(const char* a, size_t a_len, const char* b, size_t b_len) {
  const size_t common = a_len < b_len ? a_len : b_len;
  const int c = std::memcmp(a, b, common);
  if (c != 0) return c;
  return a_len < b_len ? -1 : (a_len > b_len ? 1 : 0);
}

// One of the four sections the header points at, validated against the file.
struct Section {
  const char* name;  // the header field prefix, e.g. "tensor_table"
  size_t begin;
  size_t end;
};

Status ReadSection(const uint8_t* header, size_t field_at, const char* name, size_t file_size,
                   Section* out) {
  // In 64 bits, so a field past what a 32-bit size_t holds is reported as it is: past the end.
  const uint64_t offset = LoadU64(header + field_at);
  const uint64_t size = LoadU64(header + field_at + 8);
  uint64_t end;
  if (!CheckedAddU64(offset, size, &end)) {
    return BadFile("weight file: header %s_offset %z + size %z overflows", name, offset, size);
  }
  if (end > file_size) {
    return BadFile("weight file: %s section ends at byte %z, past the end of the file (%z bytes)",
                   name, end, file_size);
  }
  if (offset < Layout::kHeaderSize) {
    return BadFile("weight file: %s section starts at byte %z, inside the %z-byte header", name,
                   offset, Layout::kHeaderSize);
  }
  // offset <= end <= file_size: both fit size_t.
  *out = Section{name, static_cast<size_t>(offset), static_cast<size_t>(end)};
  return Status::Ok();
}

// A table section must hold exactly `count` fixed-size entries and start 8-byte aligned.
// `mismatch_format` names the count and size fields: "... %z ... %z" (count, size).
Status CheckTableSize(const Section& s, size_t count, size_t entry_size,
                      const char* mismatch_format) {
  size_t expected;
  if (!CheckedMul(count, entry_size, &expected) || expected != s.end - s.begin) {
    return BadFile(mismatch_format, count, s.end - s.begin);
  }
  if (s.begin % Layout::kTableAlignment != 0) {
    return BadFile("weight file: header %s_offset %z is not a multiple of %z", s.name, s.begin,
                   Layout::kTableAlignment);
  }
  return Status::Ok();
}

Status CheckNoOverlap(const Section& a, const Section& b) {
  const bool empty = a.begin == a.end || b.begin == b.end;
  if (empty || a.end <= b.begin || b.end <= a.begin) return Status::Ok();
  // "x and y": the message formatter takes one string, so the two names are joined here.
  char names[64] = {0};
  size_t n = 0;
  const char* parts[] = {a.name, " and ", b.name};
  for (const char* part : parts) {
    for (; *part != '\0' && n + 1 < sizeof names; ++part) names[n++] = *part;
  }
  return BadFile("weight file: sections %s overlap at byte %z", names,
                 a.begin > b.begin ? a.begin : b.begin);
}

// The name an entry is sorted by.
int CompareName(const WeightTensor& t, const char* name, size_t len) {
  return CompareBytes(t.name, t.name_len, name, len);
}
int CompareName(const WeightMetadata& m, const char* name, size_t len) {
  return CompareBytes(m.key, m.key_len, name, len);
}

// Binary search of a table sorted bytewise by name (FindTensor, FindMetadata): `decode(i, &e)`
// decodes entry i of `count`. A null name is kInvalidArgument `null_message`; a missing one is
// kBadFile `missing_format` with the name.
template <typename Entry, typename Decode>
Status FindByName(const char* name, const char* null_message, const char* missing_format,
                  size_t count, const Decode& decode, Entry* out) {
  if (name == nullptr) return Status::Error(StatusCode::kInvalidArgument, null_message);
  const size_t name_len = std::strlen(name);
  size_t lo = 0, hi = count;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    Entry e;
    ATTNRT_RETURN_IF_ERROR(decode(mid, &e));
    const int order = CompareName(e, name, name_len);
    if (order == 0) {
      *out = e;
      return Status::Ok();
    }
    if (order < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return BadFile(missing_format, name);
}

}  // namespace

uint32_t WeightFileChecksum(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  const uint8_t zeros[4] = {0, 0, 0, 0};
  constexpr size_t kAfter = Layout::kChecksumOffset + sizeof zeros;
  uint32_t crc = Crc32c(0, p, Layout::kChecksumOffset);
  crc = Crc32c(crc, zeros, sizeof zeros);
  return Crc32c(crc, p + kAfter, size - kAfter);
}

// Checks the header fields that do not point anywhere, the buffer address and the checksum.
Status WeightFile::CheckHeader(const uint8_t* p, size_t size) {
  if (std::memcmp(p, Layout::kMagic, sizeof Layout::kMagic) != 0) {
    return BadFile("weight file: bad magic (first 8 bytes are not \"ATTNRTWF\")");
  }
  const uint32_t version = LoadU32(p + Layout::kVersionAt);
  if (version < kFirstVersion || version > Layout::kVersion) {
    return BadFile("weight file: header version %z not supported (this reader reads versions %z to "
                   "%z)", version, kFirstVersion, Layout::kVersion);
  }
  const uint32_t header_size = LoadU32(p + Layout::kHeaderSizeAt);
  if (header_size != Layout::kHeaderSize) {
    return BadFile("weight file: header header_size %z, version %z needs %z", header_size, version,
                   Layout::kHeaderSize);
  }
  const uint64_t file_size = LoadU64(p + Layout::kFileSizeAt);
  if (file_size < size) {
    return BadFile("weight file: header file_size %z but the buffer holds %z bytes (bytes appended "
                   "after the end of the file?)",
                   file_size, size);
  }
  if (file_size > size) {
    return BadFile("weight file: header file_size %z but the buffer holds only %z bytes (truncated?)",
                   file_size, size);
  }
  // Tensor data is handed out as const float*; every data offset is a multiple of >= 64.
  const size_t misalignment = reinterpret_cast<uintptr_t>(p) % alignof(float);
  if (misalignment != 0) {
    return BadFile(
        "weight file: buffer address is %z bytes past a 4-byte boundary; map the "
        "file or align the array",
        misalignment);
  }
  const uint32_t stored = LoadU32(p + Layout::kChecksumOffset);
  const uint32_t computed = WeightFileChecksum(p, size);
  if (stored != computed) {
    return BadFile(
        "weight file: header checksum %z does not match the CRC32C %z of the "
        "contents (file damaged)",
        stored, computed);
  }
  const uint32_t flags = LoadU32(p + Layout::kFlagsAt);
  if (flags != 0) {
    return BadFile("weight file: header flags %z has bits version %z does not define", flags,
                   version);
  }
  for (size_t i = Layout::kReservedAt; i < Layout::kHeaderSize; ++i) {
    if (p[i] != 0) return BadFile("weight file: header reserved byte %z is %z, must be 0", i, p[i]);
  }
  const uint32_t alignment = LoadU32(p + Layout::kAlignmentAt);
  if (!IsPowerOfTwo(alignment) || alignment < Layout::kMinDataAlignment ||
      alignment > Layout::kMaxDataAlignment) {
    return BadFile("weight file: header alignment %z must be a power of two in [%z, %z]", alignment,
                   Layout::kMinDataAlignment, Layout::kMaxDataAlignment);
  }
  base_ = p;
  size_ = size;
  version_ = version;
  checksum_ = stored;
  alignment_ = alignment;
  return Status::Ok();
}

// Bounds, sizes, alignment and overlaps of the four sections; needs CheckHeader() first.
Status WeightFile::LocateSections() {
  Section tensors, metadata, strings, tensor_data;
  ATTNRT_RETURN_IF_ERROR(ReadSection(base_, Layout::kTensorTableAt, "tensor_table", size_, &tensors));
  ATTNRT_RETURN_IF_ERROR(ReadSection(base_, Layout::kMetadataTableAt, "metadata_table", size_, &metadata));
  ATTNRT_RETURN_IF_ERROR(ReadSection(base_, Layout::kStringTableAt, "string_table", size_, &strings));
  ATTNRT_RETURN_IF_ERROR(ReadSection(base_, Layout::kDataSectionAt, "data", size_, &tensor_data));
  const size_t tensor_count = LoadU32(base_ + Layout::kTensorCountAt);
  const size_t metadata_count = LoadU32(base_ + Layout::kMetadataCountAt);
  ATTNRT_RETURN_IF_ERROR(CheckTableSize(
      tensors, tensor_count, Layout::kTensorEntrySize,
      "weight file: header tensor_count %z needs tensor_table_size = count x 64, header says %z"));
  ATTNRT_RETURN_IF_ERROR(CheckTableSize(metadata, metadata_count, Layout::kMetadataEntrySize,
                                        "weight file: header metadata_count %z needs "
                                        "metadata_table_size = count x 24, header says %z"));
  if (tensor_data.begin % alignment_ != 0) {
    return BadFile("weight file: header data_offset %z is not a multiple of the alignment %z",
                   tensor_data.begin, alignment_);
  }
  const Section* sections[] = {&tensors, &metadata, &strings, &tensor_data};
  for (size_t i = 0; i < 4; ++i) {
    for (size_t j = i + 1; j < 4; ++j) {
      ATTNRT_RETURN_IF_ERROR(CheckNoOverlap(*sections[i], *sections[j]));
    }
  }
  tensor_count_ = tensor_count;
  metadata_count_ = metadata_count;
  tensor_table_ = tensors.begin;
  metadata_table_ = metadata.begin;
  strings_ = strings.begin;
  strings_size_ = strings.end - strings.begin;
  data_ = tensor_data.begin;
  data_size_ = tensor_data.end - tensor_data.begin;
  return Status::Ok();
}

// A block scale that is not finite would turn a whole block into NaN or inf in every
// kernel; the converter never writes one, so one here means damage. Scales are f16 bits,
// read byte by byte like every other field: where the type's layout (weight_type.h) puts
// them, `stride` bytes apart.
Status CheckF16Scales(const WeightTensor& t, const WeightTypeInfo& info) {
  const size_t cols = TensorMatrixCols(t.shape);
  const size_t rows = TensorMatrixRows(t.shape);
  const bool plane = info.scales == WeightScales::kF16Plane;
  const uint8_t* scales = static_cast<const uint8_t*>(t.raw) +
                          (plane ? ScalePlaneOffset(info, rows, cols) : 0);
  const size_t stride = plane ? 2 : 2 + info.block * info.bits / 8;
  const size_t blocks = WeightBlocksPerRow(info, cols);
  const size_t count = rows * blocks;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* s = scales + stride * i;
    const uint16_t bits = static_cast<uint16_t>(s[0] | s[1] << 8);
    if ((bits & 0x7C00u) == 0x7C00u) {
      return BadFile("weight file: tensor '%s': %s scale %z of row %z is not finite (f16 bits %z)",
                     t.name, info.name, i % blocks, i / blocks, bits);
    }
  }
  return Status::Ok();
}

// The k-quant super-blocks (kSuperBlock): every f16 field that scales a block's values
// (q4_K's d and dmin, q6_K's d; weight_codecs.h) must be finite, as q8's and q4_0's scales.
Status CheckSuperBlockScales(const WeightTensor& t, const WeightTypeInfo& info) {
  const BlockF16Field* fields = nullptr;
  const size_t field_count = SuperBlockF16Fields(info.type, &fields);
  const size_t blocks = WeightBlocksPerRow(info, TensorMatrixCols(t.shape));
  const size_t count = TensorMatrixRows(t.shape) * blocks;
  const uint8_t* data = static_cast<const uint8_t*>(t.raw);
  for (size_t i = 0; i < count; ++i) {
    for (size_t f = 0; f < field_count; ++f) {
      const uint8_t* s = data + info.bytes * i + fields[f].at;
      const uint16_t bits = static_cast<uint16_t>(s[0] | s[1] << 8);
      if ((bits & 0x7C00u) == 0x7C00u) {
        return BadFile(
            "weight file: tensor '%s': %s %s of block %z of row %z is not finite (f16 bits %z)",
            t.name, info.name, fields[f].name, i % blocks, i / blocks, bits);
      }
    }
  }
  return Status::Ok();
}

// Every entry on its own, then across entries: names strictly increasing, data in table order.
Status WeightFile::CheckTensors() const {
  WeightTensor previous;
  size_t previous_end = 0;
  for (size_t i = 0; i < tensor_count_; ++i) {
    WeightTensor t;
    ATTNRT_RETURN_IF_ERROR(DecodeTensor(i, &t));
    const size_t offset = static_cast<size_t>(static_cast<const uint8_t*>(t.raw) - base_);
    const WeightTypeInfo& info = *FindWeightType(t.dtype);  // DecodeTensor checked the code
    if (info.scales == WeightScales::kSuperBlock) {
      ATTNRT_RETURN_IF_ERROR(CheckSuperBlockScales(t, info));
    } else if (info.scales != WeightScales::kNone) {
      ATTNRT_RETURN_IF_ERROR(CheckF16Scales(t, info));
    }
    if (i > 0) {
      const int order = CompareBytes(previous.name, previous.name_len, t.name, t.name_len);
      if (order == 0) return BadFile("weight file: duplicate tensor name '%s'", t.name);
      if (order > 0) {
        return BadFile("weight file: tensor table not sorted by name: '%s' follows a greater name",
                       t.name);
      }
      if (offset < previous_end) {
        return BadFile(
            "weight file: tensor '%s': data_offset %z is before the end (%z) of the "
            "previous tensor's data",
            t.name, offset, previous_end);
      }
    }
    previous = t;
    previous_end = offset + t.bytes;
  }
  return Status::Ok();
}

// Every record on its own, then keys strictly increasing.
Status WeightFile::CheckMetadata() const {
  WeightMetadata previous;
  for (size_t i = 0; i < metadata_count_; ++i) {
    WeightMetadata m;
    ATTNRT_RETURN_IF_ERROR(DecodeMetadata(i, &m));
    if (i > 0) {
      const int order = CompareBytes(previous.key, previous.key_len, m.key, m.key_len);
      if (order == 0) return BadFile("weight file: duplicate metadata key '%s'", m.key);
      if (order > 0) {
        return BadFile("weight file: metadata table not sorted by key: '%s' follows a greater key",
                       m.key);
      }
    }
    previous = m;
  }
  return Status::Ok();
}

Status WeightFile::Open(const void* data, size_t size, WeightFile* out) {
  *out = WeightFile();
  if (!kHostLittleEndian) {
    return Status::Error(StatusCode::kUnsupported,
                         "weight file: reader needs a little-endian host");
  }
  if (size == 0) return BadFile("weight file: empty (0 bytes)");
  if (data == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "weight file: null buffer of %z bytes",
                         size);
  }
  if (size < Layout::kHeaderSize) {
    return BadFile("weight file: %z bytes is shorter than the %z-byte header", size,
                   Layout::kHeaderSize);
  }
  WeightFile file;
  ATTNRT_RETURN_IF_ERROR(file.CheckHeader(static_cast<const uint8_t*>(data), size));
  ATTNRT_RETURN_IF_ERROR(file.LocateSections());
  ATTNRT_RETURN_IF_ERROR(file.CheckTensors());
  ATTNRT_RETURN_IF_ERROR(file.CheckMetadata());
  *out = file;
  return Status::Ok();
}

// A string-table reference: `length` bytes at `offset`, then a NUL, no NUL inside.
Status WeightFile::CheckString(const char* what, size_t index, uint64_t offset, uint64_t length,
                               bool allow_empty, const char** out) const {
  uint64_t end;
  if (!CheckedAddU64(offset, length, &end) || end >= strings_size_) {
    return BadFile("weight file: %s %z: string (offset %z) runs past the end of the string table",
                   what, index, offset);
  }
  // offset + length < strings_size_: both fit size_t.
  const size_t begin = static_cast<size_t>(offset);
  const size_t len = static_cast<size_t>(length);
  if (len == 0 && !allow_empty) return BadFile("weight file: %s %z: empty string", what, index);
  const char* s = reinterpret_cast<const char*>(base_ + strings_ + begin);
  if (s[len] != '\0') {
    return BadFile("weight file: %s %z: no NUL after its %z bytes in the string table", what, index,
                   len);
  }
  const void* nul = std::memchr(s, '\0', len);
  if (nul != nullptr) {
    return BadFile("weight file: %s %z: NUL byte inside the string at position %z", what, index,
                   static_cast<size_t>(static_cast<const char*>(nul) - s));
  }
  *out = s;
  return Status::Ok();
}

// Entry `e` (number i) names itself by a length and a string-table offset; `what` says which name.
Status WeightFile::CheckEntryName(const uint8_t* e, const char* what, size_t i, size_t* len,
                                  const char** name) const {
  *len = LoadU32(e + Layout::kEntryNameLengthAt);
  return CheckString(what, i, LoadU32(e + Layout::kEntryNameOffsetAt), *len, false, name);
}

// Decodes and checks tensor entry i on its own; Open() adds the checks across entries.
Status WeightFile::DecodeTensor(size_t i, WeightTensor* out) const {
  const uint8_t* e = base_ + tensor_table_ + i * Layout::kTensorEntrySize;
  WeightTensor t;
  ATTNRT_RETURN_IF_ERROR(CheckEntryName(e, "tensor name", i, &t.name_len, &t.name));
  const uint8_t dtype = e[Layout::kEntryTypeAt];
  if (!IsKnownWeightType(dtype)) {
    return BadFile("weight file: tensor '%s': unknown dtype %z (known: %s)", t.name, dtype,
                   kWeightTypeCodes);
  }
  t.dtype = static_cast<WeightType>(dtype);
  if (t.dtype != WeightType::kF32 && version_ < Layout::kFirstTypedVersion) {
    return BadFile("weight file: tensor '%s': dtype %s needs format version %z, the header says %z",
                   t.name, WeightTypeName(t.dtype), Layout::kFirstTypedVersion, version_);
  }
  const size_t rank = e[Layout::kTensorRankAt];
  if (rank > TensorShape::kMaxRank) {
    return BadFile("weight file: tensor '%s': rank %z exceeds the maximum %z", t.name, rank,
                   TensorShape::kMaxRank);
  }
  ATTNRT_RETURN_IF_ERROR(
      CheckReservedBytes(e, Layout::kTensorReservedAt, Layout::kTensorDimsAt, "tensor", t.name));
  t.shape.rank = rank;
  // Dims, their product and the data range are checked in 64 bits (the file's width), then
  // narrowed: on a 32-bit target a dim or byte count of 2^32 or more is refused by name.
  uint64_t dims[TensorShape::kMaxRank];
  uint64_t elements = 1;
  bool overflow = false;
  for (size_t d = 0; d < TensorShape::kMaxRank; ++d) {
    dims[d] = LoadU64(e + Layout::kTensorDimsAt + 8 * d);
    if (d >= rank && dims[d] != 0) {
      return BadFile("weight file: tensor '%s': dims[%z] = %z beyond the rank must be 0", t.name, d,
                     dims[d]);
    }
    if (d < rank && !overflow) overflow = !CheckedMulU64(elements, dims[d], &elements);
  }
  // The matrix view of TensorMatrixRows/Cols (only q8's block layout depends on it). cols is
  // checked on its own too: with dims[0] = 0 the element count is 0 however large the rest.
  const uint64_t rows = rank >= 2 ? dims[0] : 1;
  uint64_t cols = 1;
  for (size_t d = rank >= 2 ? 1 : 0; d < rank && !overflow; ++d) {
    overflow = !CheckedMulU64(cols, dims[d], &cols);
  }
  uint64_t expected_bytes = 0;
  const WeightTypeInfo& info = *FindWeightType(t.dtype);
  if (overflow || !MatrixBytes<uint64_t>(info, rows, cols, &expected_bytes)) {
    if (info.bits % 8 != 0) {
      return BadFile("weight file: tensor '%s': dims product x %z bits (%s) overflows", t.name,
                     info.bits, info.name);
    }
    return BadFile("weight file: tensor '%s': dims product x %z bytes (%s) overflows", t.name,
                   info.bits / 8, info.name);
  }
  if (info.scales == WeightScales::kSuperBlock && cols % info.block != 0) {  // 64-bit cols
    return BadFile("weight file: tensor '%s': %s stores rows of whole %z-value blocks, but its "
                   "rows have %z values",
                   t.name, info.name, info.block, cols);
  }
  for (size_t d = 0; d < rank; ++d) {
    if (!SizeFromU64(dims[d], &t.shape.dims[d])) {
      return BadFile("weight file: tensor '%s': dims[%z] = %z does not fit this platform's %z-bit "
                     "size_t", t.name, d, dims[d], kSizeBits);
    }
  }
  size_t data_bytes, cols_size;
  if (!SizeFromU64(cols, &cols_size)) {  // each dim fits; their product may not (dims[0] = 0)
    return BadFile("weight file: tensor '%s': dims after the first multiply to %z, which does "
                   "not fit this platform's %z-bit size_t", t.name, cols, kSizeBits);
  }
  if (!SizeFromU64(expected_bytes, &data_bytes)) {
    return BadFile("weight file: tensor '%s': its %s dims need %z bytes, which do not fit this "
                   "platform's %z-bit size_t", t.name, WeightTypeName(t.dtype), expected_bytes,
                   kSizeBits);
  }
  const uint64_t offset = LoadU64(e + Layout::kTensorDataOffsetAt);
  const uint64_t bytes = LoadU64(e + Layout::kTensorByteSizeAt);
  if (bytes != expected_bytes) {
    return BadFile("weight file: tensor '%s': byte_size %z but its %s dims need %z bytes", t.name,
                   bytes, WeightTypeName(t.dtype), expected_bytes);
  }
  uint64_t end;
  if (!CheckedAddU64(offset, expected_bytes, &end)) {
    return BadFile("weight file: tensor '%s': data_offset %z + byte_size %z overflows", t.name,
                   offset, expected_bytes);
  }
  if (offset < data_ || end > data_ + data_size_) {
    return BadFile("weight file: tensor '%s': data [%z, %z) lies outside the data section", t.name,
                   offset, end);
  }
  const size_t begin = static_cast<size_t>(offset);  // inside the data section, so it fits
  if (begin % alignment_ != 0) {
    return BadFile("weight file: tensor '%s': data_offset %z is not a multiple of the alignment %z",
                   t.name, begin, alignment_);
  }
  t.raw = base_ + begin;
  if (t.dtype == WeightType::kF32) t.data = reinterpret_cast<const float*>(base_ + begin);
  t.bytes = data_bytes;
  *out = t;
  return Status::Ok();
}

Status WeightFile::DecodeMetadata(size_t i, WeightMetadata* out) const {
  const uint8_t* e = base_ + metadata_table_ + i * Layout::kMetadataEntrySize;
  WeightMetadata m;
  ATTNRT_RETURN_IF_ERROR(CheckEntryName(e, "metadata key", i, &m.key_len, &m.key));
  const uint8_t type = e[Layout::kEntryTypeAt];
  ATTNRT_RETURN_IF_ERROR(CheckReservedBytes(e, Layout::kMetadataReservedAt, Layout::kMetadataValueAt,
                                            "metadata", m.key));
  const uint64_t value = LoadU64(e + Layout::kMetadataValueAt);
  switch (type) {
    case static_cast<uint8_t>(WeightMetadataType::kInt):
      m.type = WeightMetadataType::kInt;
      std::memcpy(&m.int_value, &value, sizeof value);
      break;
    case static_cast<uint8_t>(WeightMetadataType::kFloat):
      m.type = WeightMetadataType::kFloat;
      std::memcpy(&m.float_value, &value, sizeof value);
      break;
    case static_cast<uint8_t>(WeightMetadataType::kString):
      m.type = WeightMetadataType::kString;
      m.string_len = static_cast<uint32_t>(value >> 32);
      ATTNRT_RETURN_IF_ERROR(CheckString("metadata string value", i, value & 0xFFFFFFFFu,
                                         m.string_len, true, &m.string_value));
      break;
    default:
      return BadFile("weight file: metadata '%s': unknown value type %z", m.key, type);
  }
  *out = m;
  return Status::Ok();
}

Status WeightFile::TensorAt(size_t i, WeightTensor* out) const {
  ATTNRT_RETURN_IF_ERROR(CheckIndex(i, tensor_count_, "tensor", "tensors"));
  return DecodeTensor(i, out);
}

Status WeightFile::MetadataAt(size_t i, WeightMetadata* out) const {
  ATTNRT_RETURN_IF_ERROR(CheckIndex(i, metadata_count_, "metadata", "records"));
  return DecodeMetadata(i, out);
}

Status WeightFile::FindTensor(const char* name, WeightTensor* out) const {
  return FindByName(
      name, "weight file: null tensor name", "weight file: missing tensor '%s'", tensor_count_,
      [this](size_t i, WeightTensor* t) { return DecodeTensor(i, t); }, out);
}

Status WeightFile::FindMetadata(const char* key, WeightMetadata* out) const {
  return FindByName(
      key, "weight file: null metadata key", "weight file: missing metadata key '%s'",
      metadata_count_, [this](size_t i, WeightMetadata* m) { return DecodeMetadata(i, m); }, out);
}

Status WeightFile::GetInt(const char* key, int64_t* out) const {
  WeightMetadata m;
  ATTNRT_RETURN_IF_ERROR(FindMetadata(key, &m));
  if (m.type != WeightMetadataType::kInt) {
    return BadFile("weight file: metadata '%s' is not an integer", key);
  }
  *out = m.int_value;
  return Status::Ok();
}

Status WeightFile::GetFloat(const char* key, double* out) const {
  WeightMetadata m;
  ATTNRT_RETURN_IF_ERROR(FindMetadata(key, &m));
  if (m.type != WeightMetadataType::kFloat) {
    return BadFile("weight file: metadata '%s' is not a float", key);
  }
  *out = m.float_value;
  return Status::Ok();
}

Status WeightFile::GetString(const char* key, const char** out, size_t* len) const {
  WeightMetadata m;
  ATTNRT_RETURN_IF_ERROR(FindMetadata(key, &m));
  if (m.type != WeightMetadataType::kString) {
    return BadFile("weight file: metadata '%s' is not a string", key);
  }
  *out = m.string_value;
  *len = m.string_len;
  return Status::Ok();
}

}  // namespace attnrt
