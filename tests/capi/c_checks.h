/* The C API tests' checks: CHECK(cond) and CHECK_STATUS(call, want) count every check and
 * print each failure with its line; main returns g_failures == 0. One copy per test program
 * (static counters), included by capi_test.c and capi_activations_test.c. */
#ifndef ATTNRT_TESTS_CAPI_C_CHECKS_H_
#define ATTNRT_TESTS_CAPI_C_CHECKS_H_

#include <stdio.h>

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

#endif /* ATTNRT_TESTS_CAPI_C_CHECKS_H_ */
