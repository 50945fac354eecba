// The architecture table and reading a config back from a weight file's
// metadata (see model_config.h). The records themselves live in arch_*.cc.
#include "attnrt/models/model_config.h"

#include <cstring>

#include "architecture_record.h"
#include "attnrt/runtime/weight_file.h"

namespace attnrt {
namespace {

// In Architecture's order; RecordFor checks it.
const ArchitectureRecord* const kRecords[] = {
    &kMhaRecord,     &kEncoderLayerRecord, &kSelfAttentionRecord,
    &kSingleHeadRecord, &kEncoderRecord,   &kVitRecord, &kLlamaRecord,
};
constexpr size_t kRecordCount = sizeof(kRecords) / sizeof(kRecords[0]);

}  // namespace

const ArchitectureRecord& RecordFor(Architecture arch) {
  for (const ArchitectureRecord* r : kRecords) {
    if (r->arch == arch) return *r;
  }
  return *kRecords[0];
}

const char* ArchitectureName(Architecture arch) { return RecordFor(arch).name; }
const char* ArchitectureModule(Architecture arch) { return RecordFor(arch).torch_module; }
bool ArchitectureTakesImages(Architecture arch) { return RecordFor(arch).image_input; }
bool ArchitectureIsLanguageModel(Architecture arch) { return RecordFor(arch).language_model; }
size_t ArchitectureCount() { return kRecordCount; }
Architecture ArchitectureAt(size_t i) { return kRecords[i < kRecordCount ? i : 0]->arch; }

const char* ArchitectureNames() {
  return "mha, encoder-layer, self-attention, single-head, encoder, vit, llama";
}

Status ParseArchitecture(const char* name, Architecture* arch) {
  for (const ArchitectureRecord* r : kRecords) {
    if (std::strcmp(r->name, name) == 0) {
      *arch = r->arch;
      return Status::Ok();
    }
  }
  return Status::Error(StatusCode::kInvalidArgument, "unknown architecture '%s' (expected %s)",
                       name, ArchitectureNames());
}

const ConfigKey* ArchitectureConfigKeys(Architecture arch, size_t* count) {
  const ArchitectureRecord& r = RecordFor(arch);
  *count = r.key_count;
  return r.keys;
}

Status ReadModelConfig(const WeightFile& file, ModelConfig* c) {
  const char* arch_name;
  size_t len;
  ATTNRT_RETURN_IF_ERROR(file.GetString("arch", &arch_name, &len));
  Architecture arch;
  Status st = ParseArchitecture(arch_name, &arch);
  if (!st.ok()) return Status::Error(StatusCode::kBadFile, "%s", st.message());
  *c = ModelConfig{};
  c->arch = arch;
  return RecordFor(arch).read_config(file, c);
}

}  // namespace attnrt
