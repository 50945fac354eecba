// C++ runtime pieces for heap-free firmware.
//
// operator delete: a class with a virtual destructor makes the compiler emit a
// "deleting destructor" that calls operator delete, even if nothing is ever new'd.
// libsupc++'s operator delete calls free(), which would link the allocator. These
// versions never free anything; reaching one means the heap was used, which the image
// reports and exits on. operator new is deliberately NOT defined here: code that uses
// it pulls libsupc++'s version (and malloc), and the post-link symbol check in
// firmware.cmake fails the build.
//
// hwy::Abort: Highway's HWY_ASSERT/HWY_ABORT call it; the real one lives in libhwy,
// which firmware does not link. This one prints the location and exits.
#include <stddef.h>

#include "board_runtime.h"
#include "semihost.h"

namespace {
[[noreturn]] void HeapUsed() {
  attnrt_board_fatal(ATTNRT_EXIT_HEAP_USE, "operator delete called (heap use in firmware)");
}
}  // namespace

void operator delete(void*) noexcept { HeapUsed(); }
void operator delete[](void*) noexcept { HeapUsed(); }
void operator delete(void*, size_t) noexcept { HeapUsed(); }
void operator delete[](void*, size_t) noexcept { HeapUsed(); }

#if defined(__has_include)
#if __has_include(<hwy/base.h>)
#include <hwy/base.h>
#define ATTNRT_BOARD_HAVE_HWY 1
#endif
#endif

#ifdef ATTNRT_BOARD_HAVE_HWY
namespace hwy {
// Prints the format string unexpanded: formatting it needs vsnprintf, i.e. stdio.
void Abort(const char* file, int line, const char* format, ...) {
  semihost_write0("\nattnrt: fatal: hwy::Abort at ");
  semihost_write0(file);
  semihost_write0(":");
  semihost_write_int(line);
  semihost_write0(": ");
  semihost_write0(format);
  semihost_write0("\n");
  semihost_exit(ATTNRT_EXIT_HWY_ABORT);
}
}  // namespace hwy
#endif
