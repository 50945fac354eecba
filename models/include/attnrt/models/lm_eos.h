// A language model's end-of-sequence token ids, as a converter stores them: typed int
// metadata kEosCountKey (how many) and "lm.eos_token_id.<i>" for i in [0, count). `attnrt
// convert HF_DIR` takes them from generation_config.json's eos_token_id (an id or a list), else
// config.json's, as transformers' generate does. A file without them has none (0 ids).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/runtime/status.h"
#include "attnrt/runtime/weight_file.h"

namespace attnrt {

constexpr const char* kEosCountKey = "lm.eos_token_count";
constexpr const char* kEosIdKeyPrefix = "lm.eos_token_id.";
constexpr size_t kMaxEosTokens = 64;

// The key of eos id `index` (< kMaxEosTokens) in `key` (at least 24 bytes).
void EosIdKey(size_t index, char* key, size_t key_bytes);

// Writes up to `capacity` ids to `ids` (may be null when capacity is 0) and the number the
// file holds to *count; each id is checked against [0, vocab). A count above capacity is
// kBufferTooSmall naming both (ids then holds the first `capacity`).
Status LmEosTokens(const WeightFile& file, size_t vocab, int32_t* ids, size_t capacity,
                   size_t* count);

}  // namespace attnrt
