// The token types llama.cpp changes by a token's text when it loads a GGUF vocabulary
// (llama_vocab::impl::load, at the version tests/llamacpp pins), whatever
// tokenizer.ggml.token_type says:
//  - end-of-generation texts ("<|im_end|>", "<|endoftext|>", "</s>", "<|eot_id|>", ...)
//    become control tokens;
//  - fill-in-the-middle texts ("<|fim_prefix|>", "<PRE>", ...) become control tokens when the
//    file gives no id of that kind (llama.cpp takes the first it meets in a hash map; every
//    match is taken here);
//  - gpt-oss's "<|channel|>", "<|message|>", "<|start|>", "<|constrain|>" become user-defined.
// A control token is found whole in text and left out of decoded text, so these change ids.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenizer/json_fields.h"

namespace attnrt::tok {

// `ids` maps each token's text to its id, `types[id]` is its type (llama_token_type); `meta`
// is the tokenizer.* keys.
void ApplyLlamaCppTokenRules(const Json& meta, const std::unordered_map<std::string, uint32_t>& ids,
                             std::vector<int>* types);

}  // namespace attnrt::tok
