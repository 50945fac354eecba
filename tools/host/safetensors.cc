// safetensors parsing: header length, strict JSON header, per-tensor field checks, the
// no-overlap/no-hole layout rule, and F32/F16/BF16 decoding to float32.
//
// Every size is checked before anything is allocated, so no allocation is larger than the input
// (the header JSON is bounded by the file and each values vector by its tensor's bytes).
#include "host/safetensors.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <tuple>
#include <utility>

#include "attnrt/runtime/checked_math.h"
#include "host/json_config.h"
#include "host/mapped_file.h"

namespace attnrt {
namespace {

using Json = nlohmann::json;

constexpr size_t kLengthPrefixBytes = 8;
constexpr const char* kMetadataKey = "__metadata__";
// top-level object > tensor entry object > shape array: nothing valid nests deeper.
constexpr size_t kMaxHeaderDepth = 3;

// Decoders read one little-endian element; `p` may be unaligned.
float DecodeF32(const uint8_t* p);
float DecodeF16(const uint8_t* p);
float DecodeBF16(const uint8_t* p);

struct DTypeInfo {
  const char* name;
  size_t bytes;
  float (*decode)(const uint8_t* p);
};
constexpr DTypeInfo kSupportedDTypes[] = {
    {"F32", 4, DecodeF32}, {"F16", 2, DecodeF16}, {"BF16", 2, DecodeBF16}};

// One header entry, checked but not yet decoded.
struct Entry {
  std::string name;
  std::string dtype;
  size_t item_bytes = 0;
  float (*decode)(const uint8_t* p) = nullptr;
  std::vector<size_t> shape;
  size_t count = 0;  // elements
  size_t begin = 0;  // byte offsets into the data buffer
  size_t end = 0;
};

bool Fail(std::string* error, const std::string& file, const std::string& what) {
  if (error) *error = file + ": " + what;
  return false;
}

// A tensor name as it appears in messages: JSON-quoted, so control characters stay harmless.
std::string Quoted(const std::string& s) {
  return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string TensorPrefix(const std::string& tensor) { return "tensor " + Quoted(tensor) + ": "; }

// A JSON number as a size: a non-negative integer (JSON gives up to 64 bits) that also fits
// this platform's size_t, which on a 32-bit target stops at 2^32 - 1.
enum class SizeField { kOk, kNotAnInteger, kTooLarge };

SizeField AsSize(const Json& value, size_t* out) {
  if (!value.is_number_unsigned()) return SizeField::kNotAnInteger;
  if (!SizeFromU64(value.get<uint64_t>(), out)) return SizeField::kTooLarge;
  return SizeField::kOk;
}

std::string TooLarge(const std::string& field, const Json& value) {
  return field + " " + value.dump() + " does not fit this platform's " +
         std::to_string(kSizeBits) + "-bit size_t";
}

uint16_t LoadLE16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

uint32_t LoadLE32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

uint64_t LoadLE64(const uint8_t* p) {
  return static_cast<uint64_t>(LoadLE32(p)) | (static_cast<uint64_t>(LoadLE32(p + 4)) << 32);
}

float FloatFromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

float DecodeF32(const uint8_t* p) { return FloatFromBits(LoadLE32(p)); }
float DecodeF16(const uint8_t* p) { return HalfToFloat(LoadLE16(p)); }
float DecodeBF16(const uint8_t* p) { return BFloat16ToFloat(LoadLE16(p)); }

bool ParseMetadata(const Json& value, const std::string& file,
                   std::map<std::string, std::string>* out, std::string* error) {
  if (!value.is_object()) {
    return Fail(error, file, std::string("\"__metadata__\" must be an object, got ") +
                                 value.type_name());
  }
  for (const auto& item : value.items()) {
    if (!item.value().is_string()) {
      return Fail(error, file, "\"__metadata__\" value for key " + Quoted(item.key()) +
                                   " must be a string, got " + item.value().type_name());
    }
    (*out)[item.key()] = item.value().get<std::string>();
  }
  return true;
}

bool ParseShape(const Json& value, const std::string& file, Entry* entry, std::string* error) {
  const std::string where = TensorPrefix(entry->name);
  if (!value.is_array()) {
    return Fail(error, file, where + "\"shape\" must be an array, got " + value.type_name());
  }
  for (const Json& dim : value) {
    size_t d = 0;
    const SizeField parsed = AsSize(dim, &d);
    if (parsed == SizeField::kTooLarge) {
      return Fail(error, file, where + TooLarge("\"shape\" entry", dim));
    }
    if (parsed != SizeField::kOk) {
      return Fail(error, file, where + "\"shape\" entry " + dim.dump() +
                                   " is not a non-negative integer");
    }
    entry->shape.push_back(d);
  }
  if (!CheckedProduct(entry->shape.data(), entry->shape.size(), &entry->count)) {
    return Fail(error, file, where + "element count of shape " + value.dump() + " overflows");
  }
  return true;
}

bool ParseOffsets(const Json& value, size_t buffer_bytes, const std::string& file, Entry* entry,
                  std::string* error) {
  const std::string where = TensorPrefix(entry->name);
  if (!value.is_array() || value.size() != 2) {
    return Fail(error, file, where + "\"data_offsets\" must be [begin, end] with non-negative "
                                     "integers, got " + value.dump());
  }
  size_t* const fields[2] = {&entry->begin, &entry->end};
  for (size_t i = 0; i < 2; ++i) {
    const SizeField parsed = AsSize(value[i], fields[i]);
    if (parsed == SizeField::kTooLarge) {
      return Fail(error, file, where + TooLarge(i == 0 ? "data_offsets begin" : "data_offsets end",
                                                value[i]));
    }
    if (parsed != SizeField::kOk) {
      return Fail(error, file, where + "\"data_offsets\" must be [begin, end] with non-negative "
                                       "integers, got " + value.dump());
    }
  }
  if (entry->begin > entry->end) {
    return Fail(error, file, where + "data_offsets begin " + std::to_string(entry->begin) +
                                 " is after end " + std::to_string(entry->end));
  }
  if (entry->end > buffer_bytes) {
    return Fail(error, file, where + "data_offsets end " + std::to_string(entry->end) +
                                 " is past the end of the " + std::to_string(buffer_bytes) +
                                 "-byte data buffer");
  }
  size_t expected = 0;
  if (!CheckedMul(entry->count, entry->item_bytes, &expected)) {
    return Fail(error, file, where + "byte size of " + std::to_string(entry->count) + " " +
                                 entry->dtype + " elements overflows");
  }
  if (entry->end - entry->begin != expected) {
    return Fail(error, file, where + "data_offsets span " + std::to_string(entry->end - entry->begin) +
                                 " bytes but shape and dtype " + entry->dtype + " need " +
                                 std::to_string(expected));
  }
  return true;
}

bool ParseEntry(const std::string& tensor, const Json& value, size_t buffer_bytes,
                const std::string& file, Entry* entry, std::string* error) {
  entry->name = tensor;
  const std::string where = TensorPrefix(tensor);
  if (tensor.empty()) return Fail(error, file, "empty tensor name");
  if (!value.is_object()) {
    return Fail(error, file, where + "entry must be an object, got " + value.type_name());
  }
  for (const auto& item : value.items()) {
    if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets") {
      return Fail(error, file, where + "unknown field " + Quoted(item.key()) +
                                   " (expected dtype, shape, data_offsets)");
    }
  }
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    if (!value.contains(field)) return Fail(error, file, where + "missing field \"" + field + "\"");
  }
  const Json& dtype = value["dtype"];
  if (!dtype.is_string()) {
    return Fail(error, file, where + "\"dtype\" must be a string, got " + dtype.type_name());
  }
  entry->dtype = dtype.get<std::string>();
  for (const DTypeInfo& info : kSupportedDTypes) {
    if (entry->dtype == info.name) {
      entry->item_bytes = info.bytes;
      entry->decode = info.decode;
    }
  }
  if (entry->item_bytes == 0) {
    return Fail(error, file, where + "dtype " + Quoted(entry->dtype) +
                                 " is not supported (F32, F16, BF16)");
  }
  return ParseShape(value["shape"], file, entry, error) &&
         ParseOffsets(value["data_offsets"], buffer_bytes, file, entry, error);
}

// Spec rule: sorted by offset, tensors tile the buffer exactly. Rejecting gaps and trailing
// bytes keeps a file from hiding a second payload (a polyglot) in unindexed space.
bool CheckLayout(std::vector<Entry>* entries, size_t buffer_bytes, const std::string& file,
                 std::string* error) {
  std::sort(entries->begin(), entries->end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  size_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& entry : *entries) {
    if (entry.begin < covered) {
      return Fail(error, file, TensorPrefix(entry.name) + "bytes [" + std::to_string(entry.begin) +
                                   ", " + std::to_string(entry.end) + ") overlap tensor " +
                                   Quoted(previous->name) + " bytes [" +
                                   std::to_string(previous->begin) + ", " +
                                   std::to_string(previous->end) + ")");
    }
    if (entry.begin > covered) {
      return Fail(error, file, TensorPrefix(entry.name) + "starts at byte " +
                                   std::to_string(entry.begin) + " but the bytes before end at " +
                                   std::to_string(covered) + ": holes are not allowed");
    }
    covered = entry.end;
    previous = &entry;
  }
  if (covered != buffer_bytes) {
    return Fail(error, file, "data buffer has " + std::to_string(buffer_bytes) +
                                 " bytes but the tensors cover only " + std::to_string(covered));
  }
  return true;
}

void Decode(const Entry& entry, const uint8_t* buffer, SafetensorsTensor* out) {
  out->name = entry.name;
  out->shape = entry.shape;
  out->source_dtype = entry.dtype;
  out->values.resize(entry.count);
  const uint8_t* p = buffer + entry.begin;
  for (size_t i = 0; i < entry.count; ++i, p += entry.item_bytes) out->values[i] = entry.decode(p);
}

}  // namespace

const SafetensorsTensor* SafetensorsFile::Find(const std::string& name) const {
  for (const SafetensorsTensor& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

float HalfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) return FloatFromBits(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent != 0) return FloatFromBits(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
  if (mantissa == 0) return FloatFromBits(sign);  // signed zero
  // Subnormal m * 2^-24: every one is a normal float32. Shift the leading 1 up to the implicit
  // bit position, lowering the exponent from 2^-14 once per shift.
  uint32_t float_exponent = 127 - 14;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --float_exponent;
  }
  return FloatFromBits(sign | (float_exponent << 23) | ((mantissa & 0x3ffu) << 13));
}

float BFloat16ToFloat(uint16_t bits) { return FloatFromBits(static_cast<uint32_t>(bits) << 16); }

// ReadSafetensors without the bad_alloc guard.
static bool ReadSafetensorsImpl(const uint8_t* data, size_t size, const std::string& name,
                                SafetensorsFile* out, std::string* error) {
  if (size < kLengthPrefixBytes) {
    return Fail(error, name, "file is " + std::to_string(size) +
                                 " bytes, too short for the 8-byte header length");
  }
  const uint64_t header_field = LoadLE64(data);
  if (header_field > kSafetensorsMaxHeaderBytes) {
    return Fail(error, name, "header length " + std::to_string(header_field) + " exceeds the " +
                                 std::to_string(kSafetensorsMaxHeaderBytes) + "-byte limit");
  }
  if (header_field > size - kLengthPrefixBytes) {
    return Fail(error, name, "header length " + std::to_string(header_field) +
                                 " runs past the end of the " + std::to_string(size) +
                                 "-byte file");
  }
  const size_t header_bytes = static_cast<size_t>(header_field);  // < size, so it fits
  const char* header = reinterpret_cast<const char*>(data + kLengthPrefixBytes);
  if (header_bytes == 0 || header[0] != '{') {
    return Fail(error, name, "header does not start with '{'");
  }
  Json root;
  if (!ParseJson(header, header_bytes, name + " (header)", kMaxHeaderDepth, &root, error)) {
    return false;
  }
  if (!root.is_object()) return Fail(error, name, "header is not a JSON object");

  const uint8_t* buffer = data + kLengthPrefixBytes + header_bytes;
  const size_t buffer_bytes = size - kLengthPrefixBytes - header_bytes;
  SafetensorsFile result;
  std::vector<Entry> entries;
  for (const auto& item : root.items()) {
    if (item.key() == kMetadataKey) {
      if (!ParseMetadata(item.value(), name, &result.metadata, error)) return false;
      continue;
    }
    Entry entry;
    if (!ParseEntry(item.key(), item.value(), buffer_bytes, name, &entry, error)) return false;
    entries.push_back(std::move(entry));
  }
  if (!CheckLayout(&entries, buffer_bytes, name, error)) return false;

  result.tensors.resize(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) Decode(entries[i], buffer, &result.tensors[i]);
  *out = std::move(result);
  return true;
}

// The float32 copies can outgrow memory on a small (32-bit) board: say so rather than terminate.
bool ReadSafetensors(const uint8_t* data, size_t size, const std::string& name,
                     SafetensorsFile* out, std::string* error) {
  try {
    return ReadSafetensorsImpl(data, size, name, out, error);
  } catch (const std::bad_alloc&) {
    return Fail(error, name,
                "out of memory converting the tensors of a " + std::to_string(size) +
                    "-byte file to float32");
  }
}

bool ReadSafetensorsFile(const std::string& path, SafetensorsFile* out, std::string* error) {
  MappedFile file;  // mapped, not copied: the values vectors are the only copy made
  if (!file.Open(path, error)) return false;
  return ReadSafetensors(file.data(), file.size(), path, out, error);
}

}  // namespace attnrt
