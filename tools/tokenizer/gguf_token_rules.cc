// ApplyLlamaCppTokenRules (see gguf_token_rules.h).
#include "tokenizer/gguf_token_rules.h"

#include <cstddef>

namespace attnrt::tok {
namespace {

constexpr int kControl = 3, kUserDefined = 4;

constexpr const char* kEndOfGeneration[] = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
    "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
    "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<\xef\xbd\x9c" "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>", "[e~["};

constexpr const char* kRendered[] = {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"};

// A fill-in-the-middle kind: the keys that give its id, and the texts llama.cpp looks for.
struct FimKind {
  const char* keys[2];
  const char* texts[8];
};

// "<｜" and "｜>" are U+FF5C; "▁" is U+2581.
#define FW "\xef\xbd\x9c"
#define SP "\xe2\x96\x81"
constexpr FimKind kFim[] = {
    {{"tokenizer.ggml.fim_pre_token_id", "tokenizer.ggml.prefix_token_id"},
     {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<" FW "fim" SP "begin" FW ">", "<PRE>",
      SP "<PRE>", "<|code_prefix|>", "<|prefix|>"}},
    {{"tokenizer.ggml.fim_suf_token_id", "tokenizer.ggml.suffix_token_id"},
     {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<" FW "fim" SP "hole" FW ">", "<SUF>",
      SP "<SUF>", "<|code_suffix|>", "<|suffix|>"}},
    {{"tokenizer.ggml.fim_mid_token_id", "tokenizer.ggml.middle_token_id"},
     {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<" FW "fim" SP "end" FW ">", "<MID>",
      SP "<MID>", "<|code_middle|>", "<|middle|>"}},
    {{"tokenizer.ggml.fim_pad_token_id", nullptr},
     {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}},
    {{"tokenizer.ggml.fim_rep_token_id", nullptr},
     {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}},
    {{"tokenizer.ggml.fim_sep_token_id", nullptr}, {"<|file_sep|>"}},
};
#undef FW
#undef SP

// Sets the type of the token with this text, if there is one.
void SetType(const std::unordered_map<std::string, uint32_t>& ids, const char* text, int type,
             std::vector<int>* types) {
  if (text == nullptr) return;
  const auto it = ids.find(text);
  if (it != ids.end()) (*types)[it->second] = type;
}

// Whether the file gives a usable id of this kind (llama.cpp then looks for no text).
bool HasId(const Json& meta, const FimKind& kind, size_t n) {
  for (const char* key : kind.keys) {
    if (key == nullptr) continue;
    const auto it = meta.find(key);
    if (it != meta.end() && it->is_number_integer() && it->get<int64_t>() >= 0 &&
        static_cast<uint64_t>(it->get<int64_t>()) < n) {
      return true;
    }
  }
  return false;
}

}  // namespace

void ApplyLlamaCppTokenRules(const Json& meta, const std::unordered_map<std::string, uint32_t>& ids,
                             std::vector<int>* types) {
  for (const char* text : kEndOfGeneration) SetType(ids, text, kControl, types);
  for (const FimKind& kind : kFim) {
    if (HasId(meta, kind, types->size())) continue;
    for (const char* text : kind.texts) SetType(ids, text, kControl, types);
  }
  for (const char* text : kRendered) SetType(ids, text, kUserDefined, types);
}

}  // namespace attnrt::tok
