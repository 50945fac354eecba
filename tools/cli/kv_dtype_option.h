// --kv-dtype: the storage type of a KV cache (f32, f16 or q8; kernels/kv_store.h), one option
// definition for every command that takes it (generate, run, plan, bench lm, bench, sdpa).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "attnrt/kernels/kv_type.h"

namespace attnrt::cli {

// Adds --kv-dtype to `cmd`, validated to f32 | f16 | q8; `what` ends its help text.
void AddKvDtypeOption(CLI::App* cmd, std::string* value, const std::string& what);

// The type of a value the option accepted.
KvType KvDtype(const std::string& name);

}  // namespace attnrt::cli
