// Reading config values back from a weight file's metadata, checked (internal
// to models/). Every architecture record's read_config is written with these.
#pragma once

#include <cstddef>

#include "attnrt/models/model_config.h"
#include "attnrt/runtime/weight_file.h"

namespace attnrt {

// A positive dimension up to 2^24 (which keeps every derived size product far from overflow).
Status ReadDim(const WeightFile& file, const char* key, size_t* out);
// An optional positive dimension: *out = 0 when the key is absent (files written
// before it existed, or a config that leaves it out); present, it must be an
// integer in 1..2^24 (0 is refused: "absent" has its own spelling).
Status ReadOptionalDim(const WeightFile& file, const char* key, size_t* out);
// An optional float or string: *present = false when the key is absent; present
// with another type, an error naming the key.
Status ReadOptionalFloat(const WeightFile& file, const char* key, double* out, bool* present);
Status ReadOptionalString(const WeightFile& file, const char* key, const char** out,
                          bool* present);
// A 0/1 flag; `fallback` when the key is absent (files written before the key existed).
Status ReadBool(const WeightFile& file, const char* key, bool fallback, bool* out);
// A LayerNorm epsilon in (0, 1).
Status ReadEps(const WeightFile& file, const char* key, float* out);
// A dropout probability in [0, 1) (inference ignores it, but a bad value is a bad config).
Status ReadProbability(const WeightFile& file, const char* key);
// "relu" or "gelu".
Status ReadActivation(const WeightFile& file, const char* key, Activation* out);
// is_causal (absent = false): a causal model applies the upper-left rule itself.
Status ReadIsCausal(const WeightFile& file, ModelConfig* c);
// model_dim = out_dim = dim, heads, and qk_dim = v_dim = dim / heads (which must divide).
Status SplitHeads(const char* dim_key, size_t dim, size_t heads, ModelConfig* c);

}  // namespace attnrt
