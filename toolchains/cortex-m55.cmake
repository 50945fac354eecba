# Bare-metal Cortex-M55 (Armv8.1-M Mainline with the M-profile Vector Extension
# "Helium": integer + float MVE, FP16/FP32/FP64 scalar FPU, hard-float ABI), emulated
# as the MPS3 AN547 board (Corstone SSE-300):
#
#   cmake -S . -B build-m55 -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m55.cmake
#   cmake --build build-m55 -j2 && ctest --test-dir build-m55
#
# Images run with: qemu-system-arm -M mps3-an547 -cpu cortex-m55 -nographic
#                  -semihosting-config enable=on,target=native -kernel IMAGE.elf
# `-mcpu=cortex-m55` alone enables MVE with floating point (__ARM_FEATURE_MVE == 3).
# Highway 1.0.3 has no MVE target: its static target is SCALAR; the compiler may still
# auto-vectorize scalar loops with MVE. The hand-written MVE kernel (kernels/helium/,
# `helium-flash`) is compiled and registered because of the flags below.
set(ATTNRT_CPU_FLAGS "-mcpu=cortex-m55 -mfloat-abi=hard")
set(ATTNRT_DEFAULT_BOARD mps3-an547)
set(ATTNRT_DEFAULT_QEMU_MACHINE mps3-an547)
set(ATTNRT_DEFAULT_QEMU_CPU cortex-m55)
include(${CMAKE_CURRENT_LIST_DIR}/cortex-m-common.cmake)
