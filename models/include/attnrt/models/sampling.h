// Choosing the next token from a language model's logits: greedy, or sampled
// with temperature, top-k and top-p (nucleus), as Hugging Face's generate
// applies them (temperature, then top-k, then top-p over the softmax).
//
// Deterministic everywhere: the random numbers come from a 64-bit generator
// whose state the caller keeps (same seed, same tokens on every platform). No
// allocation: the caller passes scratch of `vocab` floats and indices.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/runtime/status.h"

namespace attnrt {

struct SamplingParams {
  float temperature = 0.0f;  // 0: greedy (argmax; the first of equal maxima, as torch.argmax)
  size_t top_k = 0;          // 0: no top-k filter
  float top_p = 1.0f;        // 1: no nucleus filter; keep the fewest tokens whose mass reaches p
};

// The generator state for a seed (any value, 0 included).
uint64_t SamplingSeed(uint64_t seed);
// A uniform float in [0, 1) from the state, advancing it.
float SamplingUniform(uint64_t* state);

// Refuses logits no token can be chosen from soundly: a NaN or +inf (the softmax
// is undefined; greedy would pick token 0 or a meaningless maximum), or no
// finite logit at all. -inf is a masked token. The message names the token.
Status CheckLogits(const float* logits, size_t vocab);

// The index of the next token. logits has `vocab` floats; NaN logits are never
// chosen (all NaN: 0). probabilities and order are scratch of `vocab` elements.
size_t SampleToken(const float* logits, size_t vocab, const SamplingParams& params,
                   uint64_t* state, float* probabilities, uint32_t* order);

}  // namespace attnrt
