// llama.cpp's BPE pre-tokenizers by the name a GGUF file gives in tokenizer.ggml.pre
// (llama.cpp's llama-vocab.cpp): the split regexes, applied one after another, each keeping
// its matches and the text between them as separate pieces, and what else the name sets
// (ignore_merges, add_bos, clean_spaces). Only names listed here are known; a file naming
// another is refused by the caller with KnownGgufPreNames().
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnrt::tok {

struct GgufPre {
  std::vector<std::string> regexes;
  bool ignore_merges = false;  // a whole piece that is a token is taken as it is
  bool add_bos = false;        // the default of tokenizer.ggml.add_bos_token
  bool clean_spaces = true;    // llama.cpp's detokenize removes spaces before punctuation
};

// False when llama.cpp (at the version tests/llamacpp pins) does not know `name` or attnrt
// does not implement it. An empty name is llama.cpp's fallback, "default".
bool FindGgufPre(std::string_view name, GgufPre* out);
std::string KnownGgufPreNames();

}  // namespace attnrt::tok
