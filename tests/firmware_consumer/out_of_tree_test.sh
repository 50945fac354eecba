#!/usr/bin/env bash
# CTest `firmware_consumer_out_of_tree` (Cortex-M builds): the steps of
# toolchains/README.md "Out-of-tree firmware", done by a user outside the tree.
#   1. cmake --install the Cortex-M build into a scratch prefix (no host pieces in it);
#   2. host attnrt: convert models/demo, embed it as model_data.c/.h; npy_to_header.py
#      writes the input and PyTorch's output as model_io.h;
#   3. configure tests/firmware_consumer with the same toolchain file and
#      CMAKE_PREFIX_PATH=<prefix>, build, check the image links no heap;
#   4. run it under qemu-system-arm; pass only on exit 0 and the line "consumer_fw: PASS".
# Usage: out_of_tree_test.sh BUILD_DIR SOURCE_DIR TOOLCHAIN_FILE BOARD QEMU_MACHINE
#                            QEMU_CPU HOST_ATTNRT PYTHON
set -euo pipefail
if [ $# -ne 8 ]; then
  echo "usage: $0 BUILD_DIR SOURCE_DIR TOOLCHAIN_FILE BOARD QEMU_MACHINE QEMU_CPU HOST_ATTNRT PYTHON" >&2
  exit 2
fi
build=$1 src=$2 toolchain=$3 board=$4 machine=$5 cpu=$6 host_attnrt=$7 python=$8
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
test_name=firmware_consumer
. "$src/tests/firmware/script_steps.sh"  # step, quiet, demo_model_files

if [ ! -x "$host_attnrt" ]; then
  echo "firmware_consumer: FAIL: no host attnrt at $host_attnrt (set ATTNRT_HOST_ATTNRT, or build the tree first)" >&2
  exit 1
fi

step "install $build -> $prefix"
quiet "cmake --install" cmake --install "$build" --prefix "$prefix"
for lib in attnrt_c attnrt_models attnrt_runtime attnrt_kernels; do
  test -f "$prefix/lib/lib$lib.a" || { echo "FAIL: lib$lib.a not installed" >&2; exit 1; }
done
# Host-only pieces have no place in a firmware package.
for host_only in bin include/attnrt/thread_pool.h lib/libattnrt_threads.a; do
  if [ -e "$prefix/$host_only" ]; then
    echo "firmware_consumer: FAIL: host-only $host_only is in the firmware install" >&2
    exit 1
  fi
done

# The guide says a C project needs no C++ runtime pieces: the libraries reference no
# operator new/delete, __cxa_* or hwy::Abort (only attnrt's own C++ symbols), and
# have no static constructors for a start-up code to run.
cxx_needs=$(arm-none-eabi-nm -u "$prefix"/lib/*.a | awk '{print $2}' |
  grep -E '^(_Z|__cxa|__gxx|__aeabi_atexit|__dso_handle)' | grep -v '6attnrt' |
  sort -u || true)
# (Read whole first: with pipefail, grep -q ending the pipe early would kill objdump
# with SIGPIPE and turn a match into a failed, i.e. passing, condition.)
sections=$(arm-none-eabi-objdump -h "$prefix"/lib/*.a)
if grep -q 'init_array\|\.ctors' <<<"$sections"; then
  cxx_needs="$cxx_needs static constructors (.init_array)"
fi
if [ -n "$cxx_needs" ]; then
  echo "firmware_consumer: FAIL: the libraries need C++ runtime pieces (update the guide):" >&2
  echo "$cxx_needs" >&2
  exit 1
fi

step "convert and embed models/demo (host attnrt), write model_io.h"
model=$work/model
demo_model_files "$host_attnrt" "$python" "$src" "$model"

step "configure and build tests/firmware_consumer against the installed package"
# hwy_DIR names no config: a user's own toolchain file sets none (the repo's point it at
# toolchains/boards/cmake), and the package must bring Highway's by itself.
quiet "configure" cmake -S "$src/tests/firmware_consumer" -B "$work/build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_PREFIX_PATH="$prefix" \
  -Dhwy_DIR:PATH="$work/no-hwy-config" \
  -DBOARD_COMMON_DIR="$src/toolchains/boards/common" \
  -DBOARD_DIR="$src/toolchains/boards/$board" -DMODEL_DIR="$model"
quiet "build" cmake --build "$work/build" -j2
elf=$work/build/consumer_fw.elf
quiet "heap check" cmake -DNM=arm-none-eabi-nm -DELF="$elf" \
  -P "$src/toolchains/boards/check_no_heap.cmake"
arm-none-eabi-size "$elf"

step "run under qemu-system-arm -M $machine -cpu $cpu"
# QEMU 7.2 writes the semihosting console to stderr.
set +e
timeout --kill-after=5 60 qemu-system-arm -M "$machine" -cpu "$cpu" -nographic \
  -semihosting-config enable=on,target=native -kernel "$elf" >"$work/run.log" 2>&1
code=$?
set -e
cat "$work/run.log"
if [ "$code" -ne 0 ]; then
  echo "firmware_consumer: FAIL: the image exited with $code (toolchains/README.md lists the codes)" >&2
  exit 1
fi
if ! grep -qx 'consumer_fw: PASS' "$work/run.log"; then
  echo "firmware_consumer: FAIL: exit 0 but no 'consumer_fw: PASS' line" >&2
  exit 1
fi
echo "firmware_consumer_out_of_tree: PASS"
