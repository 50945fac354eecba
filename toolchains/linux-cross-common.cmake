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

# Run cross-built test binaries under qemu-user; the CPU model comes from the QEMU_CPU
# environment variable. `-L` is the prefix qemu puts in front of the guest's paths when
# that file exists. It must give the guest ONE C library: the dynamic loader and
# libc.so.6 have to come from the same glibc build. The :arm64/:armhf packages pull in
# the multiarch libc6:<arch> (/lib/<triple>, loader /lib/ld-linux-*.so), and the cross
# loader in /usr/<triple>/lib searches /lib/<triple> first, so `-L /usr/<triple>` would
# pair the cross loader (e.g. 2.36-8cross1) with the multiarch libc.so.6 (2.36-9+deb12uN):
# such a mix hangs in the first pthread_create. Prefer the multiarch C library when it is
# installed; fall back to the cross toolchain's copy otherwise.
if(EXISTS "/lib/${ATTNRT_CROSS_TRIPLE}/libc.so.6" OR EXISTS "/usr/lib/${ATTNRT_CROSS_TRIPLE}/libc.so.6")
  set(ATTNRT_QEMU_LD_PREFIX /)
else()
  set(ATTNRT_QEMU_LD_PREFIX /usr/${ATTNRT_CROSS_TRIPLE})
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${ATTNRT_QEMU_USER};-L;${ATTNRT_QEMU_LD_PREFIX}")
