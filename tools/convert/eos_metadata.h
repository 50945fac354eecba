// Writes a language model's eos ids as the typed metadata attnrt/models/lm_eos.h defines, for
// every importer (a Hugging Face folder's generation_config.json, a GGUF file's
// tokenizer.ggml.eos/eot/eom ids). No file I/O and no printing.
#pragma once

#include <cstdint>
#include <vector>

#include "convert/weight_file_writer.h"

namespace attnrt {

// Nothing for no ids. The ids must already be checked against the vocabulary; at most
// kMaxEosTokens (the caller refuses more by name).
void WriteEosTokenIds(const std::vector<int64_t>& ids, WeightFileWriter* writer);

}  // namespace attnrt
