/* Semihosting console, exit, command line, and a heap-free number formatter (see semihost.h). */
#include "semihost.h"

enum {
  kSysWrite0 = 0x04,
  kSysGetCmdline = 0x15,
  kSysExitExtended = 0x20,
  kAdpStoppedApplicationExit = 0x20026,
};

int semihost_call(int op, const void* arg) {
  /* Arm semihosting on M-profile: BKPT 0xAB with the operation in r0 and the argument
   * block in r1; the debugger (here qemu) returns its result in r0. "memory" because
   * the host reads the block that `arg` points to. */
  register int r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void semihost_write0(const char* text) { semihost_call(kSysWrite0, text); }

void semihost_exit(int code) {
  /* SYS_EXIT (0x18) on AArch32 carries no status code; the extended call does. */
  const uint32_t block[2] = {(uint32_t)kAdpStoppedApplicationExit, (uint32_t)code};
  semihost_call(kSysExitExtended, block);
  for (;;) {
    /* Only reached when no semihosting host is attached: stop here rather than run on. */
    __asm__ volatile("bkpt 0x00");
  }
}

/* ---- formatting ------------------------------------------------------------------ */

typedef struct {
  char* buf;
  size_t cap; /* including the terminating NUL */
  size_t len;
} TextSink;

static void sink_put(TextSink* s, char c) {
  if (s->len + 1 < s->cap) s->buf[s->len++] = c;
}

static void sink_puts(TextSink* s, const char* text) {
  while (*text) sink_put(s, *text++);
}

static size_t sink_finish(TextSink* s) {
  if (s->cap) s->buf[s->len] = '\0';
  return s->len;
}

/* Writes `value` in decimal, at least `min_digits` digits (zero padded). */
static void sink_put_decimal(TextSink* s, unsigned long long value, int min_digits) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(value % 10u));
    value /= 10u;
  } while (value != 0 && n < (int)sizeof(digits));
  while (n < min_digits && n < (int)sizeof(digits)) digits[n++] = '0';
  while (n > 0) sink_put(s, digits[--n]);
}

size_t semihost_format_uint(char* buf, size_t cap, unsigned long long value) {
  TextSink s = {buf, cap, 0};
  sink_put_decimal(&s, value, 1);
  return sink_finish(&s);
}

size_t semihost_format_int(char* buf, size_t cap, long long value) {
  TextSink s = {buf, cap, 0};
  unsigned long long magnitude = (unsigned long long)value;
  if (value < 0) {
    sink_put(&s, '-');
    magnitude = 0ull - magnitude; /* well defined for LLONG_MIN too */
  }
  sink_put_decimal(&s, magnitude, 1);
  return sink_finish(&s);
}

size_t semihost_format_hex(char* buf, size_t cap, uint32_t value) {
  static const char kHex[] = "0123456789abcdef";
  TextSink s = {buf, cap, 0};
  sink_puts(&s, "0x");
  for (int shift = 28; shift >= 0; shift -= 4) sink_put(&s, kHex[(value >> shift) & 0xFu]);
  return sink_finish(&s);
}

static const uint32_t kPow10[10] = {1u,      10u,      100u,      1000u,      10000u,
                                    100000u, 1000000u, 10000000u, 100000000u, 1000000000u};

/* Integer part and `decimals` rounded fraction digits of 0 <= magnitude < 1e9. */
static void sink_put_fixed(TextSink* s, float magnitude, int decimals) {
  uint32_t whole = (uint32_t)magnitude;
  const float fraction = magnitude - (float)whole; /* exact: removes the integer bits */
  const uint32_t scale = kPow10[decimals];
  uint32_t frac_digits = (uint32_t)(fraction * (float)scale + 0.5f);
  if (frac_digits >= scale) { /* 0.9996 with 3 decimals rounds up to 1.000 */
    frac_digits -= scale;
    whole += 1u;
  }
  sink_put_decimal(s, whole, 1);
  if (decimals > 0) {
    sink_put(s, '.');
    sink_put_decimal(s, frac_digits, decimals);
  }
}

size_t semihost_format_float(char* buf, size_t cap, float value, int decimals) {
  TextSink s = {buf, cap, 0};
  if (decimals < 0) decimals = 0;
  if (decimals > 9) decimals = 9;

  union {
    float f;
    uint32_t u;
  } bits = {value};
  const int negative = (int)(bits.u >> 31);
  const uint32_t exponent_bits = (bits.u >> 23) & 0xFFu;
  const uint32_t mantissa_bits = bits.u & 0x7FFFFFu;
  if (exponent_bits == 0xFFu) { /* non-finite: no arithmetic on it */
    if (mantissa_bits != 0) {
      sink_puts(&s, "nan");
    } else {
      sink_puts(&s, negative ? "-inf" : "inf");
    }
    return sink_finish(&s);
  }
  if (negative) sink_put(&s, '-');
  bits.u &= 0x7FFFFFFFu;
  float magnitude = bits.f;

  if (magnitude < 1e9f) {
    sink_put_fixed(&s, magnitude, decimals);
    return sink_finish(&s);
  }
  /* Too large for a 32-bit integer part: scientific form, mantissa in [1, 10). */
  int exponent10 = 0;
  while (magnitude >= 10.0f) {
    magnitude /= 10.0f;
    ++exponent10;
  }
  /* Rounding can carry the mantissa to 10.0: check on the rounded digits. */
  const uint32_t scale = kPow10[decimals];
  if ((uint32_t)(magnitude * (float)scale + 0.5f) >= 10u * scale) {
    magnitude /= 10.0f;
    ++exponent10;
  }
  sink_put_fixed(&s, magnitude, decimals);
  sink_puts(&s, "e+");
  sink_put_decimal(&s, (unsigned)exponent10, 2);
  return sink_finish(&s);
}

/* ---- console shortcuts ----------------------------------------------------------- */

void semihost_write_int(long long value) {
  char text[24];
  semihost_format_int(text, sizeof(text), value);
  semihost_write0(text);
}

void semihost_write_uint(unsigned long long value) {
  char text[24];
  semihost_format_uint(text, sizeof(text), value);
  semihost_write0(text);
}

void semihost_write_size(size_t value) { semihost_write_uint(value); }

void semihost_write_hex(uint32_t value) {
  char text[12];
  semihost_format_hex(text, sizeof(text), value);
  semihost_write0(text);
}

void semihost_write_float(float value, int decimals) {
  char text[32];
  semihost_format_float(text, sizeof(text), value, decimals);
  semihost_write0(text);
}

int semihost_read_cmdline(char* buf, size_t cap) {
  struct {
    char* buffer;
    int length;
  } block;
  if (cap == 0) return -1;
  block.buffer = buf;
  block.length = (int)(cap - 1 < 0x7fffffff ? cap - 1 : 0x7fffffff);
  if (semihost_call(kSysGetCmdline, &block) != 0 || block.length < 0) return -1;
  buf[block.length] = '\0';
  return block.length;
}

size_t semihost_split_words(char* line, char** words, size_t max_words) {
  size_t n = 0;
  char* c = line;
  while (*c != '\0' && n < max_words) {
    while (*c == ' ') *c++ = '\0';
    if (*c == '\0') break;
    words[n++] = c;
    while (*c != '\0' && *c != ' ') ++c;
  }
  return n;
}

int semihost_parse_size(const char* text, size_t* value) {
  size_t v = 0;
  if (*text == '\0') return 0;
  for (; *text != '\0'; ++text) {
    const size_t digit = (size_t)(*text - '0');
    if (*text < '0' || *text > '9' || v > (SIZE_MAX - digit) / 10) return 0;
    v = v * 10 + digit;
  }
  *value = v;
  return 1;
}
