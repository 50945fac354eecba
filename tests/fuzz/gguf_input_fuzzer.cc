// libFuzzer target for what `attnrt convert MODEL.gguf` does with a downloaded GGUF file: the
// reader (convert/gguf_file.h), the import onto a record (convert/gguf_import.h: the config
// step, then the tensors with fused ones split, block types decoded and re-encoded), then the
// weight file serialized to memory and read back by the runtime (WeightFile::Open, LoadModel).
//
// Input layout (tests/fuzz/make_gguf_corpus.py writes seeds in it):
//   byte 0     options: value % (weight types + 1): 0 keeps each tensor's type (no --dtype),
//              k stores matrices as the k-th weight type (--dtype)
//   the rest   the GGUF image
//
// Invariants (abort with a message on violation; ASan/UBSan and libFuzzer's malloc limit catch
// out-of-bounds reads, huge allocations and hangs):
//   - every refusal comes with a non-empty message;
//   - every tensor the reader accepts lies inside the image, with bytes = its type's size;
//   - a conversion that succeeds serializes, the runtime opens the file and loads the model,
//     and the loaded config is the one the import derived.
#include <cstdint>
#include <string>
#include <vector>

#include "attnrt/runtime/weight_file.h"
#include "convert/gguf_file.h"
#include "convert/gguf_import.h"
#include "convert/weight_file_writer.h"
#include "converted_model_check.h"

namespace attnrt {
namespace {

void Require(bool ok, const char* what, const std::string& detail) {
  if (!ok) fuzz::Die("gguf_input_fuzzer", what, detail);
}

void RequireMessage(const char* step, const std::string& error) {
  Require(!error.empty(), "a refusal without a message", step);
}

void CheckTensors(const GgufFile& gguf, const std::vector<uint8_t>& image) {
  for (const GgufTensorInfo& t : gguf.tensors) {
    const GgmlTypeInfo* info = FindGgmlType(t.type);
    Require(info != nullptr, "an accepted tensor of an unknown type", t.name);
    Require(t.elements % info->block == 0 && t.bytes == t.elements / info->block * info->bytes,
            "a tensor's bytes are not its type's size", t.name);
    Require(t.data >= image.data() && t.bytes <= image.size() &&
                static_cast<size_t>(t.data - image.data()) <= image.size() - t.bytes,
            "a tensor outside the image", t.name);
  }
}

void CheckConverted(const WeightFileWriter& writer, const ModelConfig& config) {
  std::vector<uint8_t> bytes;
  WeightFile file;
  fuzz::RequireOpens("gguf_input_fuzzer", writer, &bytes, &file);
  fuzz::RequireLoadsAs("gguf_input_fuzzer", file, config);
}

}  // namespace
}  // namespace attnrt

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attnrt;
  if (size < 1) return 0;
  const size_t pick = data[0] % (kWeightTypeCount + 1);
  const WeightType dtype = kWeightTypes[pick == 0 ? 0 : pick - 1].type;
  // The image in a heap block of exactly its size, so ASan sees any read past its end.
  const std::vector<uint8_t> image(data + 1, data + size);

  std::string error;
  GgufFile gguf;
  if (!ReadGguf(image.data(), image.size(), "model.gguf", &gguf, &error)) {
    RequireMessage("reader", error);
    return 0;
  }
  CheckTensors(gguf, image);
  WeightFileWriter writer;
  ModelConfig config;
  GgufImport import;
  error.clear();
  if (!PrepareGgufConversion(gguf, "model.gguf", &writer, &config, &import, &error)) {
    RequireMessage("config", error);
    return 0;
  }
  std::vector<GgufTensorNote> notes;
  error.clear();
  const MatrixTypeRequest types = pick == 0 ? MatrixTypeRequest{} : AllMatricesAs(dtype);
  if (!AddGgufTensors(import, config, gguf, "model.gguf", types, &writer, &notes, &error)) {
    RequireMessage("tensors", error);
    return 0;
  }
  CheckConverted(writer, config);
  return 0;
}
