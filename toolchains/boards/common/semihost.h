/* Semihosting console and exit for bare-metal Arm images run under qemu-system-arm
 * (`-semihosting-config enable=on,target=native`).
 *
 * Why not printf: newlib's stdio allocates its buffers with malloc (and grows the heap
 * with _sbrk), and attnrt firmware links no heap at all. These helpers format into a
 * small stack buffer and hand finished strings to the debugger with SYS_WRITE0, so they
 * pull in nothing but a few integer divisions from libgcc. Floats are formatted with
 * float arithmetic only (no double), with a fixed number of decimals.
 *
 * All functions are usable from C and C++ and from fault handlers. */
#ifndef ATTNRT_BOARDS_SEMIHOST_H_
#define ATTNRT_BOARDS_SEMIHOST_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raw semihosting call: `op` in r0, `arg` in r1, result from r0. */
int semihost_call(int op, const void* arg);

/* Writes a NUL-terminated string to the host console (SYS_WRITE0). */
void semihost_write0(const char* text);

/* Ends the emulation; `code` becomes qemu's exit status (SYS_EXIT_EXTENDED with
 * ADP_Stopped_ApplicationExit, so any code 0..255 gets through unchanged). */
__attribute__((noreturn)) void semihost_exit(int code);

/* Formatting into a caller buffer. Each returns the number of characters written
 * (without the NUL it always appends); output is truncated to fit `cap` (cap >= 1). */
size_t semihost_format_int(char* buf, size_t cap, long long value);
size_t semihost_format_uint(char* buf, size_t cap, unsigned long long value);
size_t semihost_format_hex(char* buf, size_t cap, uint32_t value); /* "0x1234abcd" */
/* Fixed-point text with `decimals` digits after the point (0..9), rounded half away
 * from zero; "nan", "inf", "-inf" for non-finite values; values of magnitude >= 1e9
 * switch to d.ddddde+XX form. Uses float arithmetic only. */
size_t semihost_format_float(char* buf, size_t cap, float value, int decimals);

/* The command line qemu passes the image (`-semihosting-config ...,arg=A,arg=B`:
 * "A B"; without arg= options the image's path), through SYS_GET_CMDLINE, into buf
 * (NUL-terminated, cut to cap - 1 characters). Returns its length, or -1 when the host
 * gives none. */
int semihost_read_cmdline(char* buf, size_t cap);
/* Splits `line` at spaces in place; at most max_words words; returns their number. */
size_t semihost_split_words(char* line, char** words, size_t max_words);
/* A whole string of decimal digits as a size: 1 on success, 0 for anything else
 * (empty, a non-digit, a value past SIZE_MAX). */
int semihost_parse_size(const char* text, size_t* value);

/* Console shortcuts built on the formatters. */
void semihost_write_int(long long value);
void semihost_write_uint(unsigned long long value);
void semihost_write_size(size_t value);
void semihost_write_hex(uint32_t value);
void semihost_write_float(float value, int decimals);

#ifdef __cplusplus
}
#endif

#endif /* ATTNRT_BOARDS_SEMIHOST_H_ */
