/* Heap-call counter for the firmware C sources built on a host (host_fw_test.sh).
 * Linked with -Wl,--wrap= for main, attnrt_model_open, malloc, calloc, realloc, free,
 * operator new / new[] (_Znwm, _Znam, and the aligned ones) and operator delete /
 * delete[] (_ZdlPv, _ZdaPv, and the sized ones), every such call the program's objects and
 * the installed attnrt libraries (static archives) make goes through here. (--wrap does
 * not redirect calls made inside shared libraries, e.g. glibc's own.) Counting starts at
 * the first attnrt_model_open and stops when main returns, so it covers the last C API
 * call. __wrap_main prints "heap: N calls ..." and fails the program (exit 3) unless N is 0. */
#include <stddef.h>
#include <stdio.h>

#include "attnrt/attnrt.h"

void* __real_malloc(size_t n);
void* __real_calloc(size_t n, size_t size);
void* __real_realloc(void* p, size_t n);
void __real_free(void* p);
void* __real__Znwm(size_t n);
void* __real__Znam(size_t n);
void* __real__ZnwmSt11align_val_t(size_t n, size_t alignment);
void* __real__ZnamSt11align_val_t(size_t n, size_t alignment);
void __real__ZdlPv(void* p);
void __real__ZdaPv(void* p);
void __real__ZdlPvm(void* p, size_t n);
void __real__ZdaPvm(void* p, size_t n);
int __real_main(void);
attnrt_status __real_attnrt_model_open(attnrt_model* model, const void* file, size_t file_bytes);

void* __wrap_malloc(size_t n);
void* __wrap_calloc(size_t n, size_t size);
void* __wrap_realloc(void* p, size_t n);
void __wrap_free(void* p);
void* __wrap__Znwm(size_t n);
void* __wrap__Znam(size_t n);
void* __wrap__ZnwmSt11align_val_t(size_t n, size_t alignment);
void* __wrap__ZnamSt11align_val_t(size_t n, size_t alignment);
void __wrap__ZdlPv(void* p);
void __wrap__ZdaPv(void* p);
void __wrap__ZdlPvm(void* p, size_t n);
void __wrap__ZdaPvm(void* p, size_t n);
int __wrap_main(void);
attnrt_status __wrap_attnrt_model_open(attnrt_model* model, const void* file, size_t file_bytes);

static int g_counting = 0;
static unsigned long g_heap_calls = 0;
static char g_stdout_buffer[4096];

void* __wrap_malloc(size_t n) {
  g_heap_calls += (unsigned long)g_counting;
  return __real_malloc(n);
}
void* __wrap_calloc(size_t n, size_t size) {
  g_heap_calls += (unsigned long)g_counting;
  return __real_calloc(n, size);
}
void* __wrap_realloc(void* p, size_t n) {
  g_heap_calls += (unsigned long)g_counting;
  return __real_realloc(p, n);
}
void __wrap_free(void* p) {
  g_heap_calls += (unsigned long)g_counting;
  __real_free(p);
}
void* __wrap__Znwm(size_t n) {
  g_heap_calls += (unsigned long)g_counting;
  return __real__Znwm(n);
}
void* __wrap__Znam(size_t n) {
  g_heap_calls += (unsigned long)g_counting;
  return __real__Znam(n);
}
void* __wrap__ZnwmSt11align_val_t(size_t n, size_t alignment) {
  g_heap_calls += (unsigned long)g_counting;
  return __real__ZnwmSt11align_val_t(n, alignment);
}
void* __wrap__ZnamSt11align_val_t(size_t n, size_t alignment) {
  g_heap_calls += (unsigned long)g_counting;
  return __real__ZnamSt11align_val_t(n, alignment);
}
void __wrap__ZdlPv(void* p) {
  g_heap_calls += (unsigned long)g_counting;
  __real__ZdlPv(p);
}
void __wrap__ZdaPv(void* p) {
  g_heap_calls += (unsigned long)g_counting;
  __real__ZdaPv(p);
}
void __wrap__ZdlPvm(void* p, size_t n) {
  g_heap_calls += (unsigned long)g_counting;
  __real__ZdlPvm(p, n);
}
void __wrap__ZdaPvm(void* p, size_t n) {
  g_heap_calls += (unsigned long)g_counting;
  __real__ZdaPvm(p, n);
}

attnrt_status __wrap_attnrt_model_open(attnrt_model* model, const void* file, size_t file_bytes) {
  g_counting = 1; /* from the first open on */
  return __real_attnrt_model_open(model, file, file_bytes);
}

int __wrap_main(void) {
  int code;
  /* A static stdout buffer: glibc would otherwise malloc one at the first print. */
  setvbuf(stdout, g_stdout_buffer, _IOFBF, sizeof(g_stdout_buffer));
  code = __real_main();
  g_counting = 0;
  printf("heap: %lu calls (malloc, calloc, realloc, free, operator new/delete) from the first "
         "attnrt_model_open to the end of main\n", g_heap_calls);
  fflush(stdout);
  if (code == 0 && g_heap_calls != 0) return 3;
  return code;
}
