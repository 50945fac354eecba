// WeightFileWriter: builds a flat weight file (runtime/FORMAT.md) on the host; used by
// `attnrt convert` and by the tests and corpus tools that need valid files.
//
// Host-only (tools layer): it copies tensors into std containers and lays the file out in the
// canonical order FORMAT.md describes, so the same inputs always give the same bytes. Nothing
// throws across this API; failures return false with a message in *error.
#ifndef ATTNRT_TOOLS_CONVERT_WEIGHT_FILE_WRITER_H_
#define ATTNRT_TOOLS_CONVERT_WEIGHT_FILE_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attnrt/kernels/weight_type.h"

namespace attnrt {

class WeightFileWriter {
 public:
  // Metadata records; setting a key again replaces its value (and type). A key that is empty or
  // holds a NUL byte makes Serialize() fail, since the setters have no error channel.
  void SetInt(const std::string& key, int64_t v);
  void SetFloat(const std::string& key, double v);
  void SetString(const std::string& key, const std::string& v);

  // Alignment of every tensor's data: a power of two in [64, 65536]; 64 unless set.
  bool SetAlignment(size_t alignment, std::string* error);

  // Copies a C-order float32 tensor of rank <= 4 (an empty shape is a scalar). `data` may be null
  // only when the shape has zero elements. Names must be non-empty, NUL-free and unique.
  bool AddTensorF32(const std::string& name, const std::vector<size_t>& shape, const float* data,
                    std::string* error);
  // The same, stored as `type` (tensor_encoding.h): values the type cannot hold are refused.
  // q8 blocks run along a row of the (dims[0], rest) matrix view (weight_file.h).
  bool AddTensor(const std::string& name, const std::vector<size_t>& shape, const float* data,
                 WeightType type, std::string* error);
  // A tensor already encoded in `type` (copied from another weight file): `byte_count` must be
  // exactly the type's size for the shape (FORMAT.md); the bytes are copied as they are.
  bool AddTensorEncoded(const std::string& name, const std::vector<size_t>& shape,
                        WeightType type, const void* bytes, size_t byte_count,
                        std::string* error);

  // The whole file image, checksum included.
  bool Serialize(std::vector<uint8_t>* out, std::string* error) const;
  bool WriteFile(const std::string& path, std::string* error) const;

 private:
  struct Value {
    uint8_t type = 0;   // WeightMetadataType code
    uint64_t bits = 0;  // i64 two's complement or f64 bits
    std::string text;   // string values
  };
  struct Tensor {
    std::vector<size_t> shape;
    WeightType type = WeightType::kF32;
    std::vector<uint8_t> bytes;  // encoded, exactly the file's byte_size
  };
  void SetValue(const std::string& key, Value value);
  bool AddTensorImpl(const std::string& name, const std::vector<size_t>& shape,
                     const float* values, WeightType type, const void* encoded,
                     size_t encoded_bytes, std::string* error);
  bool SerializeImpl(std::vector<uint8_t>* out, std::string* error) const;  // may throw bad_alloc

  // Both maps iterate in bytewise key order, the order the file's tables need.
  std::map<std::string, Value> metadata_;
  std::map<std::string, Tensor> tensors_;
  size_t alignment_ = 64;
  std::string deferred_error_;  // first bad SetInt/SetFloat/SetString call, for Serialize()
};

}  // namespace attnrt

#endif  // ATTNRT_TOOLS_CONVERT_WEIGHT_FILE_WRITER_H_
