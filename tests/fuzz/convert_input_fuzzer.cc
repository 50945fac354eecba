// libFuzzer target for what `attnrt convert` does with its two untrusted inputs: the config
// JSON (ParseJsonConfig) and the safetensors checkpoint (ReadSafetensors), then the conversion
// core the command calls in the command's order (convert/convert_core.h: PrepareConversion for the
// architecture, config metadata and derived config, AddCheckpointTensors for the tensors checked
// against the architecture and encoded), then the weight file serialized to
// memory and read back by the runtime (WeightFile::Open, LoadModel).
//
// Input layout (tests/fuzz/make_convert_corpus.py writes seeds in it):
//   byte 0       options: bits 0-2 the --dtype (kWeightTypes[bits % kWeightTypeCount]: f32,
//                f16, bf16, q8, q4_0, q4_K, q6_K); bits 3-6 the --arch:
//                0 = none (the config's "architecture" key decides), k = ArchitectureAt(k - 1)
//                (values past the last architecture mean none too)
//   bytes 1-2    config length N, little-endian (clamped to what is left)
//   N bytes      the config JSON
//   the rest     the safetensors image
//
// Invariants (abort with a message on violation; ASan/UBSan and libFuzzer's malloc limit catch
// out-of-bounds access, huge allocations and hangs):
//   - every refusal (config, checkpoint or conversion) comes with a non-empty message;
//   - a conversion that succeeds serializes, and the runtime opens the file and loads the model;
//   - the file holds exactly the checkpoint's tensors, each with the checkpoint's shape;
//     f32-stored tensors hold the checkpoint's values bit for bit, f16/bf16-stored ones read
//     back the checkpoint's values when the checkpoint had that type too;
//   - the loaded model's config is the one the conversion derived.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attnrt/runtime/weight_file.h"
#include "convert/convert_core.h"
#include "converted_model_check.h"
#include "convert/weight_file_writer.h"
#include "host/json_config.h"
#include "host/safetensors.h"

namespace attnrt {
namespace {

[[noreturn]] void Die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "convert_input_fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

void Require(bool ok, const char* what, const std::string& detail = "") {
  if (!ok) Die(what, detail);
}

// Every refusal must say why.
void RequireMessage(const char* step, const std::string& error) {
  Require(!error.empty(), "refused with an empty message", step);
}

bool SameValue(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

// The file's tensor `t` against the checkpoint's: shape, and the values as far as its stored
// type keeps them. Every row is widened, so ASan sees any read outside the tensor.
void CheckTensor(const SafetensorsTensor& want, const WeightTensor& t) {
  const std::vector<size_t> shape(t.shape.dims, t.shape.dims + t.shape.rank);
  Require(shape == want.shape, "stored shape differs from the checkpoint's", want.name);
  const size_t rows = TensorMatrixRows(t.shape), cols = TensorMatrixCols(t.shape);
  Require(rows * cols == want.values.size(), "stored element count differs", want.name);
  if (t.dtype == WeightType::kF32) {
    Require(t.bytes == want.values.size() * sizeof(float) &&
                (t.bytes == 0 || std::memcmp(t.raw, want.values.data(), t.bytes) == 0),
            "f32 tensor does not round-trip bit-exactly", want.name);
    return;
  }
  const bool exact = (t.dtype == WeightType::kF16 && want.source_dtype == "F16") ||
                     (t.dtype == WeightType::kBF16 && want.source_dtype == "BF16");
  const uint8_t* p = static_cast<const uint8_t*>(t.raw);
  const void* scales = p + Q8ScalesOffset(rows, cols);
  std::vector<float> row(cols);
  for (size_t r = 0; r < rows && cols != 0; ++r) {
    WidenMatrixRow(t.dtype, p, scales, cols, r, row.data());
    for (size_t c = 0; exact && c < cols; ++c) {
      Require(SameValue(row[c], want.values[r * cols + c]),
              "16-bit tensor does not read back the checkpoint's 16-bit values", want.name);
    }
  }
}

void CheckConvertedFile(const WeightFileWriter& writer, const SafetensorsFile& st,
                        const ModelConfig& config) {
  std::vector<uint8_t> bytes;
  WeightFile file;
  fuzz::RequireOpens("convert_input_fuzzer", writer, &bytes, &file);
  Require(file.tensor_count() == st.tensors.size(), "file and checkpoint tensor counts differ");
  for (const SafetensorsTensor& want : st.tensors) {
    WeightTensor t;
    const Status status = file.FindTensor(want.name.c_str(), &t);
    Require(status.ok(), "a checkpoint tensor is missing from the file", status.message());
    CheckTensor(want, t);
  }
  fuzz::RequireLoadsAs("convert_input_fuzzer", file, config);
}

}  // namespace
}  // namespace attnrt

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attnrt;
  if (size < 3) return 0;
  const WeightType matrix_type = kWeightTypes[(data[0] & 7) % kWeightTypeCount].type;
  const size_t arch_pick = (data[0] >> 3) & 15;
  const std::string arch_option =
      arch_pick != 0 && arch_pick <= ArchitectureCount()
          ? ArchitectureName(ArchitectureAt(arch_pick - 1))
          : "";
  size_t config_size = data[1] | (size_t{data[2]} << 8);
  data += 3;
  size -= 3;
  if (config_size > size) config_size = size;
  const std::string text(reinterpret_cast<const char*>(data), config_size);
  // The checkpoint in a heap block of exactly its size, so ASan sees any read past its end.
  const std::vector<uint8_t> image(data + config_size, data + size);

  // The two inputs are parsed independently so that a broken config does not hide checkpoint
  // bugs and vice versa; the conversion steps then run in the command's order.
  std::string error;
  JsonConfig json;
  const bool json_ok = ParseJsonConfig(text, "config.json", &json, &error);
  if (!json_ok) RequireMessage("config", error);
  SafetensorsFile st;
  std::string st_error;
  const bool st_ok =
      ReadSafetensors(image.data(), image.size(), "model.safetensors", &st, &st_error);
  if (!st_ok) RequireMessage("checkpoint", st_error);
  if (!json_ok) return 0;

  WeightFileWriter writer;
  ModelConfig config;
  error.clear();
  if (!PrepareConversion(json, "config.json", arch_option, &writer, &config, &error)) {
    RequireMessage("config metadata", error);
    return 0;
  }
  if (!st_ok) return 0;
  error.clear();
  if (!AddCheckpointTensors(config, st, "model.safetensors", AllMatricesAs(matrix_type),
                            &writer, &error)) {
    RequireMessage("tensors", error);
    return 0;
  }
  CheckConvertedFile(writer, st, config);
  return 0;
}
