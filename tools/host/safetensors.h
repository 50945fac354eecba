// safetensors reader for `attnrt convert`: checks every header field of an untrusted file and
// returns its tensors converted to float32.
//
// Format (https://github.com/huggingface/safetensors): an unsigned 64-bit little-endian header
// length N, then N bytes of UTF-8 JSON (an object, possibly padded at the end with spaces), then
// the data buffer. The JSON maps each tensor name to
//   {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
// with offsets relative to the start of the data buffer, plus an optional "__metadata__" object
// of string -> string. Tensors are little-endian, C order, and must tile the buffer exactly: no
// overlaps, no holes, nothing after the last tensor.
//
// Host-only (tools layer): std containers are fine here; nothing throws across the API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnrt {

struct SafetensorsTensor {
  std::string name;
  std::vector<size_t> shape;   // empty = scalar (one element)
  std::vector<float> values;   // C order, converted to float32 (exactly: every F16/BF16 fits)
  std::string source_dtype;    // as written in the file: "F32", "F16" or "BF16"
};

struct SafetensorsFile {
  std::vector<SafetensorsTensor> tensors;       // in data-buffer order
  std::map<std::string, std::string> metadata;  // "__metadata__", empty when absent

  // The tensor called `name`, or nullptr.
  const SafetensorsTensor* Find(const std::string& name) const;
};

// Headers larger than this are refused as absurd (the reference implementation's limit).
constexpr uint64_t kSafetensorsMaxHeaderBytes = 100000000;

// Parses an in-memory safetensors image. `name` (usually the path) starts every error message;
// errors about one tensor name it, e.g. "m.safetensors: tensor 'w': dtype 'I64' is not
// supported (F32, F16, BF16)". On failure *out is left unspecified.
bool ReadSafetensors(const uint8_t* data, size_t size, const std::string& name,
                     SafetensorsFile* out, std::string* error);

// Reads the file at `path` and parses it with ReadSafetensors.
bool ReadSafetensorsFile(const std::string& path, SafetensorsFile* out, std::string* error);

// IEEE 754 binary16 bits -> float32, exact for every input (subnormals, infinities, NaN payloads).
float HalfToFloat(uint16_t bits);
// bfloat16 bits (the top half of a float32) -> float32, exact for every input.
float BFloat16ToFloat(uint16_t bits);

}  // namespace attnrt
