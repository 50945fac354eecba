/* The C++ API's answers for the C API test (capi_test.c): the same model,
 * run through attnrt::LoadModel / RunModel / LmSession / SampleToken directly.
 * Each returns 0 on success, nonzero (after printing why) on failure. */
#ifndef ATTNRT_TESTS_CAPI_REFERENCE_H_
#define ATTNRT_TESTS_CAPI_REFERENCE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `activations` below is an attnrt::LinearActivations code (0 auto, 1 f32), as
 * attnrt_activations is. */

/* One forward pass with `workers` workers (1: serial; more: the same
 * deterministic range split as the test's C executor); *arena_bytes (may be NULL)
 * gets the plan's size. */
int ref_model_run(const void* file, size_t file_bytes, const float* x, size_t batch, size_t seq,
                  size_t workers, int activations, float* y, size_t* arena_bytes);

/* Feeds prompt (one call), then `steps` greedy tokens one at a time, with the KV
 * cache stored as kv_type (attnrt::KvType code: 1 f32, 2 f16, 4 q8); writes the
 * generated tokens and, after every feed, that feed's logits to
 * logits + i * vocab (steps + 1 rows); *arena_bytes (may be NULL) gets the plan's size.
 * `packed`: the model's panel copies made first (attnrt::PackModelWeights). */
int ref_lm_greedy(const void* file, size_t file_bytes, size_t max_seq, int kv_type,
                  int activations, int packed, const int32_t* prompt, size_t prompt_len,
                  size_t steps, int32_t* tokens, float* logits, size_t* arena_bytes);

/* attnrt::SampleToken with temperature/top_k/top_p from a seeded state. */
int ref_sample(const float* logits, size_t vocab, float temperature, size_t top_k, float top_p,
               uint64_t seed, int32_t* token);

#ifdef __cplusplus
}
#endif

#endif
