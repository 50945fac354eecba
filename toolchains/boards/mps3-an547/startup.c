/* Start-up code for MPS3 AN547 (Corstone SSE-300: Cortex-M55 with FPU and MVE/Helium)
 * under `qemu-system-arm -M mps3-an547`: vector table, Reset_Handler, fault handlers.
 * The core starts in Secure state; this image stays there (SAU off, no TrustZone
 * partitioning). Memory map: memory.ld. */
#include <stdint.h>

#include "cortex_m_startup.h"

#define MPS3_AN547_IRQ_COUNT 128 /* SSE-300: 32 internal + 96 expansion interrupts */

ATTNRT_DEFINE_FAULT_HANDLER(NMI_Handler, ATTNRT_EXIT_NMI)
ATTNRT_DEFINE_FAULT_HANDLER(HardFault_Handler, ATTNRT_EXIT_HARD_FAULT)
ATTNRT_DEFINE_FAULT_HANDLER(MemManage_Handler, ATTNRT_EXIT_MEM_MANAGE)
ATTNRT_DEFINE_FAULT_HANDLER(BusFault_Handler, ATTNRT_EXIT_BUS_FAULT)
ATTNRT_DEFINE_FAULT_HANDLER(UsageFault_Handler, ATTNRT_EXIT_USAGE_FAULT)
ATTNRT_DEFINE_FAULT_HANDLER(SecureFault_Handler, ATTNRT_EXIT_SECURE_FAULT)
ATTNRT_DEFINE_FAULT_HANDLER(Unexpected_Handler, ATTNRT_EXIT_UNEXPECTED_IRQ)

__attribute__((noreturn)) void Reset_Handler(void) {
  /* CP10/CP11 access turns on both the FPU and MVE: Armv8.1-M has no separate MVE
   * enable. It must happen before the first floating-point or vector instruction. */
  ATTNRT_SCB_CPACR |= ATTNRT_CPACR_CP10_CP11_FULL;
  attnrt_cortex_m_reset_common();
  attnrt_board_start();
}

__attribute__((section(".vectors"), used))
const AttnrtVector attnrt_vector_table[16 + MPS3_AN547_IRQ_COUNT] = {
    [0] = (AttnrtVector)(uintptr_t)__stack_top, /* initial MSP */
    [1] = Reset_Handler,
    [2] = NMI_Handler,
    [3] = HardFault_Handler,
    [4] = MemManage_Handler,
    [5] = BusFault_Handler,
    [6] = UsageFault_Handler,
    [7] = SecureFault_Handler,
    [8 ... 10] = Unexpected_Handler, /* reserved */
    [11] = Unexpected_Handler,       /* SVCall */
    [12] = Unexpected_Handler,       /* DebugMonitor */
    [13] = Unexpected_Handler,       /* reserved */
    [14] = Unexpected_Handler,       /* PendSV */
    [15] = Unexpected_Handler,       /* SysTick */
    [16 ... 16 + MPS3_AN547_IRQ_COUNT - 1] = Unexpected_Handler,
};
