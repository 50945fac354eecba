// GGUF reader (llama.cpp's model file, versions 2 and 3, little-endian) over an in-memory
// image, for `attnrt convert MODEL.gguf`. A GGUF is downloaded, untrusted input: every
// count, length, product and offset is checked against the image before it is used, no
// allocation is larger than a small multiple of the input, and errors name the key or
// tensor they are about. Nothing throws across this API (bool + message, like safetensors.h).
//
// Layout (all little-endian):
//   "GGUF", u32 version, u64 tensor_count, u64 metadata_count,
//   metadata_count x { string key, u32 value_type, value },
//   tensor_count x { string name, u32 n_dims, u64 ne[n_dims], u32 ggml_type, u64 offset },
//   padding to general.alignment (u32, default 32), then the data section; each tensor's
//   offset is relative to it and a multiple of the alignment.
// A string is a u64 length and that many bytes (no NUL). An array is a u32 element type,
// a u64 count and the elements (arrays may nest). ne[0] is the fastest-varying dimension:
// a PyTorch (out, in) matrix has ne = [in, out].
// Host-only (tools layer). The image must outlive the GgufFile (values point into it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnrt {

enum class GgufType : uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
  kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};

// "u8", "string", "array", ...; "unknown" past the list.
const char* GgufTypeName(GgufType t);

// One metadata value. Scalars keep their bits; arrays of numbers and bools point at their
// elements in the image (read them with the accessors), arrays of strings hold views,
// nested arrays their items.
struct GgufValue {
  GgufType type = GgufType::kU8;
  uint64_t bits = 0;           // a scalar number or bool, little-endian bits zero-extended
  std::string_view text;       // kString
  GgufType element_type = GgufType::kU8;  // kArray
  uint64_t count = 0;                     // kArray: elements
  const uint8_t* raw = nullptr;           // kArray of numbers or bools: count * size bytes
  std::vector<std::string_view> strings;  // kArray of strings
  std::vector<GgufValue> items;           // kArray of arrays

  // A non-negative integer of any integer type (not bool, not float).
  bool AsUInt(uint64_t* out) const;
  // Any integer or float type, as double.
  bool AsNumber(double* out) const;
  bool AsBool(bool* out) const;
  bool AsString(std::string* out) const;
  // Element i of an array of numbers or bools, as double / as a non-negative integer.
  bool NumberAt(uint64_t i, double* out) const;
  bool UIntAt(uint64_t i, uint64_t* out) const;
  // A short description for messages: "u32 7", "string \"llama\"", "array of 3 f32".
  std::string Describe() const;
};

struct GgufKeyValue {
  std::string key;
  GgufValue value;
};

// ggml's tensor types as GGUF stores them (ggml.h's enum values).
enum class GgmlType : uint32_t {
  kF32 = 0, kF16 = 1, kQ4_0 = 2, kQ4_1 = 3, kQ5_0 = 6, kQ5_1 = 7, kQ8_0 = 8, kQ8_1 = 9,
  kQ2_K = 10, kQ3_K = 11, kQ4_K = 12, kQ5_K = 13, kQ6_K = 14, kQ8_K = 15, kBF16 = 30,
};

struct GgmlTypeInfo {
  uint32_t id;
  const char* name;  // as llama.cpp spells it: "F32", "Q4_K", ...
  uint32_t block;    // elements per block
  uint32_t bytes;    // bytes per block
};
// The type `id`, or nullptr when GGUF defines no such type.
const GgmlTypeInfo* FindGgmlType(uint32_t id);

struct GgufTensorInfo {
  std::string name;
  uint32_t n_dims = 0;
  uint64_t ne[4] = {1, 1, 1, 1};  // fastest first; unused dims 1
  uint32_t type = 0;              // a GgmlType value (FindGgmlType knows it)
  uint64_t offset = 0;            // in the data section
  size_t elements = 0;
  size_t bytes = 0;
  const uint8_t* data = nullptr;  // into the image, `bytes` long

  // The PyTorch (C-order) shape: ne reversed, n_dims entries.
  std::vector<size_t> TorchShape() const;
  const char* TypeName() const;
};

struct GgufFile {
  uint32_t version = 0;
  size_t alignment = 32;
  size_t data_offset = 0;  // where the data section starts in the image
  std::vector<GgufKeyValue> metadata;  // in file order; keys unique
  std::vector<GgufTensorInfo> tensors;  // in file order; names unique

  const GgufValue* Find(const std::string& key) const;
  const GgufTensorInfo* FindTensor(const std::string& name) const;
};

// Limits on what a GGUF may declare (far above any real model; past them it is refused
// as damaged rather than trusted with memory).
constexpr uint64_t kGgufMaxTensors = 1u << 20;
constexpr uint64_t kGgufMaxKeys = 1u << 20;
constexpr size_t kGgufMaxNameBytes = 256;     // a tensor name (llama.cpp: < 64)
constexpr size_t kGgufMaxKeyBytes = 1024;     // a metadata key
constexpr size_t kGgufMaxArrayDepth = 8;      // arrays nested in arrays

// True when the image starts with GGUF's magic (how `convert` tells a GGUF file).
bool HasGgufMagic(const uint8_t* data, size_t size);

// Parses an in-memory GGUF image. `name` (usually the path) starts every error message.
// On failure *out is left unspecified.
bool ReadGguf(const uint8_t* data, size_t size, const std::string& name, GgufFile* out,
              std::string* error);

}  // namespace attnrt
