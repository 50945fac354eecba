# Cross build for 64-bit ARM Linux (Cortex-A, Neoverse) with Debian's aarch64-linux-gnu
# compilers and the :arm64 multiarch packages (libhwy-dev, libgtest-dev, libbenchmark-dev,
# libxsimd-dev; see install_cross_deps.sh). Tests run under qemu-user through
# CMAKE_CROSSCOMPILING_EMULATOR, so plain `ctest` works.
#
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.cmake
#   QEMU_CPU=cortex-a72 ctest --test-dir build-aarch64   # NEON only
#   QEMU_CPU=max        ctest --test-dir build-aarch64   # SVE + SVE2
#
# qemu-aarch64 reads the CPU model from the QEMU_CPU environment variable; without it
# qemu-aarch64 7.2 uses its max model (Highway then dispatches to SVE2).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(ATTNRT_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${ATTNRT_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${ATTNRT_CROSS_TRIPLE}-g++)
# Makes find_* look in /usr/lib/aarch64-linux-gnu (and .../cmake/<pkg>) where Debian's
# :arm64 packages live, instead of the host's /usr/lib/x86_64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE ${ATTNRT_CROSS_TRIPLE})

set(ATTNRT_QEMU_USER qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross-common.cmake)
