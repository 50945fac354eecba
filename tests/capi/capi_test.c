/* The C API (attnrt/attnrt.h) from C99: every function, its error paths, and
 * its results against the C++ API's (capi_reference.cc) bit for bit.
 * malloc/calloc/realloc are wrapped (-Wl,--wrap) and counted: no call between
 * the first attnrt_model_open and the last C API call may use the heap.
 * Usage: capi_test ENCODER_MODEL.attnrt LM_MODEL.attnrt */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attnrt/attnrt.h"
#include "attnrt/thread_pool.h"
#include "c_test_support.h"
#include "capi_reference.h"

/* ---- heap counting ---- */
void* __real_malloc(size_t n);
void* __real_calloc(size_t n, size_t size);
void* __real_realloc(void* p, size_t n);
static int g_counting = 0;
static size_t g_heap_calls = 0;
void* __wrap_malloc(size_t n) {
  g_heap_calls += (size_t)g_counting;
  return __real_malloc(n);
}
void* __wrap_calloc(size_t n, size_t size) {
  g_heap_calls += (size_t)g_counting;
  return __real_calloc(n, size);
}
void* __wrap_realloc(void* p, size_t n) {
  g_heap_calls += (size_t)g_counting;
  return __real_realloc(p, n);
}

/* ---- checks (c_test_support.h) ---- */
static int contains(const char* text, const char* part) { return strstr(text, part) != NULL; }

/* ---- buffers: everything is allocated before counting starts ---- */
#define ARENA_BYTES (8u << 20)
static void* g_arena;      /* ARENA_BYTES + 64, 64-byte aligned */
static void* g_encoder;    /* the encoder file, 64-byte aligned */
static size_t g_encoder_bytes;
static void* g_lm;
static size_t g_lm_bytes;
static void* g_scratch;    /* a copy of a file to damage */

/* ---- a deterministic executor: 3 workers, ranges run in order ---- */
static size_t split_workers(void* self) { return *(const size_t*)self; }
static void split_parallel_for(void* self, size_t items, attnrt_work_fn fn, void* context) {
  size_t workers = *(const size_t*)self, w;
  for (w = 0; w < workers; ++w) {
    size_t begin = items * w / workers, end = items * (w + 1) / workers;
    if (begin < end) fn(context, begin, end, w);
  }
}
static size_t g_three = 3;
static size_t g_zero = 0;

/* ---- the model: open errors, plan, run, executor ---- */
#define BATCH 2
#define SEQ 7
#define DIM 64
static float g_x[BATCH * SEQ * DIM];
static float g_want[BATCH * SEQ * DIM];
static float g_want3[BATCH * SEQ * DIM];
static float g_y[BATCH * SEQ * DIM];

static void test_open_errors(void) {
  static attnrt_model m; /* static: a handle as firmware would declare it */
  memset(g_scratch, 0x5a, 512);
  CHECK_STATUS(attnrt_model_open(&m, g_scratch, 512), ATTNRT_BAD_FILE);
  CHECK(contains(attnrt_model_message(&m), "magic"));
  CHECK_STATUS(attnrt_model_open(&m, NULL, 512), ATTNRT_INVALID_ARGUMENT);
  CHECK(strcmp(attnrt_model_message(&m), "ok") != 0);
  CHECK_STATUS(attnrt_model_open(&m, g_encoder, 100), ATTNRT_BAD_FILE); /* truncated header */
  CHECK_STATUS(attnrt_model_open(&m, g_encoder, g_encoder_bytes - 1), ATTNRT_BAD_FILE);
  memcpy(g_scratch, g_encoder, g_encoder_bytes);
  ((unsigned char*)g_scratch)[g_encoder_bytes - 5] ^= 0x10; /* one bit of a weight */
  CHECK_STATUS(attnrt_model_open(&m, g_scratch, g_encoder_bytes), ATTNRT_BAD_FILE);
  CHECK(contains(attnrt_model_message(&m), "checksum"));
  /* A handle whose open failed refuses everything with a message. */
  {
    size_t bytes = 123;
    CHECK(attnrt_model_input_dim(&m) == 0);
    CHECK(attnrt_model_output_dim(&m) == 0);
    CHECK(attnrt_lm_vocab(&m) == 0);
    CHECK_STATUS(attnrt_model_plan(&m, 1, 1, &bytes), ATTNRT_INVALID_ARGUMENT);
    CHECK(bytes == 123);
    CHECK(contains(attnrt_model_message(&m), "not open"));
    CHECK_STATUS(attnrt_model_run(&m, g_x, 1, 1, g_y, g_arena, ARENA_BYTES), ATTNRT_INVALID_ARGUMENT);
    CHECK_STATUS(attnrt_lm_plan(&m, 8, &bytes), ATTNRT_INVALID_ARGUMENT);
  }
  CHECK_STATUS(attnrt_model_open(NULL, g_encoder, g_encoder_bytes), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_model_plan(NULL, 1, 1, NULL), ATTNRT_INVALID_ARGUMENT);
}

static void test_model(void) {
  static attnrt_model m;
  size_t bytes = 0, bytes3 = 0, i;
  attnrt_executor three, broken;
  CHECK_STATUS(attnrt_model_open(&m, g_encoder, g_encoder_bytes), ATTNRT_OK);
  CHECK(strcmp(attnrt_model_message(&m), "ok") == 0);
  CHECK(attnrt_model_input_dim(&m) == DIM);
  CHECK(attnrt_model_output_dim(&m) == DIM);
  CHECK(attnrt_lm_vocab(&m) == 0);

  CHECK_STATUS(attnrt_model_plan(&m, BATCH, SEQ, &bytes), ATTNRT_OK);
  CHECK(bytes > 0 && bytes <= ARENA_BYTES);
  CHECK_STATUS(attnrt_model_plan(&m, BATCH, SEQ, NULL), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_model_plan(&m, (size_t)-1, (size_t)-1, &bytes3), ATTNRT_OVERFLOW);

  /* Exactly the plan: bit for bit the C++ API's output. */
  memset(g_y, 0, sizeof(g_y));
  CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y, g_arena, bytes), ATTNRT_OK);
  CHECK(memcmp(g_y, g_want, sizeof(g_y)) == 0);
  /* One byte less: refused with the numbers. */
  CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y, g_arena, bytes - 1), ATTNRT_ARENA_TOO_SMALL);
  CHECK(contains(attnrt_model_message(&m), "arena too small"));
  CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y, (char*)g_arena + 4, bytes), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_model_message(&m), "aligned"));
  CHECK_STATUS(attnrt_model_run(&m, NULL, BATCH, SEQ, g_y, g_arena, bytes), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, NULL, g_arena, bytes), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y, NULL, bytes), ATTNRT_INVALID_ARGUMENT);
  /* A run at a shorter sequence fits the longer one's plan. */
  CHECK_STATUS(attnrt_model_run(&m, g_x, 1, 3, g_y, g_arena, bytes), ATTNRT_OK);

  /* Executors: a broken one is refused; three workers plan for three scratch
   * slices and match the C++ API run with the same split. */
  broken.self = &g_zero;
  broken.workers = split_workers;
  broken.parallel_for = split_parallel_for;
  CHECK_STATUS(attnrt_model_set_executor(&m, &broken), ATTNRT_INVALID_ARGUMENT);
  broken.parallel_for = NULL;
  broken.self = &g_three;
  CHECK_STATUS(attnrt_model_set_executor(&m, &broken), ATTNRT_INVALID_ARGUMENT);
  three.self = &g_three;
  three.workers = split_workers;
  three.parallel_for = split_parallel_for;
  CHECK_STATUS(attnrt_model_set_executor(&m, &three), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_plan(&m, BATCH, SEQ, &bytes3), ATTNRT_OK);
  CHECK(bytes3 > bytes);
  CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y, g_arena, bytes3 - 1), ATTNRT_ARENA_TOO_SMALL);
  memset(g_y, 0, sizeof(g_y));
  CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y, g_arena, bytes3), ATTNRT_OK);
  CHECK(memcmp(g_y, g_want3, sizeof(g_y)) == 0);
  CHECK_STATUS(attnrt_model_set_executor(&m, NULL), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_plan(&m, BATCH, SEQ, &bytes3), ATTNRT_OK);
  CHECK(bytes3 == bytes);
  for (i = 0; i < BATCH * SEQ * DIM; ++i) {
    if (!isfinite(g_want[i])) break;
  }
  CHECK(i == BATCH * SEQ * DIM);
  /* The encoder is not a language model. */
  CHECK_STATUS(attnrt_lm_plan(&m, 8, &bytes), ATTNRT_INVALID_ARGUMENT);
}

/* ---- the language model ---- */
#define MAX_SEQ 24
#define STEPS 12
#define VOCAB 256
static const int32_t kPrompt[] = {'I', 'n', ' ', 't', 'h', 'e', ' '};
#define PROMPT_LEN (sizeof(kPrompt) / sizeof(kPrompt[0]))
static int32_t g_want_tokens[STEPS];
static float g_want_logits[(STEPS + 1) * VOCAB];
static float g_logits[VOCAB];
static float g_probabilities[VOCAB];
static uint32_t g_order[VOCAB];

static void test_lm(void) {
  static attnrt_model m;
  static attnrt_lm lm;
  size_t bytes = 0, i;
  int32_t token, bad;
  CHECK_STATUS(attnrt_model_open(&m, g_lm, g_lm_bytes), ATTNRT_OK);
  CHECK(attnrt_lm_vocab(&m) == VOCAB);
  CHECK_STATUS(attnrt_lm_plan(&m, MAX_SEQ, &bytes), ATTNRT_OK);
  CHECK(bytes > 0 && bytes <= ARENA_BYTES);
  CHECK_STATUS(attnrt_lm_plan(&m, 100000, &bytes), ATTNRT_INVALID_ARGUMENT); /* > max_seq_len */
  CHECK_STATUS(attnrt_lm_plan(&m, MAX_SEQ, &bytes), ATTNRT_OK);
  /* The language model takes tokens, not rows of floats. */
  CHECK(attnrt_model_run(&m, g_x, 1, 1, g_y, g_arena, ARENA_BYTES) != ATTNRT_OK);

  CHECK_STATUS(attnrt_lm_start(&lm, &m, MAX_SEQ, g_arena, bytes - 1), ATTNRT_ARENA_TOO_SMALL);
  CHECK(contains(attnrt_lm_message(&lm), "arena too small"));
  CHECK_STATUS(attnrt_lm_feed(&lm, kPrompt, PROMPT_LEN, g_logits), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_lm_message(&lm), "not started"));
  CHECK_STATUS(attnrt_lm_start(&lm, NULL, MAX_SEQ, g_arena, bytes), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_lm_start(&lm, &m, 0, g_arena, bytes), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_lm_start(&lm, &m, MAX_SEQ, g_arena, bytes), ATTNRT_OK);
  CHECK(attnrt_lm_position(&lm) == 0);

  /* Prompt, then greedy steps: the same logits and tokens as LmSession. */
  CHECK_STATUS(attnrt_lm_feed(&lm, kPrompt, PROMPT_LEN, g_logits), ATTNRT_OK);
  CHECK(memcmp(g_logits, g_want_logits, sizeof(g_logits)) == 0);
  for (i = 0; i < STEPS; ++i) {
    CHECK_STATUS(attnrt_sample(g_logits, VOCAB, NULL, NULL, NULL, NULL, &token), ATTNRT_OK);
    CHECK(token == g_want_tokens[i]);
    CHECK_STATUS(attnrt_lm_feed(&lm, &token, 1, g_logits), ATTNRT_OK);
    CHECK(memcmp(g_logits, g_want_logits + (i + 1) * VOCAB, sizeof(g_logits)) == 0);
  }
  CHECK(attnrt_lm_position(&lm) == PROMPT_LEN + STEPS);

  /* Refusals change nothing: out-of-range tokens, past max_seq, nothing to feed. */
  bad = VOCAB;
  CHECK_STATUS(attnrt_lm_feed(&lm, &bad, 1, g_logits), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_lm_message(&lm), "outside the vocabulary"));
  bad = -1;
  CHECK_STATUS(attnrt_lm_feed(&lm, &bad, 1, g_logits), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_lm_message(&lm), "-1"));
  CHECK_STATUS(attnrt_lm_feed(&lm, kPrompt, MAX_SEQ - PROMPT_LEN - STEPS + 1, NULL), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_lm_message(&lm), "max_seq"));
  CHECK_STATUS(attnrt_lm_feed(&lm, kPrompt, 0, NULL), ATTNRT_INVALID_ARGUMENT);
  CHECK(attnrt_lm_position(&lm) == PROMPT_LEN + STEPS);
  /* Up to max_seq exactly is fine (no logits wanted). */
  CHECK_STATUS(attnrt_lm_feed(&lm, kPrompt, MAX_SEQ - PROMPT_LEN - STEPS, NULL), ATTNRT_OK);
  CHECK(attnrt_lm_position(&lm) == MAX_SEQ);
  CHECK_STATUS(attnrt_lm_feed(&lm, kPrompt, 1, NULL), ATTNRT_INVALID_ARGUMENT);

  /* Reset: the same prompt gives the same logits again. */
  attnrt_lm_reset(&lm);
  CHECK(attnrt_lm_position(&lm) == 0);
  memset(g_logits, 0, sizeof(g_logits));
  CHECK_STATUS(attnrt_lm_feed(&lm, kPrompt, PROMPT_LEN, g_logits), ATTNRT_OK);
  CHECK(memcmp(g_logits, g_want_logits, sizeof(g_logits)) == 0);
  attnrt_lm_reset(NULL); /* harmless */
  CHECK_STATUS(attnrt_lm_feed(NULL, kPrompt, 1, NULL), ATTNRT_INVALID_ARGUMENT);
}

/* A session with an f16 and a q8 KV cache: a smaller plan, and the same logits and
 * tokens as LmSession with that cache type. */
static int32_t g_want_typed_tokens[2][STEPS];
static float g_want_typed_logits[2][(STEPS + 1) * VOCAB];
static const attnrt_kv_type kTypedKv[2] = {ATTNRT_KV_F16, ATTNRT_KV_Q8};

static void test_lm_typed_kv(void) {
  static attnrt_model m, encoder;
  static attnrt_lm lm;
  size_t f32_bytes = 0, bytes = 0, i, t;
  int32_t token;
  CHECK_STATUS(attnrt_model_open(&m, g_lm, g_lm_bytes), ATTNRT_OK);
  CHECK_STATUS(attnrt_lm_plan(&m, MAX_SEQ, &f32_bytes), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_set_kv_type(&m, (attnrt_kv_type)3), ATTNRT_UNSUPPORTED); /* bf16 */
  CHECK(contains(attnrt_model_message(&m), "KV-cache type 3"));
  CHECK_STATUS(attnrt_model_set_kv_type(&m, (attnrt_kv_type)0), ATTNRT_UNSUPPORTED);
  CHECK_STATUS(attnrt_lm_plan(&m, MAX_SEQ, &bytes), ATTNRT_OK); /* a refusal kept f32 */
  CHECK(bytes == f32_bytes);
  CHECK_STATUS(attnrt_model_open(&encoder, g_encoder, g_encoder_bytes), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_set_kv_type(&encoder, ATTNRT_KV_F16), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_model_message(&encoder), "language models only"));

  for (t = 0; t < 2; ++t) {
    CHECK_STATUS(attnrt_model_set_kv_type(&m, kTypedKv[t]), ATTNRT_OK);
    CHECK_STATUS(attnrt_lm_plan(&m, MAX_SEQ, &bytes), ATTNRT_OK);
    CHECK(bytes < f32_bytes);
    CHECK_STATUS(attnrt_lm_start(&lm, &m, MAX_SEQ, g_arena, bytes), ATTNRT_OK);
    CHECK_STATUS(attnrt_lm_feed(&lm, kPrompt, PROMPT_LEN, g_logits), ATTNRT_OK);
    CHECK(memcmp(g_logits, g_want_typed_logits[t], sizeof(g_logits)) == 0);
    for (i = 0; i < STEPS; ++i) {
      CHECK_STATUS(attnrt_sample(g_logits, VOCAB, NULL, NULL, NULL, NULL, &token), ATTNRT_OK);
      CHECK(token == g_want_typed_tokens[t][i]);
      CHECK_STATUS(attnrt_lm_feed(&lm, &token, 1, g_logits), ATTNRT_OK);
      CHECK(memcmp(g_logits, g_want_typed_logits[t] + (i + 1) * VOCAB, sizeof(g_logits)) == 0);
    }
  }
  /* The typed cache changes the numbers (else the comparison above proves little). */
  CHECK(memcmp(g_want_typed_logits[1], g_want_logits, sizeof(g_logits)) != 0);
}

/* ---- sampling ---- */
static int32_t g_want_sampled[3];

static void test_sampling(void) {
  attnrt_sampling p;
  uint64_t state;
  int32_t token = -7;
  memcpy(g_logits, g_want_logits, sizeof(g_logits));
  p.temperature = 0.9f;
  p.top_k = 40;
  p.top_p = 0.95f;
  state = attnrt_sampling_seed(1234);
  CHECK_STATUS(attnrt_sample(g_logits, VOCAB, &p, &state, g_probabilities, g_order, &token), ATTNRT_OK);
  CHECK(token == g_want_sampled[0]);
  p.top_k = 0;
  p.top_p = 1.0f;
  state = attnrt_sampling_seed(99);
  CHECK_STATUS(attnrt_sample(g_logits, VOCAB, &p, &state, g_probabilities, g_order, &token), ATTNRT_OK);
  CHECK(token == g_want_sampled[1]);
  p.temperature = 0.0f; /* greedy */
  CHECK_STATUS(attnrt_sample(g_logits, VOCAB, &p, NULL, NULL, NULL, &token), ATTNRT_OK);
  CHECK(token == g_want_sampled[2]);
  /* Bad input is refused, never sampled. */
  p.temperature = -1.0f;
  CHECK_STATUS(attnrt_sample(g_logits, VOCAB, &p, &state, g_probabilities, g_order, &token), ATTNRT_INVALID_ARGUMENT);
  p.temperature = (float)NAN;
  CHECK_STATUS(attnrt_sample(g_logits, VOCAB, &p, &state, g_probabilities, g_order, &token), ATTNRT_INVALID_ARGUMENT);
  p.temperature = 1.0f;
  p.top_p = 0.0f;
  CHECK_STATUS(attnrt_sample(g_logits, VOCAB, &p, &state, g_probabilities, g_order, &token), ATTNRT_INVALID_ARGUMENT);
  p.top_p = 1.0f;
  CHECK_STATUS(attnrt_sample(g_logits, VOCAB, &p, &state, NULL, g_order, &token), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_sample(g_logits, 0, NULL, NULL, NULL, NULL, &token), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_sample(NULL, VOCAB, NULL, NULL, NULL, NULL, &token), ATTNRT_INVALID_ARGUMENT);
}

/* ---- SDPA on raw buffers ---- */
static attnrt_sdpa_params sdpa_one_query(const float* q, const float* k, const float* v, float* out) {
  attnrt_sdpa_params p;
  memset(&p, 0, sizeof(p));
  p.batch = p.q_heads = p.kv_heads = 1;
  p.q_len = 1;
  p.kv_len = 2;
  p.qk_dim = p.v_dim = 1;
  p.q = q;
  p.k = k;
  p.v = v;
  p.out = out;
  p.scale = 1.0f;
  return p;
}

static void test_sdpa(void) {
  /* Scores 0 and log 3: weights 1/4 and 3/4 of values 4 and 8. */
  const float q[1] = {1.0f}, v[2] = {4.0f, 8.0f};
  float k[2], out[1] = {0.0f}, weights[2] = {0.0f, 0.0f};
  const unsigned char keep_first[2] = {1, 0};
  attnrt_sdpa_params p;
  attnrt_message msg;
  size_t bytes = 0;
  attnrt_executor three;
  k[0] = 0.0f;
  k[1] = (float)log(3.0);
  p = sdpa_one_query(q, k, v, out);
  CHECK_STATUS(attnrt_sdpa_plan(&p, NULL, &bytes, &msg), ATTNRT_OK);
  CHECK(bytes <= ARENA_BYTES);
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, bytes, &msg), ATTNRT_OK);
  CHECK(fabsf(out[0] - 7.0f) < 1e-5f);
  /* Weights, from the variant that returns them (auto picks it). */
  p.weights = weights;
  CHECK_STATUS(attnrt_sdpa_plan(&p, NULL, &bytes, &msg), ATTNRT_OK);
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, bytes, &msg), ATTNRT_OK);
  CHECK(fabsf(weights[0] - 0.25f) < 1e-6f && fabsf(weights[1] - 0.75f) < 1e-6f);
  p.kernel = "hwy-flash";
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, &msg), ATTNRT_UNSUPPORTED);
  CHECK(contains(msg.text, "weights"));
  p.weights = NULL;
  p.kernel = "reference";
  out[0] = 0.0f;
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, NULL), ATTNRT_OK);
  CHECK(fabsf(out[0] - 7.0f) < 1e-5f);
  p.kernel = "no-such-kernel";
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, &msg), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(msg.text, "no-such-kernel"));
  p.kernel = NULL;
  /* A bool mask that hides the second key: the output is the first value. */
  p.mask_kind = ATTNRT_MASK_BOOL;
  p.mask = keep_first;
  p.mask_batch = p.mask_heads = 1;
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, &msg), ATTNRT_OK);
  CHECK(fabsf(out[0] - 4.0f) < 1e-6f);
  p.mask_batch = 2; /* does not broadcast to batch 1 */
  CHECK(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, &msg) != ATTNRT_OK);
  p.mask = NULL;
  p.mask_batch = 1;
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, &msg), ATTNRT_INVALID_ARGUMENT);
  p.mask_kind = (attnrt_mask_kind)7;
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, &msg), ATTNRT_INVALID_ARGUMENT);
  p.mask_kind = ATTNRT_MASK_NONE;
  /* Causal upper-left with one query sees only the first key. */
  p.causal = ATTNRT_CAUSAL_UPPER_LEFT;
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, &msg), ATTNRT_OK);
  CHECK(fabsf(out[0] - 4.0f) < 1e-6f);
  p.causal = (attnrt_causal)9;
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, &msg), ATTNRT_INVALID_ARGUMENT);
  p.causal = ATTNRT_CAUSAL_NONE;
  /* Shapes that do not fit: query heads not a multiple of key/value heads. */
  p.q_heads = 3;
  p.kv_heads = 2;
  CHECK(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, &msg) != ATTNRT_OK);
  CHECK(strlen(msg.text) > 0 && strcmp(msg.text, "ok") != 0);
  p.q_heads = p.kv_heads = 1;
  p.scale = (float)INFINITY;
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, &msg), ATTNRT_INVALID_ARGUMENT);
  p.scale = 0.0f; /* default 1/sqrt(1) = 1 */
  CHECK_STATUS(attnrt_sdpa(&p, NULL, g_arena, ARENA_BYTES, &msg), ATTNRT_OK);
  CHECK(fabsf(out[0] - 7.0f) < 1e-5f);
  CHECK_STATUS(attnrt_sdpa(NULL, NULL, g_arena, ARENA_BYTES, &msg), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_sdpa_plan(&p, NULL, NULL, &msg), ATTNRT_INVALID_ARGUMENT);
  /* A larger call through the executor: its plan is exact. */
  {
    static float Q[2 * 4 * 33 * 16], K[2 * 2 * 45 * 16], V[2 * 2 * 45 * 8], O[2 * 4 * 33 * 8];
    size_t i;
    for (i = 0; i < sizeof(Q) / sizeof(Q[0]); ++i) Q[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (i = 0; i < sizeof(K) / sizeof(K[0]); ++i) K[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    for (i = 0; i < sizeof(V) / sizeof(V[0]); ++i) V[i] = (float)((i * 3) % 17) / 17.0f;
    memset(&p, 0, sizeof(p));
    p.batch = 2;
    p.q_heads = 4;
    p.kv_heads = 2;
    p.q_len = 33;
    p.kv_len = 45;
    p.qk_dim = 16;
    p.v_dim = 8;
    p.q = Q;
    p.k = K;
    p.v = V;
    p.out = O;
    p.causal = ATTNRT_CAUSAL_LOWER_RIGHT;
    three.self = &g_three;
    three.workers = split_workers;
    three.parallel_for = split_parallel_for;
    CHECK_STATUS(attnrt_sdpa_plan(&p, &three, &bytes, &msg), ATTNRT_OK);
    CHECK(bytes > 0);
    CHECK_STATUS(attnrt_sdpa(&p, &three, g_arena, bytes - 1, &msg), ATTNRT_ARENA_TOO_SMALL);
    CHECK(contains(msg.text, "arena too small"));
    CHECK_STATUS(attnrt_sdpa(&p, &three, g_arena, bytes, &msg), ATTNRT_OK);
    for (i = 0; i < sizeof(O) / sizeof(O[0]); ++i) {
      if (!(O[i] >= 0.0f && O[i] <= 1.0f)) break; /* a convex mix of values in [0, 1] */
    }
    CHECK(i == sizeof(O) / sizeof(O[0]));
  }
}

/* ---- the host thread pool (allocates: outside the counted section) ---- */
static void test_thread_pool(void) {
  static attnrt_model m;
  attnrt_thread_pool* pool = NULL;
  attnrt_executor e;
  attnrt_message msg;
  size_t bytes = 0, i;
  size_t off = 0;
  CHECK_STATUS(attnrt_thread_pool_create(2, NULL, &msg), ATTNRT_INVALID_ARGUMENT);
  e = attnrt_thread_pool_executor(NULL);
  CHECK_STATUS(attnrt_model_open(&m, g_encoder, g_encoder_bytes), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_set_executor(&m, &e), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_thread_pool_create(2, &pool, &msg), ATTNRT_OK);
  if (pool == NULL) return;
  e = attnrt_thread_pool_executor(pool);
  CHECK(e.workers(e.self) == 2);
  CHECK_STATUS(attnrt_model_set_executor(&m, &e), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_plan(&m, BATCH, SEQ, &bytes), ATTNRT_OK);
  memset(g_y, 0, sizeof(g_y));
  CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y, g_arena, bytes), ATTNRT_OK);
  for (i = 0; i < BATCH * SEQ * DIM; ++i) {
    if (!(fabsf(g_y[i] - g_want[i]) < 1e-5f)) ++off; /* NaN counts as off */
  }
  CHECK(off == 0);
  attnrt_thread_pool_destroy(pool);
  attnrt_thread_pool_destroy(NULL);
}

int main(int argc, char** argv) {
  size_t i;
  attnrt_status s;
  if (argc != 3) {
    fprintf(stderr, "usage: %s ENCODER_MODEL LM_MODEL\n", argv[0]);
    return 2;
  }
  g_arena = aligned(ARENA_BYTES + 64);
  g_encoder = read_file(argv[1], &g_encoder_bytes);
  g_lm = read_file(argv[2], &g_lm_bytes);
  g_scratch = aligned(g_encoder_bytes + 64);
  if (g_arena == NULL || g_encoder == NULL || g_lm == NULL || g_scratch == NULL) {
    fprintf(stderr, "cannot read the models\n");
    return 2;
  }
  for (i = 0; i < BATCH * SEQ * DIM; ++i) g_x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
  /* The C++ API's answers, before the heap is watched. */
  if (ref_model_run(g_encoder, g_encoder_bytes, g_x, BATCH, SEQ, 1, 0, g_want, NULL) != 0 ||
      ref_model_run(g_encoder, g_encoder_bytes, g_x, BATCH, SEQ, 3, 0, g_want3, NULL) != 0 ||
      ref_lm_greedy(g_lm, g_lm_bytes, MAX_SEQ, ATTNRT_KV_F32, 0, 0, kPrompt, PROMPT_LEN, STEPS,
                    g_want_tokens, g_want_logits, NULL) != 0 ||
      ref_lm_greedy(g_lm, g_lm_bytes, MAX_SEQ, ATTNRT_KV_F16, 0, 0, kPrompt, PROMPT_LEN, STEPS,
                    g_want_typed_tokens[0], g_want_typed_logits[0], NULL) != 0 ||
      ref_lm_greedy(g_lm, g_lm_bytes, MAX_SEQ, ATTNRT_KV_Q8, 0, 0, kPrompt, PROMPT_LEN, STEPS,
                    g_want_typed_tokens[1], g_want_typed_logits[1], NULL) != 0 ||
      ref_sample(g_want_logits, VOCAB, 0.9f, 40, 0.95f, 1234, &g_want_sampled[0]) != 0 ||
      ref_sample(g_want_logits, VOCAB, 0.9f, 0, 1.0f, 99, &g_want_sampled[1]) != 0 ||
      ref_sample(g_want_logits, VOCAB, 0.0f, 0, 1.0f, 0, &g_want_sampled[2]) != 0) {
    return 2;
  }
  printf("capi_test: reference ready\n");
  fflush(stdout);

  CHECK(strcmp(attnrt_status_name(ATTNRT_OK), "ok") == 0);
  CHECK(strcmp(attnrt_status_name(ATTNRT_ARENA_TOO_SMALL), "arena too small") == 0);
  CHECK(strcmp(attnrt_status_name((attnrt_status)42), "unknown") == 0);
  s = ATTNRT_OK;
  CHECK(s == 0);

  g_counting = 1;
  test_open_errors();
  test_model();
  test_lm();
  test_lm_typed_kv();
  test_sampling();
  test_sdpa();
  g_counting = 0;
  CHECK(g_heap_calls == 0);
  test_thread_pool();

  printf("capi_test: %d checks, %d failed, %zu heap calls in the C API\n", g_checks, g_failures,
         g_heap_calls);
  return g_failures == 0 ? 0 : 1;
}
