/* C runtime start, fault report and heap-free libc stubs shared by all Cortex-M boards.
 *
 * Images link with -nostartfiles, so nothing of crt0/crti/crtbegin runs: this file does
 * their work (see attnrt_board_start) and defines the few symbols they would provide.
 * The stubs below replace newlib/libsupc++ pieces that would otherwise drag in malloc:
 * atexit registration, guard variables for function-local statics, and abort(). */
#include "board_runtime.h"

#include <stddef.h>
#include <stdint.h>

#include "semihost.h"

/* Symbols defined by the linker script (common/sections.ld). */
extern uint32_t __data_load_start[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_limit[], __stack_top[];
typedef void (*InitFunction)(void);
extern InitFunction __preinit_array_start[], __preinit_array_end[];
extern InitFunction __init_array_start[], __init_array_end[];

int main(void);

void attnrt_board_start(void) {
  /* Word loops on purpose: memcpy/memset would be fine too, but these cannot be
   * turned into anything that needs initialized data. */
  for (uint32_t *src = __data_load_start, *dst = __data_start; dst < __data_end;) {
    *dst++ = *src++;
  }
  for (uint32_t* dst = __bss_start; dst < __bss_end;) *dst++ = 0u;

  /* C++ static constructors (and C __attribute__((constructor))), in link order. */
  for (InitFunction* fn = __preinit_array_start; fn < __preinit_array_end; ++fn) (*fn)();
  for (InitFunction* fn = __init_array_start; fn < __init_array_end; ++fn) (*fn)();

  /* Static destructors never run: the image ends here, through the debugger. */
  semihost_exit(main());
}

/* ---- fault report ---------------------------------------------------------------- */

#define SCB_REG(offset) (*(volatile uint32_t*)(0xE000ED00u + (offset)))

static const char* exit_code_name(int exit_code) {
  switch (exit_code) {
    case ATTNRT_EXIT_NMI: return "NMI";
    case ATTNRT_EXIT_HARD_FAULT: return "HardFault";
    case ATTNRT_EXIT_MEM_MANAGE: return "MemManage fault";
    case ATTNRT_EXIT_BUS_FAULT: return "BusFault";
    case ATTNRT_EXIT_USAGE_FAULT: return "UsageFault";
    case ATTNRT_EXIT_SECURE_FAULT: return "SecureFault";
    case ATTNRT_EXIT_UNEXPECTED_IRQ: return "unexpected exception/interrupt";
    default: return "fault";
  }
}

static void write_reg(const char* name, uint32_t value) {
  semihost_write0(name);
  semihost_write_hex(value);
}

void attnrt_fault_report(int exit_code, const uint32_t* frame) {
  semihost_write0("\nattnrt: fatal: ");
  semihost_write0(exit_code_name(exit_code));
  write_reg(" ICSR=", SCB_REG(0x04));
  write_reg(" CFSR=", SCB_REG(0x28));
  write_reg(" HFSR=", SCB_REG(0x2C));
  write_reg(" MMFAR=", SCB_REG(0x34));
  write_reg(" BFAR=", SCB_REG(0x38));
#if defined(__ARM_FEATURE_CMSE)
  write_reg(" SFSR=", SCB_REG(0xE4));
  write_reg(" SFAR=", SCB_REG(0xE8));
#endif
  /* Only trust the stacked frame if stacking succeeded and it lies inside the stack: a
   * stack overflow or a bad SP leaves it pointing anywhere, and reading it could fault
   * again (lock-up). CFSR: MSTKERR (bit 4), STKERR (bit 12), STKOF (bit 20, Armv8-M). */
  const uint32_t stacking_failed = SCB_REG(0x28) & ((1u << 4) | (1u << 12) | (1u << 20));
  const uintptr_t lo = (uintptr_t)__stack_limit, hi = (uintptr_t)__stack_top;
  const uintptr_t at = (uintptr_t)frame;
  if (stacking_failed) {
    semihost_write0("\nattnrt: stack overflow or bad SP while stacking the exception");
  }
  if (!stacking_failed && frame != NULL && at >= lo && at + 8u * sizeof(uint32_t) <= hi &&
      (at & 3u) == 0u) {
    write_reg("\nattnrt: stacked pc=", frame[6]);
    write_reg(" lr=", frame[5]);
    write_reg(" xpsr=", frame[7]);
    write_reg(" sp=", (uint32_t)at);
  } else {
    write_reg("\nattnrt: no usable exception frame, sp=", (uint32_t)at);
  }
  semihost_write0("\nattnrt: exit code ");
  semihost_write_int(exit_code);
  semihost_write0("\n");
  semihost_exit(exit_code);
}

void attnrt_board_fatal(int exit_code, const char* what) {
  semihost_write0("\nattnrt: fatal: ");
  semihost_write0(what);
  semihost_write0("\n");
  semihost_exit(exit_code);
}

/* ---- libc / C++ ABI stubs that keep the heap out ----------------------------------- */

/* crtbegin.o normally defines this; C++ objects with destructors refer to it. */
void* __dso_handle = NULL;

/* Registering static destructors: newlib's version can allocate. They never run here. */
int __cxa_atexit(void (*fn)(void*), void* arg, void* dso) {
  (void)fn;
  (void)arg;
  (void)dso;
  return 0;
}
int __aeabi_atexit(void* arg, void (*fn)(void*), void* dso) {
  (void)arg;
  (void)fn;
  (void)dso;
  return 0;
}
int atexit(void (*fn)(void)) {
  (void)fn;
  return 0;
}

/* Guards for function-local statics (ARM EABI: a 32-bit word, bit 0 = done). The
 * libsupc++ version can throw recursive_init_error, which allocates. Single core, no
 * threads: a flag is enough. Not needed with -fno-threadsafe-statics, but harmless. */
int __cxa_guard_acquire(uint32_t* guard) { return (*guard & 1u) == 0u; }
void __cxa_guard_release(uint32_t* guard) { *guard = 1u; }
void __cxa_guard_abort(uint32_t* guard) { *guard = 0u; }

void abort(void) { attnrt_board_fatal(ATTNRT_EXIT_ABORT, "abort()"); }

void _exit(int code) { semihost_exit(code); }

void __cxa_pure_virtual(void) { attnrt_board_fatal(ATTNRT_EXIT_ABORT, "pure virtual call"); }
void __cxa_deleted_virtual(void) {
  attnrt_board_fatal(ATTNRT_EXIT_ABORT, "deleted virtual call");
}
