// WriteEosTokenIds (see eos_metadata.h).
#include "convert/eos_metadata.h"

#include "attnrt/models/lm_eos.h"

namespace attnrt {

void WriteEosTokenIds(const std::vector<int64_t>& ids, WeightFileWriter* writer) {
  if (ids.empty()) return;
  writer->SetInt(kEosCountKey, static_cast<int64_t>(ids.size()));
  for (size_t i = 0; i < ids.size(); ++i) {
    char key[48];
    EosIdKey(i, key, sizeof(key));
    writer->SetInt(key, ids[i]);
  }
}

}  // namespace attnrt
