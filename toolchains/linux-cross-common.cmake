# Shared tail of the Linux cross toolchain files (aarch64-linux-gnu.cmake,
# arm-linux-gnueabihf.cmake). Expects ATTNRT_CROSS_TRIPLE (e.g. aarch64-linux-gnu)
# and ATTNRT_QEMU_USER (qemu-aarch64 or qemu-arm) to be set.
#
# Debian multiarch keeps the foreign libraries under the normal prefix
# (/usr/lib/<triple>, /usr/include is shared), and the cross C library under
# /usr/<triple>. Both are searched; programs (cmake helpers, python, ...) come from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${ATTNRT_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# Never pick up a host (x86-64) library or package config by accident.
list(APPEND CMAKE_SYSTEM_IGNORE_PATH
  /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu
  /usr/lib/x86_64-linux-gnu/cmake /usr/local/lib/x86_64-linux-gnu)

# pkg-config (FindPkgConfig) must read the foreign .pc files, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${ATTNRT_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# Run cross-built test binaries under qemu-user. `-L` points the guest's dynamic loader at
# the cross C library; the CPU model comes from the QEMU_CPU environment variable.
set(CMAKE_CROSSCOMPILING_EMULATOR "${ATTNRT_QEMU_USER};-L;/usr/${ATTNRT_CROSS_TRIPLE}")
