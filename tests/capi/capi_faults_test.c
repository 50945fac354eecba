/* Faults a C caller can cause (issue 34): each must end in a status, never in
 * a crash or a silently wrong answer.
 *  - a model handle re-opened under a running session (item 1);
 *  - an executor whose workers() drops to 0 after it was set (item 3);
 *  - attnrt_sample over logits that are not finite (item 9).
 * Usage: capi_faults_test ENCODER_MODEL.attnrt LM_MODEL.attnrt */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attnrt/attnrt.h"

static int g_failures = 0;
#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      ++g_failures;                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);  \
    }                                                                           \
  } while (0)

static void* read_aligned(const char* path, size_t* bytes) {
  FILE* f = fopen(path, "rb");
  void* data = NULL;
  long size;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (size > 0 && posix_memalign(&data, 64, (size_t)size) == 0 &&
      fread(data, 1, (size_t)size, f) != (size_t)size) {
    data = NULL;
  }
  fclose(f);
  *bytes = (size_t)size;
  return data;
}

/* An executor whose worker count the test changes after handing it over. */
static size_t g_workers = 1;
static size_t count_workers(void* self) { return *(const size_t*)self; }
static void serial_for(void* self, size_t items, attnrt_work_fn fn, void* context) {
  (void)self;
  if (items > 0) fn(context, 0, items, 0);
}

#define ARENA_BYTES (8u << 20)
#define MAX_SEQ 32
static const int32_t kPrompt[] = {'I', 'n', ' ', 't', 'h', 'e'};
#define PROMPT_LEN (sizeof(kPrompt) / sizeof(kPrompt[0]))

static void test_reopen_under_session(const void* lm_file, size_t lm_bytes, void* arena) {
  static attnrt_model m;
  static attnrt_lm lm;
  static float logits[1024];
  size_t bytes = 0;
  CHECK(attnrt_model_open(&m, lm_file, lm_bytes) == ATTNRT_OK);
  CHECK(attnrt_lm_vocab(&m) <= 1024);
  CHECK(attnrt_lm_plan(&m, MAX_SEQ, &bytes) == ATTNRT_OK && bytes <= ARENA_BYTES);
  CHECK(attnrt_lm_start(&lm, &m, MAX_SEQ, arena, bytes) == ATTNRT_OK);
  CHECK(attnrt_lm_feed(&lm, kPrompt, PROMPT_LEN, logits) == ATTNRT_OK);
  /* The same bytes again: still a new model, planned for nothing the session holds. */
  CHECK(attnrt_model_open(&m, lm_file, lm_bytes) == ATTNRT_OK);
  CHECK(attnrt_lm_feed(&lm, kPrompt, 1, logits) == ATTNRT_INVALID_ARGUMENT);
  CHECK(strstr(attnrt_lm_message(&lm), "re-opened") != NULL);
  /* A session started on the new model runs. */
  CHECK(attnrt_lm_start(&lm, &m, MAX_SEQ, arena, bytes) == ATTNRT_OK);
  CHECK(attnrt_lm_feed(&lm, kPrompt, PROMPT_LEN, logits) == ATTNRT_OK);
}

static void test_executor_drops_to_zero(const void* lm_file, size_t lm_bytes, void* arena) {
  static attnrt_model m;
  static attnrt_lm lm;
  static float logits[1024];
  attnrt_executor e;
  size_t bytes = 0;
  e.self = &g_workers;
  e.workers = count_workers;
  e.parallel_for = serial_for;
  g_workers = 1;
  CHECK(attnrt_model_open(&m, lm_file, lm_bytes) == ATTNRT_OK);
  CHECK(attnrt_model_set_executor(&m, &e) == ATTNRT_OK);
  CHECK(attnrt_lm_plan(&m, MAX_SEQ, &bytes) == ATTNRT_OK && bytes <= ARENA_BYTES);
  CHECK(attnrt_lm_start(&lm, &m, MAX_SEQ, arena, bytes) == ATTNRT_OK);
  g_workers = 0;
  CHECK(attnrt_lm_feed(&lm, kPrompt, PROMPT_LEN, logits) != ATTNRT_OK);
  CHECK(strstr(attnrt_lm_message(&lm), "workers() returned 0") != NULL);
  g_workers = 1;
  CHECK(attnrt_lm_feed(&lm, kPrompt, PROMPT_LEN, logits) == ATTNRT_OK);
}

static void test_sample_not_finite(void) {
  float logits[4] = {1.0f, 3.0f, 2.0f, 0.5f};
  int32_t token = -1;
  CHECK(attnrt_sample(logits, 4, NULL, NULL, NULL, NULL, &token) == ATTNRT_OK && token == 1);
  logits[2] = NAN;
  CHECK(attnrt_sample(logits, 4, NULL, NULL, NULL, NULL, &token) == ATTNRT_INVALID_ARGUMENT);
  logits[2] = INFINITY;
  CHECK(attnrt_sample(logits, 4, NULL, NULL, NULL, NULL, &token) == ATTNRT_INVALID_ARGUMENT);
  logits[2] = -INFINITY; /* -inf is a masked token, not a fault */
  CHECK(attnrt_sample(logits, 4, NULL, NULL, NULL, NULL, &token) == ATTNRT_OK && token == 1);
}

int main(int argc, char** argv) {
  size_t lm_bytes = 0;
  void* lm_file;
  void* arena = NULL;
  if (argc != 3) {
    fprintf(stderr, "usage: %s ENCODER_MODEL LM_MODEL\n", argv[0]);
    return 2;
  }
  lm_file = read_aligned(argv[2], &lm_bytes);
  if (lm_file == NULL || posix_memalign(&arena, 64, ARENA_BYTES) != 0) {
    fprintf(stderr, "cannot read %s\n", argv[2]);
    return 2;
  }
  test_reopen_under_session(lm_file, lm_bytes, arena);
  test_executor_drops_to_zero(lm_file, lm_bytes, arena);
  test_sample_not_finite();
  printf("capi_faults_test: %d failed\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
