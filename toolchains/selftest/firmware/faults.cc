// Deliberate failures, one per image (FAULT_<kind> defined by CMakeLists.txt): each must
// end with its board exit code (board_runtime.h) and never hang.
#include <stdint.h>

#include "semihost.h"

namespace {
volatile int g_depth_limit = 1 << 30;  // never reached: the stack runs out first

__attribute__((noinline)) int Recurse(int depth) {
  if (depth >= g_depth_limit) return 0;
  volatile char pad[256];
  pad[0] = static_cast<char>(depth);
  return Recurse(depth + 1) + pad[0];
}
}  // namespace

int main() {
#if defined(FAULT_undefined_instruction)
  semihost_write0("faults: undefined instruction\n");
  __asm__ volatile("udf #0");
#elif defined(FAULT_divide_by_zero)
  semihost_write0("faults: integer divide by zero\n");
  volatile int zero = 0;
  return 10 / zero;
#elif defined(FAULT_stack_overflow)
  semihost_write0("faults: stack overflow\n");
  return Recurse(0);
#endif
  return 0;  // a fault that did not fault fails the test
}
