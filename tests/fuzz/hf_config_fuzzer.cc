// libFuzzer target for the config step of importing a Hugging Face folder
// (convert/hf_import.h PrepareHfConversion): the input is config.json, which comes from
// a downloaded folder and so is untrusted. It is parsed, its family found, its keys laid
// over the family's defaults, checked against the family's rules and translated to the
// record's keys (rope_scaling, layer_types, partial_rotary_factor, n_inner), written as
// metadata and read back as the runtime reads it.
//
// Invariants (abort with a message on violation; ASan/UBSan catch the rest):
//   - every refusal comes with a message that names the config file;
//   - an accepted config derives a language-model config whose sizes the runtime can
//     plan: a session of a few positions is either accepted or refused with a message.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "attnrt/models/language_model.h"
#include "attnrt/models/model.h"
#include "convert/hf_import.h"
#include "convert/weight_file_writer.h"

namespace {

[[noreturn]] void Die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "hf_config_fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attnrt;
  HfFolderFiles files;
  files.dir = "folder";
  files.texts["config.json"] = std::string(reinterpret_cast<const char*>(data), size);
  WeightFileWriter writer;
  ModelConfig config;
  HfImport import;
  std::string error;
  if (!PrepareHfConversion(files, &writer, &config, &import, &error)) {
    if (error.find("config.json") == std::string::npos) Die("refusal without the file's name", error);
    return 0;
  }
  if (import.family == nullptr) Die("accepted without a family", "");
  if (!ArchitectureIsLanguageModel(config.arch)) Die("a family that is not a language model", "");
  if (config.num_layers == 0 || config.num_layers > kMaxLayers) Die("layer count", error);
  // The sizes must be plannable or refused clearly; a Model with no weights is enough to
  // check the shape (CheckLmShape reads the config only).
  Model model;
  model.config = config;
  LmShape shape;
  shape.max_seq = config.max_seq_len < 4 ? config.max_seq_len : 4;
  const Status st = CheckLmShape(model, shape, nullptr);
  if (!st.ok() && st.message()[0] == '\0') Die("a shape refused without a message", "");
  return 0;
}
