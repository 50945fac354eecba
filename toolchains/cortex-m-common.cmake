# Shared part of the bare-metal Cortex-M toolchain files (cortex-m7.cmake,
# cortex-m55.cmake). Expects, before inclusion:
#   ATTNRT_CPU_FLAGS           -mcpu/-mfpu/-mfloat-abi for the core
#   ATTNRT_DEFAULT_BOARD       board folder under toolchains/boards/
#   ATTNRT_DEFAULT_QEMU_MACHINE, ATTNRT_DEFAULT_QEMU_CPU
#
# CMAKE_SYSTEM_NAME "Generic" is what the project's top CMakeLists takes to mean
# firmware: only kernels/ and runtime/ (and firmware images) are built.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# There is no OS to run a test executable: configure checks build static libraries.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Flags:
#  -mfp16-format=ieee           Highway's headers use __fp16, which needs a format on AArch32.
#  --specs=nano.specs           newlib-nano (smaller libc; also selects its headers).
#  -ffunction/data-sections     with --gc-sections, only what is used stays in the image.
#  -fno-exceptions -fno-rtti    the no-throw, no-RTTI rule of kernels/ and runtime/.
#  -fno-threadsafe-statics      single core, no threads: no guard calls into libsupc++.
set(_attnrt_common_flags
  "${ATTNRT_CPU_FLAGS} -mthumb -mfp16-format=ieee --specs=nano.specs -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_attnrt_common_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_attnrt_common_flags} -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_ASM_FLAGS_INIT "${ATTNRT_CPU_FLAGS} -mthumb")
# Images bring their own start-up code (toolchains/boards/common/cortex_m_startup.c with the
# board's board.h) and no heap.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostartfiles -Wl,--gc-sections")

# Search only the bare-metal sysroot for libraries, headers and packages; run host tools.
# The prefixes of CMAKE_PREFIX_PATH (e.g. an installed firmware attnrt) are roots too:
# in ONLY mode they would otherwise be looked for under the sysroot and never found.
set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi ${CMAKE_PREFIX_PATH})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# find_package(hwy) resolves to a header-only Highway (static dispatch, no libhwy):
# see toolchains/boards/cmake/hwy-config.cmake.
set(hwy_DIR "${CMAKE_CURRENT_LIST_DIR}/boards/cmake" CACHE PATH
  "Header-only Highway package config for bare-metal builds")

# What the tree needs to build and run images (toolchains/boards/firmware.cmake).
set(ATTNRT_BOARD "${ATTNRT_DEFAULT_BOARD}" CACHE STRING
  "Board support folder under toolchains/boards/")
set(ATTNRT_QEMU_MACHINE "${ATTNRT_DEFAULT_QEMU_MACHINE}" CACHE STRING
  "qemu-system-arm -M value for running firmware images")
set(ATTNRT_QEMU_CPU "${ATTNRT_DEFAULT_QEMU_CPU}" CACHE STRING
  "qemu-system-arm -cpu value for running firmware images")
set(ATTNRT_BOARDS_DIR "${CMAKE_CURRENT_LIST_DIR}/boards" CACHE PATH
  "toolchains/boards: board support and firmware.cmake")
set(ATTNRT_CPU_FLAGS "${ATTNRT_CPU_FLAGS}" CACHE STRING "Core flags of this toolchain")
