# Bare-metal Cortex-M7 (Armv7E-M, FPv5 single+double precision FPU, hard-float ABI),
# emulated as the MPS2 AN500 board:
#
#   cmake -S . -B build-m7 -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m7.cmake
#   cmake --build build-m7 -j2 && ctest --test-dir build-m7
#
# Images run with: qemu-system-arm -M mps2-an500 -cpu cortex-m7 -nographic
#                  -semihosting-config enable=on,target=native -kernel IMAGE.elf
# Highway's static target here is SCALAR (no SIMD unit to target).
set(ATTNRT_CPU_FLAGS "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard")
set(ATTNRT_DEFAULT_BOARD mps2-an500)
set(ATTNRT_DEFAULT_QEMU_MACHINE mps2-an500)
set(ATTNRT_DEFAULT_QEMU_CPU cortex-m7)
include(${CMAKE_CURRENT_LIST_DIR}/cortex-m-common.cmake)
