// libFuzzer target for attnrt::WeightFile::Open (runtime/FORMAT.md): no crash or out-of-bounds
// read on any input, every refusal is kBadFile with a message about the weight file, and
// everything an accepted file hands out is usable and consistent (lookups, strings, sizes), and
// survives a rewrite through the host writer.
//
// Each input runs twice: as is, and with its checksum recomputed, so that mutations get past the
// CRC and reach the structural checks behind it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attnrt/runtime/weight_file.h"
#include "convert/weight_file_writer.h"

namespace {

using attnrt::Status;
using attnrt::StatusCode;
using attnrt::WeightFile;
using attnrt::WeightMetadata;
using attnrt::WeightMetadataType;
using attnrt::WeightTensor;

[[noreturn]] void Die(const char* what, const char* detail) {
  std::fprintf(stderr, "weight_file_fuzzer: %s: %s\n", what, detail);
  std::abort();
}

void Require(bool ok, const char* what, const Status& st = Status::Ok()) {
  if (!ok) Die(what, st.message());
}

// Reads every byte of a tensor so ASan checks the whole range.
uint32_t TouchBytes(const void* p, size_t n) {
  uint32_t acc = 0;
  const volatile uint8_t* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) acc += b[i];
  return acc;
}

void CheckTensors(const WeightFile& file, const uint8_t* base, size_t size,
                  attnrt::WeightFileWriter* rewrite) {
  for (size_t i = 0; i < file.tensor_count(); ++i) {
    WeightTensor t;
    Status st = file.TensorAt(i, &t);
    Require(st.ok(), "TensorAt failed on an accepted file", st);
    Require(std::strlen(t.name) == t.name_len && t.name_len > 0, "bad tensor name length");
    Require(t.shape.rank <= 4, "rank above 4");
    const size_t rows = attnrt::TensorMatrixRows(t.shape), cols = attnrt::TensorMatrixCols(t.shape);
    size_t expected = 0;
    Require(attnrt::MatrixBytes(t.dtype, rows, cols, &expected) && t.bytes == expected,
            "byte count disagrees with the shape and type");
    Require((t.data != nullptr) == (t.dtype == attnrt::WeightType::kF32) &&
                (t.data == nullptr || static_cast<const void*>(t.data) == t.raw),
            "float view of a tensor that is not f32, or none of one that is");
    const uint8_t* p = static_cast<const uint8_t*>(t.raw);
    Require(p >= base && p + t.bytes <= base + size, "tensor data outside the buffer");
    Require(reinterpret_cast<uintptr_t>(p) % 4 == 0, "misaligned tensor data");
    TouchBytes(p, t.bytes);
    // Every value widens as the models read it (q8 through its scale plane); ASan sees any
    // read outside the tensor.
    std::vector<float> row(rows != 0 ? cols : 0);  // cols is bounded by the file when rows > 0
    const void* scales = p + attnrt::Q8ScalesOffset(rows, cols);
    for (size_t r = 0; r < rows && cols != 0; ++r) {
      attnrt::WidenMatrixRow(t.dtype, p, scales, cols, r, row.data());
    }
    WeightTensor found;
    st = file.FindTensor(t.name, &found);
    Require(st.ok() && found.raw == t.raw, "FindTensor disagrees with TensorAt", st);
    std::vector<size_t> shape(t.shape.dims, t.shape.dims + t.shape.rank);
    std::string error;
    Require(rewrite->AddTensorEncoded(std::string(t.name, t.name_len), shape, t.dtype, t.raw,
                                      t.bytes, &error),
            "writer refused a tensor the reader accepted");
  }
}

void CheckMetadata(const WeightFile& file, attnrt::WeightFileWriter* rewrite) {
  for (size_t i = 0; i < file.metadata_count(); ++i) {
    WeightMetadata m;
    Status st = file.MetadataAt(i, &m);
    Require(st.ok(), "MetadataAt failed on an accepted file", st);
    Require(std::strlen(m.key) == m.key_len && m.key_len > 0, "bad metadata key length");
    const std::string key(m.key, m.key_len);
    int64_t i64 = 0;
    double f64 = 0;
    const char* s = nullptr;
    size_t len = 0;
    const bool got_int = file.GetInt(m.key, &i64).ok();
    const bool got_float = file.GetFloat(m.key, &f64).ok();
    const bool got_string = file.GetString(m.key, &s, &len).ok();
    switch (m.type) {
      case WeightMetadataType::kInt:
        Require(got_int && !got_float && !got_string && i64 == m.int_value, "GetInt mismatch");
        rewrite->SetInt(key, i64);
        break;
      case WeightMetadataType::kFloat:
        Require(!got_int && got_float && !got_string &&
                    std::memcmp(&f64, &m.float_value, sizeof f64) == 0,
                "GetFloat mismatch");
        rewrite->SetFloat(key, f64);
        break;
      case WeightMetadataType::kString:
        Require(!got_int && !got_float && got_string && s == m.string_value &&
                    len == m.string_len && std::strlen(s) == len,
                "GetString mismatch");
        rewrite->SetString(key, std::string(s, len));
        break;
    }
  }
}

// Rewriting the reader's view with the host writer must give a file that reads back the same.
void CheckRewrite(const WeightFile& original, const attnrt::WeightFileWriter& rewrite) {
  std::vector<uint8_t> bytes;
  std::string error;
  Require(rewrite.Serialize(&bytes, &error), "writer could not serialize an accepted file");
  WeightFile copy;
  const Status st = WeightFile::Open(bytes.data(), bytes.size(), &copy);
  Require(st.ok(), "rewritten file refused", st);
  Require(copy.tensor_count() == original.tensor_count() &&
              copy.metadata_count() == original.metadata_count(),
          "rewritten file has other counts");
  for (size_t i = 0; i < copy.tensor_count(); ++i) {
    WeightTensor a, b;
    Require(original.TensorAt(i, &a).ok() && copy.TensorAt(i, &b).ok(), "TensorAt failed");
    Require(a.name_len == b.name_len && std::memcmp(a.name, b.name, a.name_len) == 0 &&
                a.dtype == b.dtype && a.bytes == b.bytes &&
                (a.bytes == 0 || std::memcmp(a.raw, b.raw, a.bytes) == 0),
            "rewritten tensor differs");
  }
}

void CheckInput(const uint8_t* data, size_t size, bool checksum_fixed) {
  WeightFile file;
  const Status st = WeightFile::Open(data, size, &file);
  if (!st.ok()) {
    Require(st.code() == StatusCode::kBadFile, "refusal is not kBadFile", st);
    Require(std::strncmp(st.message(), "weight file: ", 13) == 0, "message does not say what", st);
    Require(file.tensor_count() == 0 && file.metadata_count() == 0, "refused file not emptied");
    return;
  }
  if (!checksum_fixed) {
    Require(file.checksum() == attnrt::WeightFileChecksum(data, size), "accepted a bad checksum");
  }
  attnrt::WeightFileWriter rewrite;
  std::string error;
  Require(rewrite.SetAlignment(file.alignment(), &error), "writer refused the alignment");
  CheckTensors(file, data, size, &rewrite);
  CheckMetadata(file, &rewrite);
  CheckRewrite(file, rewrite);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // libFuzzer's buffer is a heap block of exactly `size` bytes: ASan sees any read past the end.
  CheckInput(data, size, false);
  constexpr size_t kChecksumAt = attnrt::WeightFileLayout::kChecksumOffset;
  if (size >= attnrt::WeightFileLayout::kHeaderSize) {
    std::vector<uint8_t> fixed(data, data + size);
    const uint32_t crc = attnrt::WeightFileChecksum(fixed.data(), size);
    for (int i = 0; i < 4; ++i) fixed[kChecksumAt + i] = static_cast<uint8_t>(crc >> (8 * i));
    CheckInput(fixed.data(), size, true);
  }
  return 0;
}
