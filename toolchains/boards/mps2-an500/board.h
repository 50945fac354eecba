/* MPS2 AN500 (Cortex-M7, single+double precision FPv5) under
 * `qemu-system-arm -M mps2-an500`: what the common start-up code
 * (common/cortex_m_startup.c) needs to know about the board. Memory map: memory.ld. */
#ifndef ATTNRT_BOARDS_BOARD_H_
#define ATTNRT_BOARDS_BOARD_H_

#define ATTNRT_BOARD_IRQ_COUNT 32 /* qemu's mps2 boards wire 32 external interrupts */

#endif /* ATTNRT_BOARDS_BOARD_H_ */
