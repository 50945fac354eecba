/* Pieces of start-up code shared by the boards' startup.c files: system register
 * addresses, and the fault handler entry that turns any fault into a report and a
 * distinctive exit code (board_runtime.h) instead of a hang. Include once, from a
 * board's startup.c only. */
#ifndef ATTNRT_BOARDS_CORTEX_M_STARTUP_H_
#define ATTNRT_BOARDS_CORTEX_M_STARTUP_H_

#include <stdint.h>

#include "board_runtime.h"

#define ATTNRT_SCB_VTOR (*(volatile uint32_t*)0xE000ED08u)
#define ATTNRT_SCB_CCR (*(volatile uint32_t*)0xE000ED14u)
#define ATTNRT_SCB_SHCSR (*(volatile uint32_t*)0xE000ED24u)
#define ATTNRT_SCB_CPACR (*(volatile uint32_t*)0xE000ED88u)

#define ATTNRT_CCR_DIV_0_TRP (1u << 4)
#define ATTNRT_SHCSR_MEMFAULTENA (1u << 16)
#define ATTNRT_SHCSR_BUSFAULTENA (1u << 17)
#define ATTNRT_SHCSR_USGFAULTENA (1u << 18)
#define ATTNRT_SHCSR_SECUREFAULTENA (1u << 19) /* Armv8-M with Security Extension */
/* CP10 and CP11 full access: the FPU, and on Armv8.1-M also the MVE (Helium) unit. */
#define ATTNRT_CPACR_CP10_CP11_FULL (0xFu << 20)

typedef void (*AttnrtVector)(void);

extern uint32_t __stack_limit[], __stack_top[], __vectors_start[];

#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
#define ATTNRT_HAVE_MSPLIM 1
#define ATTNRT_CLEAR_MSPLIM "movs r2, #0\n msr msplim, r2\n"
#else
#define ATTNRT_HAVE_MSPLIM 0
#define ATTNRT_CLEAR_MSPLIM ""
#endif

/* Defines a naked exception handler that exits with `exit_code`.
 * It takes the exception frame pointer (MSP or PSP, from EXC_RETURN bit 2) and decides
 * where the report may run before anything is pushed:
 *  - frame inside the stack with >= 1 KiB below it: keep stacking below the frame, so
 *    the stacked registers survive for the report;
 *  - otherwise (stack overflow, corrupt SP): restart MSP at the top of the stack.
 * Using a bad SP would fault again inside the handler and lock the core up, which qemu
 * shows as a hang. On Armv8-M the stack limit is dropped first for the same reason. */
#define ATTNRT_DEFINE_FAULT_HANDLER(name, exit_code)                     \
  __attribute__((naked, noreturn)) void name(void) {                     \
    __asm__ volatile(                                                    \
        "tst lr, #4\n"                                                   \
        "ite eq\n"                                                       \
        "mrseq r1, msp\n"                                                \
        "mrsne r1, psp\n" ATTNRT_CLEAR_MSPLIM                            \
        "movw r3, #:lower16:__stack_top\n"                               \
        "movt r3, #:upper16:__stack_top\n"                               \
        "movw r2, #:lower16:__stack_limit\n"                             \
        "movt r2, #:upper16:__stack_limit\n"                             \
        "add r2, r2, #1024\n"                                            \
        "cmp r1, r2\n"                                                   \
        "blo 1f\n"                                                       \
        "cmp r1, r3\n"                                                   \
        "bhi 1f\n"                                                       \
        "bic r3, r1, #7\n"                                               \
        "1:\n"                                                           \
        "msr msp, r3\n"                                                  \
        "isb\n"                                                          \
        "movs r0, %[code]\n"                                             \
        "b attnrt_fault_report\n" ::[code] "i"(exit_code));              \
  }

#if defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_7M__)
/* Armv7-M has no stack-limit register: make the 32 bytes below the stack
 * (__stack_guard, 32-byte aligned by sections.ld) a no-access, never-execute MPU
 * region, so an overflow is a MemManage fault instead of a silent walk through memory.
 * PRIVDEFENA keeps the default memory map everywhere else. */
#define ATTNRT_MPU_CTRL (*(volatile uint32_t*)0xE000ED94u)
#define ATTNRT_MPU_RNR (*(volatile uint32_t*)0xE000ED98u)
#define ATTNRT_MPU_RBAR (*(volatile uint32_t*)0xE000ED9Cu)
#define ATTNRT_MPU_RASR (*(volatile uint32_t*)0xE000EDA0u)
extern uint32_t __stack_guard[];
static inline __attribute__((always_inline)) void attnrt_armv7m_stack_guard(void) {
  const uint32_t kRasrXn = 1u << 28;         /* AP = 000: no access at any privilege */
  const uint32_t kRasrSize32 = (5u - 1u) << 1; /* region size 2^(SIZE+1) = 32 bytes */
  ATTNRT_MPU_RNR = 0u;
  ATTNRT_MPU_RBAR = (uint32_t)(uintptr_t)__stack_guard;
  ATTNRT_MPU_RASR = kRasrXn | kRasrSize32 | 1u /* ENABLE */;
  ATTNRT_MPU_CTRL = (1u << 2) /* PRIVDEFENA */ | 1u /* ENABLE */;
  __asm__ volatile("dsb\n isb" ::: "memory");
}
#endif

/* The part of Reset_Handler common to all boards, after the board's own set-up. */
static inline __attribute__((always_inline)) void attnrt_cortex_m_reset_common(void) {
  ATTNRT_SCB_VTOR = (uint32_t)(uintptr_t)__vectors_start;
  /* Report MemManage/Bus/Usage faults by name instead of escalating to HardFault. */
  uint32_t shcsr = ATTNRT_SHCSR_MEMFAULTENA | ATTNRT_SHCSR_BUSFAULTENA | ATTNRT_SHCSR_USGFAULTENA;
#if defined(__ARM_FEATURE_CMSE)
  shcsr |= ATTNRT_SHCSR_SECUREFAULTENA;
#endif
  ATTNRT_SCB_SHCSR |= shcsr;
  /* Integer division by zero is a bug in a kernel: trap it rather than return 0. */
  ATTNRT_SCB_CCR |= ATTNRT_CCR_DIV_0_TRP;
#if ATTNRT_HAVE_MSPLIM
  /* Stack overflow becomes a UsageFault (STKOF) at the limit, not silent corruption. */
  __asm__ volatile("msr msplim, %0" ::"r"(__stack_limit));
#endif
  __asm__ volatile("dsb\n isb" ::: "memory");
}

#endif /* ATTNRT_BOARDS_CORTEX_M_STARTUP_H_ */
