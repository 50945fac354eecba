# Cross build for 32-bit ARM Linux (Cortex-A7/A9/A15/A53 in AArch32 state) with NEON and
# the hard-float ABI, using Debian's arm-linux-gnueabihf compilers and :armhf packages.
# Tests run under qemu-arm (user mode).
#
#   cmake -S . -B build-armhf -DCMAKE_TOOLCHAIN_FILE=toolchains/arm-linux-gnueabihf.cmake
#   QEMU_CPU=cortex-a15 ctest --test-dir build-armhf
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)  # what uname -m says on such a system

set(ATTNRT_CROSS_TRIPLE arm-linux-gnueabihf)
set(CMAKE_C_COMPILER ${ATTNRT_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${ATTNRT_CROSS_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${ATTNRT_CROSS_TRIPLE})

# Debian's armhf baseline is ARMv7-A + VFPv3-D16 without NEON; ask for NEON (VFPv4 adds
# fused multiply-add) so Highway's static target is NEON rather than SCALAR.
# -mfp16-format=ieee: Highway's headers use __fp16, which GCC only defines on AArch32
# once a half-precision format is chosen (Highway's own build passes the same flag).
set(ATTNRT_ARM32_FLAGS "-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard -mfp16-format=ieee")
set(CMAKE_C_FLAGS_INIT "${ATTNRT_ARM32_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${ATTNRT_ARM32_FLAGS}")

set(ATTNRT_QEMU_USER qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross-common.cmake)
