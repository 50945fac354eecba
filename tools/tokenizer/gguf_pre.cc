// The table of llama.cpp's pre-tokenizer names (see gguf_pre.h).
#include "tokenizer/gguf_pre.h"

namespace attnrt::tok {
namespace {

// The regexes, as llama.cpp's llm_tokenizer_bpe lists them (its "adapted" forms, which spell
// the case-insensitive contractions out).
constexpr const char* kGpt2 =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
constexpr const char* kLlama3 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|)"
    R"(\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kQwen2 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|)"
    R"(\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kGpt4o =
    R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+)"
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|)"
    R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*)"
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|)"
    R"(\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

enum class Split { kDefault, kGpt2, kLlama3, kQwen2, kSmollm, kGpt4o, kFalcon };

struct Entry {
  const char* name;
  Split split;
  bool ignore_merges, add_bos, clean_spaces;
};

// Name -> what llama_vocab::impl::load sets for it.
constexpr Entry kEntries[] = {
    {"default", Split::kDefault, false, false, true},
    {"llama3", Split::kLlama3, true, true, true},
    {"llama-v3", Split::kLlama3, true, true, true},
    {"llama-bpe", Split::kLlama3, true, true, true},
    {"falcon3", Split::kLlama3, true, true, true},
    {"pixtral", Split::kLlama3, true, true, true},
    {"dbrx", Split::kLlama3, false, false, true},
    {"smaug-bpe", Split::kLlama3, false, false, true},
    {"gpt-2", Split::kGpt2, false, false, true},
    {"phi-2", Split::kGpt2, false, false, true},
    {"mpt", Split::kGpt2, false, false, true},
    {"olmo", Split::kGpt2, false, false, true},
    {"jais", Split::kGpt2, false, false, true},
    {"exaone4", Split::kGpt2, false, false, true},
    {"qwen2", Split::kQwen2, false, false, false},
    {"deepseek-r1-qwen", Split::kQwen2, false, false, false},
    {"stablelm2", Split::kQwen2, false, false, true},
    {"megrez", Split::kQwen2, false, false, true},
    {"smollm", Split::kSmollm, false, false, false},
    {"starcoder", Split::kSmollm, false, false, true},
    {"refact", Split::kSmollm, false, false, true},
    {"command-r", Split::kSmollm, false, false, false},
    {"codeshell", Split::kSmollm, false, false, true},
    {"gpt-4o", Split::kGpt4o, false, false, false},
    {"llama4", Split::kGpt4o, false, false, false},
    {"falcon", Split::kFalcon, false, false, true},
};

std::vector<std::string> Regexes(Split split) {
  switch (split) {
    case Split::kDefault:
      return {R"([\p{P}\$\+<=>\^~\|]+)", kGpt2, R"(\p{N}+)", "[0-9][0-9][0-9]"};
    case Split::kGpt2: return {kGpt2};
    case Split::kLlama3: return {kLlama3};
    case Split::kQwen2: return {kQwen2};
    case Split::kSmollm: return {R"(\p{N})", kGpt2};
    case Split::kGpt4o: return {kGpt4o};
    case Split::kFalcon:
      return {R"([\p{P}\$\+<=>\^~\|`]+)", kGpt2, "[0-9][0-9][0-9]"};
  }
  return {};
}

}  // namespace

bool FindGgufPre(std::string_view name, GgufPre* out) {
  if (name.empty()) name = "default";
  for (const Entry& e : kEntries) {
    if (name != e.name) continue;
    out->regexes = Regexes(e.split);
    out->ignore_merges = e.ignore_merges;
    out->add_bos = e.add_bos;
    out->clean_spaces = e.clean_spaces;
    return true;
  }
  return false;
}

std::string KnownGgufPreNames() {
  std::string names;
  for (const Entry& e : kEntries) names += (names.empty() ? "" : ", ") + std::string(e.name);
  return names;
}

}  // namespace attnrt::tok
