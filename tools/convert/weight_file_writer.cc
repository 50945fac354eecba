// Flat weight file writer: validation of the inputs, canonical layout, little-endian encoding.
//
// Canonical layout (FORMAT.md, "Canonical layout"): header, tensor table, metadata table, string
// table (tensor names in table order, then each metadata key followed by its string value if it
// has one), zero padding up to the alignment, then each tensor's data at the next aligned offset.
#include "convert/weight_file_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

#include "attnrt/runtime/checked_math.h"
#include "attnrt/runtime/tensor_shape.h"
#include "attnrt/runtime/weight_file.h"
#include "convert/tensor_encoding.h"
#include "output/output_file.h"

namespace attnrt {
namespace {

using Layout = WeightFileLayout;

bool Fail(std::string* error, const std::string& what) {
  if (error != nullptr) *error = "weight file writer: " + what;
  return false;
}

void PutU32(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

bool ValidName(const std::string& s) { return !s.empty() && s.find('\0') == std::string::npos; }

// Appends `s` and its NUL to the string table; returns its offset.
uint64_t AddString(const std::string& s, std::vector<uint8_t>* strings) {
  const uint64_t offset = strings->size();
  strings->insert(strings->end(), s.begin(), s.end());
  strings->push_back(0);
  return offset;
}

bool FitsU32(uint64_t v) { return v <= std::numeric_limits<uint32_t>::max(); }

// Rounds up to a multiple of `align` (a power of two); false on overflow.
bool AlignUpU64(uint64_t n, uint64_t align, uint64_t* out) {
  if (!CheckedAddU64(n, align - 1, out)) return false;
  *out &= ~(align - 1);
  return true;
}

}  // namespace

void WeightFileWriter::SetValue(const std::string& key, Value value) {
  if (!ValidName(key)) {
    if (deferred_error_.empty()) deferred_error_ = "metadata key must be non-empty and NUL-free";
    return;
  }
  metadata_[key] = std::move(value);
}

void WeightFileWriter::SetInt(const std::string& key, int64_t v) {
  Value value;
  value.type = static_cast<uint8_t>(WeightMetadataType::kInt);
  std::memcpy(&value.bits, &v, sizeof v);
  SetValue(key, std::move(value));
}

void WeightFileWriter::SetFloat(const std::string& key, double v) {
  Value value;
  value.type = static_cast<uint8_t>(WeightMetadataType::kFloat);
  std::memcpy(&value.bits, &v, sizeof v);
  SetValue(key, std::move(value));
}

void WeightFileWriter::SetString(const std::string& key, const std::string& v) {
  if (v.find('\0') != std::string::npos) {
    if (deferred_error_.empty())
      deferred_error_ = "metadata '" + key + "': string value holds a NUL byte";
    return;
  }
  Value value;
  value.type = static_cast<uint8_t>(WeightMetadataType::kString);
  value.text = v;
  SetValue(key, std::move(value));
}

bool WeightFileWriter::SetAlignment(size_t alignment, std::string* error) {
  const bool power_of_two = alignment != 0 && (alignment & (alignment - 1)) == 0;
  if (!power_of_two || alignment < Layout::kMinDataAlignment ||
      alignment > Layout::kMaxDataAlignment) {
    return Fail(error, "alignment " + std::to_string(alignment) + " must be a power of two in [" +
                           std::to_string(Layout::kMinDataAlignment) + ", " +
                           std::to_string(Layout::kMaxDataAlignment) + "]");
  }
  alignment_ = alignment;
  return true;
}

bool WeightFileWriter::AddTensorF32(const std::string& name, const std::vector<size_t>& shape,
                                    const float* data, std::string* error) {
  return AddTensor(name, shape, data, WeightType::kF32, error);
}

bool WeightFileWriter::AddTensor(const std::string& name, const std::vector<size_t>& shape,
                                 const float* data, WeightType type, std::string* error) {
  return AddTensorImpl(name, shape, data, type, nullptr, 0, error);
}

bool WeightFileWriter::AddTensorEncoded(const std::string& name, const std::vector<size_t>& shape,
                                        WeightType type, const void* bytes, size_t byte_count,
                                        std::string* error) {
  return AddTensorImpl(name, shape, nullptr, type, bytes, byte_count, error);
}

// Exactly one of `values` (f32, to encode) and `encoded` (bytes already in `type`) is used.
bool WeightFileWriter::AddTensorImpl(const std::string& name, const std::vector<size_t>& shape,
                                     const float* values, WeightType type, const void* encoded,
                                     size_t encoded_bytes, std::string* error) {
  if (!ValidName(name)) return Fail(error, "tensor name must be non-empty and NUL-free");
  if (tensors_.count(name) != 0) return Fail(error, "duplicate tensor name '" + name + "'");
  if (shape.size() > TensorShape::kMaxRank) {
    return Fail(error, "tensor '" + name + "': rank " + std::to_string(shape.size()) +
                           " exceeds the maximum " + std::to_string(TensorShape::kMaxRank));
  }
  if (WeightTypeName(type) == nullptr) return Fail(error, "tensor '" + name + "': unknown type");
  // The matrix view of weight_file.h's TensorMatrixRows/Cols: dims[0] rows of the rest.
  const size_t rows = shape.size() >= 2 ? shape[0] : 1;
  size_t count, cols, bytes;
  if (!CheckedProduct(shape.data(), shape.size(), &count) ||
      !CheckedProduct(shape.data() + (shape.size() >= 2 ? 1 : 0),
                      shape.size() - (shape.size() >= 2 ? 1 : 0), &cols) ||
      !MatrixBytes(type, rows, cols, &bytes)) {
    return Fail(error, "tensor '" + name + "': element count overflows");
  }
  const void* source = encoded != nullptr ? encoded : static_cast<const void*>(values);
  if (source == nullptr && count != 0) return Fail(error, "tensor '" + name + "': null data");
  if (encoded != nullptr && encoded_bytes != bytes) {
    return Fail(error, "tensor '" + name + "': " + std::to_string(encoded_bytes) + " bytes, but " +
                           WeightTypeName(type) + " needs " + std::to_string(bytes));
  }
  try {
    Tensor t;
    t.shape = shape;
    t.type = type;
    if (encoded != nullptr) {
      const uint8_t* b = static_cast<const uint8_t*>(encoded);
      t.bytes.assign(b, b + bytes);
    } else {
      std::string why;
      if (!EncodeMatrix(type, rows, cols, values, &t.bytes, &why)) {
        return Fail(error, "tensor '" + name + "' as " + WeightTypeName(type) + ": " + why);
      }
    }
    tensors_.emplace(name, std::move(t));
  } catch (const std::bad_alloc&) {
    return Fail(error, "tensor '" + name + "': out of memory copying " + std::to_string(bytes) +
                           " bytes");
  } catch (const std::length_error&) {
    return Fail(error, "tensor '" + name + "': " + std::to_string(bytes) +
                           " bytes are more than one buffer can hold on this platform");
  }
  return true;
}

bool WeightFileWriter::Serialize(std::vector<uint8_t>* out, std::string* error) const {
  try {
    return SerializeImpl(out, error);
  } catch (const std::bad_alloc&) {
    return Fail(error, "out of memory building the file");
  }
}

bool WeightFileWriter::SerializeImpl(std::vector<uint8_t>* out, std::string* error) const {
  if (!deferred_error_.empty()) return Fail(error, deferred_error_);
  if (!FitsU32(tensors_.size()) || !FitsU32(metadata_.size())) {
    return Fail(error, "more than 2^32 - 1 tensors or metadata records");
  }
  // The layout is computed in 64 bits, the width of the file's fields, and checked against what
  // one buffer can hold here before anything is narrowed to size_t (a 32-bit size_t on ARMv7).
  const uint64_t tensor_table = Layout::kHeaderSize;
  const uint64_t tensor_table_size = uint64_t{tensors_.size()} * Layout::kTensorEntrySize;
  const uint64_t metadata_table = tensor_table + tensor_table_size;
  const uint64_t metadata_table_size = uint64_t{metadata_.size()} * Layout::kMetadataEntrySize;
  const uint64_t string_table = metadata_table + metadata_table_size;

  std::vector<uint8_t> strings;
  std::vector<uint64_t> name_offsets, key_offsets, value_offsets;
  for (const auto& [name, t] : tensors_) name_offsets.push_back(AddString(name, &strings));
  for (const auto& [key, v] : metadata_) {
    key_offsets.push_back(AddString(key, &strings));
    value_offsets.push_back(v.type == static_cast<uint8_t>(WeightMetadataType::kString)
                                ? AddString(v.text, &strings)
                                : 0);
  }
  if (!FitsU32(strings.size())) return Fail(error, "string table exceeds 4 GiB");

  uint64_t data_section;
  if (!AlignUpU64(string_table + strings.size(), alignment_, &data_section)) {
    return Fail(error, "file size overflows 64 bits");
  }
  std::vector<uint64_t> data_offsets;
  uint64_t end = data_section;
  for (const auto& [name, t] : tensors_) {
    uint64_t offset;
    if (!AlignUpU64(end, alignment_, &offset) ||
        !CheckedAddU64(offset, uint64_t{t.bytes.size()}, &end)) {
      return Fail(error, "file size overflows 64 bits");
    }
    data_offsets.push_back(offset);
  }

  std::vector<uint8_t>& file = *out;
  if (end > file.max_size()) {
    return Fail(error, "the file would be " + std::to_string(end) + " bytes, more than one buffer "
                       "can hold on this platform (" + std::to_string(file.max_size()) +
                       " bytes with its " + std::to_string(kSizeBits) + "-bit size_t)");
  }
  file.assign(static_cast<size_t>(end), 0);
  uint8_t* h = file.data();
  std::memcpy(h, Layout::kMagic, sizeof Layout::kMagic);
  // f32-only files stay version 1 so that readers from before the typed tensors still read them.
  bool typed = false;
  for (const auto& entry : tensors_) typed = typed || entry.second.type != WeightType::kF32;
  PutU32(h + Layout::kVersionAt, typed ? Layout::kFirstTypedVersion : 1);
  PutU32(h + Layout::kHeaderSizeAt, Layout::kHeaderSize);
  PutU64(h + Layout::kFileSizeAt, end);
  PutU32(h + Layout::kFlagsAt, 0);
  PutU32(h + Layout::kAlignmentAt, alignment_);
  PutU32(h + Layout::kTensorCountAt, tensors_.size());
  PutU32(h + Layout::kMetadataCountAt, metadata_.size());
  PutU64(h + Layout::kTensorTableAt, tensor_table);
  PutU64(h + Layout::kTensorTableAt + 8, tensor_table_size);
  PutU64(h + Layout::kMetadataTableAt, metadata_table);
  PutU64(h + Layout::kMetadataTableAt + 8, metadata_table_size);
  PutU64(h + Layout::kStringTableAt, string_table);
  PutU64(h + Layout::kStringTableAt + 8, strings.size());
  PutU64(h + Layout::kDataSectionAt, data_section);
  PutU64(h + Layout::kDataSectionAt + 8, end - data_section);

  size_t i = 0;
  for (const auto& [name, t] : tensors_) {
    uint8_t* e = h + tensor_table + i * Layout::kTensorEntrySize;
    PutU32(e + Layout::kEntryNameOffsetAt, name_offsets[i]);
    PutU32(e + Layout::kEntryNameLengthAt, name.size());
    e[Layout::kEntryTypeAt] = static_cast<uint8_t>(t.type);
    e[Layout::kTensorRankAt] = static_cast<uint8_t>(t.shape.size());
    for (size_t d = 0; d < t.shape.size(); ++d) {
      PutU64(e + Layout::kTensorDimsAt + 8 * d, t.shape[d]);
    }
    PutU64(e + Layout::kTensorDataOffsetAt, data_offsets[i]);
    PutU64(e + Layout::kTensorByteSizeAt, t.bytes.size());
    if (!t.bytes.empty()) std::memcpy(h + data_offsets[i], t.bytes.data(), t.bytes.size());
    ++i;
  }
  i = 0;
  for (const auto& [key, v] : metadata_) {
    uint8_t* e = h + metadata_table + i * Layout::kMetadataEntrySize;
    PutU32(e + Layout::kEntryNameOffsetAt, key_offsets[i]);
    PutU32(e + Layout::kEntryNameLengthAt, key.size());
    e[Layout::kEntryTypeAt] = v.type;
    if (v.type == static_cast<uint8_t>(WeightMetadataType::kString)) {
      PutU32(e + Layout::kMetadataValueAt, value_offsets[i]);
      PutU32(e + Layout::kMetadataValueAt + 4, v.text.size());
    } else {
      PutU64(e + Layout::kMetadataValueAt, v.bits);
    }
    ++i;
  }
  if (!strings.empty()) std::memcpy(h + string_table, strings.data(), strings.size());
  PutU32(h + Layout::kChecksumOffset, WeightFileChecksum(h, file.size()));

  // The reader is the definition of "valid": a file it refuses is a writer bug, caught here.
  WeightFile check;
  const Status st = WeightFile::Open(file.data(), file.size(), &check);
  if (!st.ok()) return Fail(error, std::string("internal error, output refused: ") + st.message());
  return true;
}

bool WeightFileWriter::WriteFile(const std::string& path, std::string* error) const {
  std::vector<uint8_t> bytes;
  if (!Serialize(&bytes, error)) return false;
  return WriteOutputFile(path, bytes.data(), bytes.size(), error);
}

}  // namespace attnrt
