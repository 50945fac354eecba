// The Hugging Face families attnrt imports: for each `architectures` class name, the
// attnrt record it becomes and what the importer must know beyond that record's own
// Hugging Face names (ConfigKey::hf_name, TensorRecord::hf_name):
// - the class's config defaults (save_pretrained leaves out keys at their default, so
//   an absent key means the class default, not attnrt's);
// - the config.json keys it accepts without mapping them: ignored (no effect on
//   inference) or accepted only at one value (an option attnrt does not run);
// - a config step for what is not a plain rename (rope_scaling, layer_types, ...);
// - a tensor step for what is not a plain rename (fused projections, Conv1D, 1 + w).
// Everything else in config.json is refused by name. Host-only (tools layer).
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "attnrt/models/model_config.h"
#include "host/safetensors.h"

namespace attnrt {

// A config.json key the family accepts but does not map to a record key.
struct HfKeyRule {
  const char* key;
  // nullptr: any value is accepted (it does not change inference); otherwise the JSON
  // values accepted, '|'-separated ("false", "\"silu\"", "null|1").
  const char* accepted;
};

struct HfFamily {
  const char* architecture;  // config.json's "architectures" entry, e.g. "LlamaForCausalLM"
  const char* model_type;    // config.json's "model_type"
  Architecture arch;         // the attnrt record it becomes
  const char* defaults;      // the config class's defaults, as JSON text
  const HfKeyRule* rules;
  size_t rule_count;
  // After renaming, for what is not a rename; `hf` is config.json over the defaults.
  bool (*translate_config)(const nlohmann::json& hf, nlohmann::json* ours, std::string* error);
  // On the checkpoint's tensors (Hugging Face names) before they are renamed.
  bool (*reshape_tensors)(const ModelConfig& c, SafetensorsFile* st, std::string* error);
};

// The family of an `architectures` class name, or nullptr.
const HfFamily* FindHfFamily(const std::string& architecture);
// Every supported class name, comma separated, for messages and help.
std::string HfFamilyNames();

// Keys no family maps and every family accepts: bookkeeping and training-only settings.
extern const HfKeyRule kHfCommonRules[];
extern const size_t kHfCommonRuleCount;

}  // namespace attnrt
