// llama.cpp's tokenizer as a GGUF file describes it (the tokenizer.* keys, kept by `attnrt
// convert` as one JSON object: docs/gguf.md) translated into what the engine loads from a
// tokenizer.json, so one engine runs both:
//  - tokenizer.ggml.model "llama" (llama.cpp's llm_tokenizer_spm): the text of each stretch
//    between special tokens gets a leading space (add_space_prefix), spaces become U+2581,
//    then UTF-8 characters merge pairwise, the pair whose joined text is the token of the
//    highest score first (leftmost on equal scores), characters that are no token falling
//    back to <0xNN> byte tokens. That is the BPE model with byte_fallback and, as merges,
//    every split of every token into two tokens, ranked by the joined token's score (equal
//    scores share a rank);
//  - "gpt2" (llm_tokenizer_bpe): the split regexes tokenizer.ggml.pre names (gguf_pre.h),
//    GPT-2's byte-to-character map, and tokenizer.ggml.merges in their order.
// Tokens of type control (3), user-defined (4) and unknown (2) (after llama.cpp's changes by
// text: gguf_token_rules.h) are found whole in the text
// before anything else, as llama.cpp's tokenize with special tokens parsed does; the special
// ids and add_bos_token / add_eos_token give what is added around the text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/bpe_model.h"
#include "tokenizer/compact_form.h"
#include "tokenizer/json_fields.h"

namespace attnrt::tok {

// A tokenizer.json without the model's vocabulary and merges, a tokenizer_config.json, and
// the vocabulary and merges as tables: the parts of the engine's compact form.
struct GgufTokenizer {
  Json root;           // BOS / EOS as a TemplateProcessing post-processor
  std::string config;  // clean_up_tokenization_spaces: llama.cpp's clean_spaces
  std::vector<std::string> tokens;         // by id
  std::vector<BpeModel::MergeRow> merges;  // ranked, in no particular order
  // The tables as BpeModel::AppendTables writes them.
  void WriteTables(CompactWriter* out) const;
};

// `meta` maps "tokenizer.*" keys to their values. Fails naming the key when the model or the
// pre-tokenizer is not known, an array is damaged (its length differs from the token list's,
// an element of the wrong type) or a merge names no token.
bool TranslateGgufTokenizer(const Json& meta, GgufTokenizer* out, std::string* error);

}  // namespace attnrt::tok
