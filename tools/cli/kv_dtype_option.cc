#include "cli/kv_dtype_option.h"

namespace attnrt::cli {

void AddKvDtypeOption(CLI::App* cmd, std::string* value, const std::string& what) {
  cmd->add_option("--kv-dtype", *value,
                  "KV cache storage: f32, f16, or q8 (int8 with one f32 scale per row of "
                  "head_dim values); " + what)
      ->capture_default_str()
      ->check(CLI::IsMember({"f32", "f16", "q8"}));
}

KvType KvDtype(const std::string& name) {
  if (name == "f16") return KvType::kF16;
  if (name == "q8") return KvType::kQ8;
  return KvType::kF32;
}

}  // namespace attnrt::cli
