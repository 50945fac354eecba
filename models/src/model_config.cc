// The architecture table and reading a config back from a weight file's
// metadata (see model_config.h). The records themselves live in arch_*.cc.
#include "attnrt/models/model_config.h"

#include <cstring>

#include "architecture_record.h"
#include "rope_check.h"
#include "attnrt/runtime/weight_file.h"

namespace attnrt {
namespace {

// Generated from the one list, so index i is Architecture i.
const ArchitectureRecord* const kRecords[] = {
#define ATTNRT_ARCHITECTURE(enumerator, name, record) &record,
#include "attnrt/models/architectures.inc"
#undef ATTNRT_ARCHITECTURE
};
const char* const kNames[] = {
#define ATTNRT_ARCHITECTURE(enumerator, name, record) name,
#include "attnrt/models/architectures.inc"
#undef ATTNRT_ARCHITECTURE
};
// ", mha, encoder-layer, ..., llama": ArchitectureNames skips the first ", ".
constexpr char kNameList[] =
#define ATTNRT_ARCHITECTURE(enumerator, name, record) ", " name
#include "attnrt/models/architectures.inc"
#undef ATTNRT_ARCHITECTURE
    ;
constexpr size_t kRecordCount = sizeof(kRecords) / sizeof(kRecords[0]);

size_t IndexOf(Architecture arch) {
  const size_t i = static_cast<size_t>(arch);
  return i < kRecordCount ? i : 0;
}

}  // namespace

const ArchitectureRecord& RecordFor(Architecture arch) { return *kRecords[IndexOf(arch)]; }

const char* ArchitectureName(Architecture arch) { return kNames[IndexOf(arch)]; }
const char* ArchitectureModule(Architecture arch) { return RecordFor(arch).torch_module; }
bool ArchitectureTakesImages(Architecture arch) { return RecordFor(arch).image_input; }
bool ArchitectureIsLanguageModel(Architecture arch) {
  return RecordFor(arch).lm_recipe != nullptr;
}
size_t ArchitectureCount() { return kRecordCount; }
Architecture ArchitectureAt(size_t i) { return static_cast<Architecture>(i < kRecordCount ? i : 0); }

const char* ArchitectureNames() { return kNameList + 2; }

Status ParseArchitecture(const char* name, Architecture* arch) {
  for (size_t i = 0; i < kRecordCount; ++i) {
    if (std::strcmp(kNames[i], name) == 0) {
      *arch = static_cast<Architecture>(i);
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
  ATTNRT_RETURN_IF_ERROR(RecordFor(arch).read_config(file, c));
  return CheckRopeTable(*c);  // tables the config implies must be finite (rope_check.h)
}

}  // namespace attnrt
