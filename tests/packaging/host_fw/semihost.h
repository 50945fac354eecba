/* Host stand-in for the boards' semihosting console (toolchains/boards/common/semihost.h),
 * so the firmware's C sources (tests/firmware/lm_fw_main.c, tests/firmware_consumer/main.c)
 * build and run unchanged on a host against the installed attnrt package
 * (tests/packaging/host_fw_test.sh). Same names and signatures; output goes to stdout.
 * There is no debugger to ask: semihost_call and semihost_read_cmdline do nothing and
 * return -1, so a firmware reading its command line takes its defaults. */
#ifndef ATTNRT_HOST_FW_SEMIHOST_H_
#define ATTNRT_HOST_FW_SEMIHOST_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int semihost_call(int op, const void* arg); /* always -1: no semihosting on a host */
int semihost_read_cmdline(char* buf, size_t cap); /* always -1: no command line given */
void semihost_write0(const char* text);
void semihost_exit(int code);
void semihost_write_int(long long value);
void semihost_write_uint(unsigned long long value);
void semihost_write_size(size_t value);
void semihost_write_hex(uint32_t value);
void semihost_write_float(float value, int decimals);

#ifdef __cplusplus
}
#endif

#endif /* ATTNRT_HOST_FW_SEMIHOST_H_ */
