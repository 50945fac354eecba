/* Start-up code of every attnrt Cortex-M board: vector table, Reset_Handler and
 * fault handlers. What differs between boards comes from the board's board.h (the
 * number of external interrupts) and from the architecture the image is built for:
 *  - Armv7-M (Cortex-M7): a 32-byte no-access MPU region under the stack;
 *  - Armv8-M Mainline (Cortex-M55): MSPLIM as the stack limit, and a SecureFault
 *    handler (the core starts, and stays, in Secure state).
 * Every fault turns into a report and a distinctive exit code (board_runtime.h)
 * instead of a hang. Everything after the FPU is on happens in attnrt_board_start. */
#include <stdint.h>

#include "board.h"
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
static void attnrt_armv7m_stack_guard(void) {
  const uint32_t kRasrXn = 1u << 28;         /* AP = 000: no access at any privilege */
  const uint32_t kRasrSize32 = (5u - 1u) << 1; /* region size 2^(SIZE+1) = 32 bytes */
  ATTNRT_MPU_RNR = 0u;
  ATTNRT_MPU_RBAR = (uint32_t)(uintptr_t)__stack_guard;
  ATTNRT_MPU_RASR = kRasrXn | kRasrSize32 | 1u /* ENABLE */;
  ATTNRT_MPU_CTRL = (1u << 2) /* PRIVDEFENA */ | 1u /* ENABLE */;
  __asm__ volatile("dsb\n isb" ::: "memory");
}
#endif

/* Exception set-up once the FPU is on: vector table base, faults by name, traps. */
static void attnrt_cortex_m_reset_common(void) {
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

#if ATTNRT_HAVE_MSPLIM
#define ATTNRT_HAVE_SECURE_FAULT 1 /* vector 7; reserved on Armv7-M */
#else
#define ATTNRT_HAVE_SECURE_FAULT 0
#endif

ATTNRT_DEFINE_FAULT_HANDLER(NMI_Handler, ATTNRT_EXIT_NMI)
ATTNRT_DEFINE_FAULT_HANDLER(HardFault_Handler, ATTNRT_EXIT_HARD_FAULT)
ATTNRT_DEFINE_FAULT_HANDLER(MemManage_Handler, ATTNRT_EXIT_MEM_MANAGE)
ATTNRT_DEFINE_FAULT_HANDLER(BusFault_Handler, ATTNRT_EXIT_BUS_FAULT)
ATTNRT_DEFINE_FAULT_HANDLER(UsageFault_Handler, ATTNRT_EXIT_USAGE_FAULT)
#if ATTNRT_HAVE_SECURE_FAULT
ATTNRT_DEFINE_FAULT_HANDLER(SecureFault_Handler, ATTNRT_EXIT_SECURE_FAULT)
#endif
ATTNRT_DEFINE_FAULT_HANDLER(Unexpected_Handler, ATTNRT_EXIT_UNEXPECTED_IRQ)

__attribute__((noreturn)) void Reset_Handler(void) {
  /* The FPU must be on before the first floating-point instruction. CP10/CP11 access
   * turns on both the FPU and, on Armv8.1-M, MVE: there is no separate MVE enable. */
  ATTNRT_SCB_CPACR |= ATTNRT_CPACR_CP10_CP11_FULL;
#if defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_7M__)
  attnrt_armv7m_stack_guard();
#endif
  attnrt_cortex_m_reset_common();
  attnrt_board_start();
}

__attribute__((section(".vectors"), used))
const AttnrtVector attnrt_vector_table[16 + ATTNRT_BOARD_IRQ_COUNT] = {
    [0] = (AttnrtVector)(uintptr_t)__stack_top, /* initial MSP */
    [1] = Reset_Handler,
    [2] = NMI_Handler,
    [3] = HardFault_Handler,
    [4] = MemManage_Handler,
    [5] = BusFault_Handler,
    [6] = UsageFault_Handler,
#if ATTNRT_HAVE_SECURE_FAULT
    [7] = SecureFault_Handler,
#else
    [7] = Unexpected_Handler, /* reserved */
#endif
    [8 ... 10] = Unexpected_Handler, /* reserved */
    [11] = Unexpected_Handler,       /* SVCall */
    [12] = Unexpected_Handler,       /* DebugMonitor */
    [13] = Unexpected_Handler,       /* reserved */
    [14] = Unexpected_Handler,       /* PendSV */
    [15] = Unexpected_Handler,       /* SysTick */
    [16 ... 16 + ATTNRT_BOARD_IRQ_COUNT - 1] = Unexpected_Handler,
};
