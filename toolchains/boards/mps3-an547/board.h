/* MPS3 AN547 (Corstone SSE-300: Cortex-M55 with FPU and MVE/Helium) under
 * `qemu-system-arm -M mps3-an547`: what the common start-up code
 * (common/cortex_m_startup.c) needs to know about the board. The core starts in
 * Secure state; images stay there (SAU off, no TrustZone partitioning). Memory map:
 * memory.ld. */
#ifndef ATTNRT_BOARDS_BOARD_H_
#define ATTNRT_BOARDS_BOARD_H_

#define ATTNRT_BOARD_IRQ_COUNT 128 /* SSE-300: 32 internal + 96 expansion interrupts */

#endif /* ATTNRT_BOARDS_BOARD_H_ */
