// ReadDecoderConfig: the config of a decoder-only language model (every LM record:
// llama, qwen2, qwen3, gemma3, gpt2), read back from a weight file's metadata
// (internal to models/). The keys a family accepts are its record's; this reader
// reads each optional one only when the file has it, so one reader serves them all
// and files written before a key existed read as they always did.
#pragma once

#include "attnrt/models/model_config.h"
#include "attnrt/runtime/weight_file.h"

namespace attnrt {

Status ReadDecoderConfig(const WeightFile& file, ModelConfig* c);

}  // namespace attnrt
