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

#include <string>
#include <vector>

#include "tokenizer/json_fields.h"

namespace attnrt::tok {

// `types[i]` is the type of `tokens[i]` (llama_token_type); `meta` the tokenizer.* keys.
void ApplyLlamaCppTokenRules(const Json& meta, const std::vector<std::string>& tokens,
                             std::vector<int>* types);

}  // namespace attnrt::tok
