// .npy reader and writer for the attnrt CLI: float32 and bool arrays in, float32 arrays out.
//
// Host-only (tools layer). Every function reports failure through its return value and an
// error string that names the file and the problem; nothing throws across this API, and no
// allocation is sized by what a file claims: each is bounded by the bytes actually present.
#ifndef ATTNRT_TOOLS_NPY_NPY_H_
#define ATTNRT_TOOLS_NPY_NPY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "output/output_file.h"

namespace attnrt {
namespace npy {

// kInt64 holds int32 ('<i4') and int64 ('<i8') arrays, read only through
// ReadIntegerFile (token ids); ReadFile and Parse accept float32 and bool only.
enum class DType { kFloat32, kBool, kInt64 };

struct Array {
  DType dtype = DType::kFloat32;
  std::vector<size_t> shape;  // empty = 0-d scalar
  std::vector<float> f32;     // filled when dtype == kFloat32
  std::vector<uint8_t> b8;    // filled when dtype == kBool (0 or 1 per element)
  std::vector<int64_t> i64;   // filled when dtype == kInt64 (int32 files widened)
  size_t size() const;        // product of shape (1 for 0-d)
};

// Parses an in-memory .npy image (versions 1.0, 2.0, 3.0; C order; '<f4' or '|b1').
// `name` is used in error messages. On failure `*out` is left unspecified.
bool Parse(const uint8_t* data, size_t size, const std::string& name, Array* out,
           std::string* error);

// Reads and parses the .npy file at `path`.
bool ReadFile(const std::string& path, Array* out, std::string* error);
// Reads an int32 or int64 .npy file (token ids) into out->i64; any other dtype is
// refused by name.
bool ReadIntegerFile(const std::string& path, Array* out, std::string* error);

// Serializes a C-order float32 array as a version 1.0 .npy image laid out byte for byte as
// numpy's np.save lays it out (data starts at a multiple of 64 bytes). `data` may be null
// only when the shape has zero elements.
bool EncodeFloat32(const std::vector<size_t>& shape, const float* data, std::vector<uint8_t>* out,
                   std::string* error);

// EncodeFloat32 written to `path` through an OutputFile: a failure leaves `path` untouched.
bool WriteFloat32(const std::string& path, const std::vector<size_t>& shape, const float* data,
                  std::string* error);
// The same, into an open OutputFile that the caller commits (several outputs of one
// command are committed only once all of them were written).
bool WriteFloat32To(OutputFile* out, const std::vector<size_t>& shape, const float* data,
                    std::string* error);

// "(2, 3, 4)", "(5,)" and "()" as Python prints a shape tuple.
std::string ShapeString(const std::vector<size_t>& shape);

}  // namespace npy
}  // namespace attnrt

#endif  // ATTNRT_TOOLS_NPY_NPY_H_
