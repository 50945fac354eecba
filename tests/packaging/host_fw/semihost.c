/* Host stand-in for the boards' semihosting console: stdout through stdio. stdout gets a
 * static buffer before main (heap_count.c), so printing never touches the heap. */
#include "semihost.h"

#include <stdio.h>
#include <stdlib.h>

int semihost_call(int op, const void* arg) {
  (void)op;
  (void)arg;
  return -1;
}

int semihost_read_cmdline(char* buf, size_t cap) {
  (void)buf;
  (void)cap;
  return -1;
}

void semihost_write0(const char* text) { fputs(text, stdout); }

void semihost_exit(int code) {
  fflush(stdout);
  exit(code);
}

void semihost_write_int(long long value) { printf("%lld", value); }
void semihost_write_uint(unsigned long long value) { printf("%llu", value); }
void semihost_write_size(size_t value) { printf("%lu", (unsigned long)value); }
void semihost_write_hex(uint32_t value) { printf("0x%08lx", (unsigned long)value); }
void semihost_write_float(float value, int decimals) { printf("%.*f", decimals, (double)value); }
