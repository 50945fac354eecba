/* Host stand-in for the boards' semihosting console (toolchains/boards/common/semihost.h),
 * so the firmware's C sources (tests/firmware/lm_fw_main.c, tests/firmware_consumer/main.c)
 * build and run unchanged on a host against the installed attnrt package
 * (tests/packaging/host_fw_test.sh). The declarations are the boards' own, included, so
 * the names and signatures cannot drift; host_fw/semihost.c defines the console calls
 * those sources use, with output to stdout (another call fails at link time, by name).
 * There is no debugger to ask: semihost_call and semihost_read_cmdline do nothing and
 * return -1, so a firmware reading its command line takes its defaults. */
#ifndef ATTNRT_HOST_FW_SEMIHOST_H_
#define ATTNRT_HOST_FW_SEMIHOST_H_

#include "../../../toolchains/boards/common/semihost.h"

#endif /* ATTNRT_HOST_FW_SEMIHOST_H_ */
