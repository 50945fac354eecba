/* What capi_test.c and capi_activations_test.c share: CHECK(cond) and CHECK_STATUS(call,
 * want), which count every check and print each failure with its line (main returns
 * g_failures == 0), and a whole file read into a 64-byte aligned buffer (the C API maps
 * nothing; the caller owns the bytes). One copy per test program (static), so the includer
 * defines _POSIX_C_SOURCE (posix_memalign) before any include. */
#ifndef ATTNRT_TESTS_CAPI_C_TEST_SUPPORT_H_
#define ATTNRT_TESTS_CAPI_C_TEST_SUPPORT_H_

#include <stdio.h>
#include <stdlib.h>

#include "attnrt/attnrt.h"

static int g_failures = 0;
static int g_checks = 0;
#define CHECK(cond)                                                            \
  do {                                                                         \
    ++g_checks;                                                                \
    if (!(cond)) {                                                             \
      ++g_failures;                                                            \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)
#define CHECK_STATUS(call, want)                                                     \
  do {                                                                               \
    attnrt_status got_ = (call);                                                     \
    ++g_checks;                                                                      \
    if (got_ != (want)) {                                                            \
      ++g_failures;                                                                  \
      fprintf(stderr, "%s:%d: %s returned %s, want %s\n", __FILE__, __LINE__, #call, \
              attnrt_status_name(got_), attnrt_status_name(want));                   \
    }                                                                                \
  } while (0)

static void* aligned(size_t bytes) {
  void* p = NULL;
  if (posix_memalign(&p, 64, bytes) != 0) return NULL;
  return p;
}

static void* read_file(const char* path, size_t* bytes) {
  FILE* f = fopen(path, "rb");
  void* data;
  long size;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  data = aligned((size_t)size);
  if (data != NULL && fread(data, 1, (size_t)size, f) != (size_t)size) data = NULL;
  fclose(f);
  *bytes = (size_t)size;
  return data;
}

#endif /* ATTNRT_TESTS_CAPI_C_TEST_SUPPORT_H_ */
