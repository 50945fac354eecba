/* The tokenizer C API (attnrt/tokenizer.h) and attnrt_lm_eos from C99, on a converted model
 * with a tokenizer. tests/python/chat_test.py converts the model, asks `attnrt tokenize` for
 * the ids of TEXT and runs:
 *
 *   capi_tokenizer_test MODEL_WITH_TOKENIZER MODEL_WITHOUT TEXT IDS EOS
 *
 * IDS is "1,2,3" (add_special_tokens=True), EOS the model's eos ids "1,2" ("" for none).
 * Checks the ids and the round trip, the size reports of small buffers, the refusals, and
 * that a warm call allocates nothing (malloc is wrapped and counted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attnrt/attnrt.h"
#include "attnrt/tokenizer.h"

static int failures = 0;
static size_t mallocs = 0;

void* __real_malloc(size_t size);
void* __wrap_malloc(size_t size) {
  ++mallocs;
  return __real_malloc(size);
}

#define CHECK(cond)                                               \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                 \
    }                                                             \
  } while (0)

static size_t ParseIds(const char* text, int32_t* ids, size_t capacity) {
  size_t n = 0;
  const char* p = text;
  while (*p != '\0' && n < capacity) {
    ids[n++] = (int32_t)strtol(p, (char**)&p, 10);
    if (*p == ',') ++p;
  }
  return n;
}

static unsigned char* ReadFile(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* data;
  long n;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  data = (unsigned char*)malloc((size_t)n);
  if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

int main(int argc, char** argv) {
  size_t bytes = 0, other_bytes = 0, count = 0, length = 0, n_want, n_eos, before;
  unsigned char* file;
  unsigned char* other;
  attnrt_tokenizer* t = NULL;
  attnrt_tokenizer* none = NULL;
  attnrt_message message;
  attnrt_model* m;
  int32_t want[4096], ids[4096], eos_want[64], eos[64];
  char text[8192];
  const char bad_utf8[] = "ab\xff";
  if (argc != 6) {
    fprintf(stderr, "usage: %s MODEL_WITH_TOKENIZER MODEL_WITHOUT TEXT IDS EOS\n", argv[0]);
    return 2;
  }
  file = ReadFile(argv[1], &bytes);
  other = ReadFile(argv[2], &other_bytes);
  if (file == NULL || other == NULL) {
    fprintf(stderr, "cannot read the model files\n");
    free(file);
    free(other);
    return 2;
  }
  n_want = ParseIds(argv[4], want, 4096);
  n_eos = ParseIds(argv[5], eos_want, 64);

  CHECK(attnrt_tokenizer_open(&t, file, bytes, &message) == ATTNRT_OK);
  if (t == NULL) {
    fprintf(stderr, "open: %s\n", message.text);
    return 1;
  }
  /* Too small: the size needed is reported, nothing written. */
  ids[0] = -7;
  CHECK(attnrt_tokenize(t, argv[3], strlen(argv[3]), 1, ids, 0, &count) ==
        ATTNRT_BUFFER_TOO_SMALL);
  CHECK(count == n_want);
  CHECK(ids[0] == -7);
  CHECK(strstr(attnrt_tokenizer_message(t), "tokens but ids holds 0") != NULL);
  /* The ids `attnrt tokenize` gives, and no heap once warm. */
  before = mallocs;
  CHECK(attnrt_tokenize(t, argv[3], strlen(argv[3]), 1, ids, 4096, &count) == ATTNRT_OK);
  CHECK(count == n_want && memcmp(ids, want, n_want * sizeof(int32_t)) == 0);
  printf("attnrt_tokenize (warm): %zu malloc calls\n", mallocs - before);
  /* Round trip without the special tokens. */
  CHECK(attnrt_tokenize(t, argv[3], strlen(argv[3]), 0, ids, 4096, &count) == ATTNRT_OK);
  CHECK(attnrt_detokenize(t, ids, count, 1, text, 1, &length) == ATTNRT_BUFFER_TOO_SMALL);
  CHECK(length == strlen(argv[3]));
  before = mallocs;
  CHECK(attnrt_detokenize(t, ids, count, 1, text, sizeof(text), &length) == ATTNRT_OK);
  printf("attnrt_detokenize (warm): %zu malloc calls\n", mallocs - before);
  CHECK(length == strlen(argv[3]) && strcmp(text, argv[3]) == 0);
  /* Refusals. */
  CHECK(attnrt_tokenize(t, bad_utf8, 3, 1, ids, 4096, &count) == ATTNRT_INVALID_ARGUMENT);
  ids[0] = -1;
  CHECK(attnrt_detokenize(t, ids, 1, 0, text, sizeof(text), &length) == ATTNRT_INVALID_ARGUMENT);
  CHECK(strstr(attnrt_tokenizer_message(t), "negative") != NULL);
  CHECK(attnrt_tokenize(t, NULL, 5, 1, ids, 4096, &count) == ATTNRT_INVALID_ARGUMENT);
  CHECK(attnrt_tokenize(NULL, "a", 1, 1, ids, 4096, &count) == ATTNRT_INVALID_ARGUMENT);
  attnrt_tokenizer_close(t);
  attnrt_tokenizer_close(NULL);

  /* A model without a tokenizer is refused by name. */
  CHECK(attnrt_tokenizer_open(&none, other, other_bytes, &message) == ATTNRT_UNSUPPORTED);
  CHECK(none == NULL && strstr(message.text, "no tokenizer") != NULL);
  CHECK(attnrt_tokenizer_open(&none, file, 16, &message) == ATTNRT_BAD_FILE);

  /* attnrt_lm_eos. */
  m = (attnrt_model*)malloc(sizeof(attnrt_model));
  CHECK(attnrt_model_open(m, file, bytes) == ATTNRT_OK);
  CHECK(attnrt_lm_eos(m, eos, 64, &count) == ATTNRT_OK);
  CHECK(count == n_eos && memcmp(eos, eos_want, n_eos * sizeof(int32_t)) == 0);
  if (n_eos > 0) {
    CHECK(attnrt_lm_eos(m, eos, 0, &count) == ATTNRT_BUFFER_TOO_SMALL);
    CHECK(count == n_eos);
  }
  CHECK(attnrt_lm_eos(m, NULL, 0, NULL) == ATTNRT_INVALID_ARGUMENT);
  CHECK(attnrt_model_open(m, other, other_bytes) == ATTNRT_OK);
  CHECK(attnrt_lm_eos(m, eos, 64, &count) == ATTNRT_OK && count == 0);
  CHECK(strcmp(attnrt_status_name(ATTNRT_BUFFER_TOO_SMALL), "buffer too small") == 0);
  free(m);
  free(file);
  free(other);
  if (failures == 0) printf("capi_tokenizer_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
