/* What every attnrt board image shares: the C runtime start (copy .data, zero .bss, run
 * static constructors, call main, exit through semihosting), the fault report, and the
 * exit codes a test runner sees when something goes wrong instead of a hang.
 *
 * Exit codes: main's return value is passed through unchanged (0 = success). The codes
 * below are reserved for failures detected by the board support itself; they are kept
 * high and distinct so `ctest` output says at a glance what happened. */
#ifndef ATTNRT_BOARDS_BOARD_RUNTIME_H_
#define ATTNRT_BOARDS_BOARD_RUNTIME_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum AttnrtBoardExitCode {
  ATTNRT_EXIT_ABORT = 224,          /* abort(), std::terminate, pure virtual call */
  ATTNRT_EXIT_HWY_ABORT = 225,      /* hwy::Abort (HWY_ASSERT / HWY_ABORT) */
  ATTNRT_EXIT_HEAP_USE = 226,       /* operator delete reached: something used the heap */
  ATTNRT_EXIT_NMI = 240,
  ATTNRT_EXIT_HARD_FAULT = 241,
  ATTNRT_EXIT_MEM_MANAGE = 242,
  ATTNRT_EXIT_BUS_FAULT = 243,
  ATTNRT_EXIT_USAGE_FAULT = 244,    /* includes divide by zero and (M55) stack overflow */
  ATTNRT_EXIT_SECURE_FAULT = 245,
  ATTNRT_EXIT_UNEXPECTED_IRQ = 246, /* an exception or interrupt without a handler */
};

/* Called by each board's Reset_Handler once the FPU (and MVE) is on. Never returns. */
__attribute__((noreturn)) void attnrt_board_start(void);

/* Prints what is known about a fault and exits with `exit_code`. `frame` is the
 * exception stack frame (r0-r3, r12, lr, pc, xpsr) or NULL. Never returns. */
__attribute__((noreturn)) void attnrt_fault_report(int exit_code, const uint32_t* frame);

/* Prints "attnrt: fatal: <what>" and exits with `exit_code`. Never returns. */
__attribute__((noreturn)) void attnrt_board_fatal(int exit_code, const char* what);

#ifdef __cplusplus
}
#endif

#endif /* ATTNRT_BOARDS_BOARD_RUNTIME_H_ */
