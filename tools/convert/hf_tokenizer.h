// What a Hugging Face folder says about text, stored in the model file beside the kept JSON
// files (hf_import.h):
//   AddHfEosTokens        generation_config.json's eos_token_id (else config.json's): an id or
//                         a list, as typed metadata (attnrt/models/lm_eos.h).
//   AddCompactTokenizer   tokenizer.json + tokenizer_config.json in the engine's compact form
//                         (Tokenizer::kCompactMetadataKey), so loading the tokenizer of a model
//                         file skips parsing the JSON.
// No file I/O and no printing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convert/hf_import.h"
#include "convert/weight_file_writer.h"

namespace attnrt {

// The eos ids the folder's files give (none when neither says); refuses by name an
// eos_token_id that is not a token id in [0, vocab) or a list of them.
bool HfEosTokens(const HfFolderFiles& files, size_t vocab, std::vector<int64_t>* ids,
                 std::string* error);
// HfEosTokens as typed metadata.
bool AddHfEosTokens(const HfFolderFiles& files, size_t vocab, WeightFileWriter* writer,
                    std::string* error);

// Does nothing for a folder without tokenizer.json. False (with *error) when the engine
// cannot load the tokenizer: the caller decides whether that stops the conversion.
bool AddCompactTokenizer(const HfFolderFiles& files, WeightFileWriter* writer,
                         std::string* error);

}  // namespace attnrt
