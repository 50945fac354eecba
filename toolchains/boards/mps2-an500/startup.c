/* Start-up code for MPS2 AN500 (Cortex-M7, single+double precision FPv5) under
 * `qemu-system-arm -M mps2-an500`: vector table, Reset_Handler and fault handlers.
 * Memory map: memory.ld. Everything after the FPU is on happens in attnrt_board_start. */
#include <stdint.h>

#include "cortex_m_startup.h"

#define MPS2_AN500_IRQ_COUNT 32 /* qemu's mps2 boards wire 32 external interrupts */

ATTNRT_DEFINE_FAULT_HANDLER(NMI_Handler, ATTNRT_EXIT_NMI)
ATTNRT_DEFINE_FAULT_HANDLER(HardFault_Handler, ATTNRT_EXIT_HARD_FAULT)
ATTNRT_DEFINE_FAULT_HANDLER(MemManage_Handler, ATTNRT_EXIT_MEM_MANAGE)
ATTNRT_DEFINE_FAULT_HANDLER(BusFault_Handler, ATTNRT_EXIT_BUS_FAULT)
ATTNRT_DEFINE_FAULT_HANDLER(UsageFault_Handler, ATTNRT_EXIT_USAGE_FAULT)
ATTNRT_DEFINE_FAULT_HANDLER(Unexpected_Handler, ATTNRT_EXIT_UNEXPECTED_IRQ)

__attribute__((noreturn)) void Reset_Handler(void) {
  /* The FPU must be on before the first floating-point instruction. */
  ATTNRT_SCB_CPACR |= ATTNRT_CPACR_CP10_CP11_FULL;
  attnrt_armv7m_stack_guard();
  attnrt_cortex_m_reset_common();
  attnrt_board_start();
}

__attribute__((section(".vectors"), used))
const AttnrtVector attnrt_vector_table[16 + MPS2_AN500_IRQ_COUNT] = {
    [0] = (AttnrtVector)(uintptr_t)__stack_top, /* initial MSP */
    [1] = Reset_Handler,
    [2] = NMI_Handler,
    [3] = HardFault_Handler,
    [4] = MemManage_Handler,
    [5] = BusFault_Handler,
    [6] = UsageFault_Handler,
    [7 ... 10] = Unexpected_Handler, /* reserved */
    [11] = Unexpected_Handler,       /* SVCall */
    [12] = Unexpected_Handler,       /* DebugMonitor */
    [13] = Unexpected_Handler,       /* reserved */
    [14] = Unexpected_Handler,       /* PendSV */
    [15] = Unexpected_Handler,       /* SysTick */
    [16 ... 16 + MPS2_AN500_IRQ_COUNT - 1] = Unexpected_Handler,
};
