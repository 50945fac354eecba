#!/usr/bin/env bash
# Builds and runs the toolchain self-tests (toolchains/selftest/) in a scratch folder:
#   firmware-m7, firmware-m55   smoke image, exit-code propagation, fault exit codes
#   aarch64, armhf              find the foreign packages, run a gtest under qemu-user and
#                               check which Highway target dispatch picks per QEMU_CPU
# Usage: toolchains/selftest.sh [all|firmware|linux|firmware-m7|firmware-m55|aarch64|armhf]...
# Needs what install_cross_deps.sh installs. Builds with -j2; emulators run under timeout.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${ATTNRT_SELFTEST_DIR:-${TMPDIR:-/tmp}/attnrt-toolchain-selftest}"
jobs="${ATTNRT_SELFTEST_JOBS:-2}"

selected=("$@")
[ "${#selected[@]}" -eq 0 ] && selected=(all)
expand() {
  case "$1" in
    all) echo firmware-m7 firmware-m55 aarch64 armhf ;;
    firmware) echo firmware-m7 firmware-m55 ;;
    linux) echo aarch64 armhf ;;
    firmware-m7|firmware-m55|aarch64|armhf) echo "$1" ;;
    *) echo "selftest: unknown suite '$1'" >&2; exit 2 ;;
  esac
}
suites=()
for s in "${selected[@]}"; do for x in $(expand "$s"); do suites+=("$x"); done; done

run_suite() {  # name source-dir toolchain-file
  local name="$1" src="$2" toolchain="$3" build="$work/$1"
  echo "=== selftest $name"
  cmake -S "$src" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build" -j"$jobs"
  (cd "$build" && ctest --output-on-failure --timeout 300)
}

failed=()
for suite in "${suites[@]}"; do
  case "$suite" in
    firmware-m7) args=("$here/selftest/firmware" "$here/cortex-m7.cmake") ;;
    firmware-m55) args=("$here/selftest/firmware" "$here/cortex-m55.cmake") ;;
    aarch64) args=("$here/selftest/linux" "$here/aarch64-linux-gnu.cmake") ;;
    armhf) args=("$here/selftest/linux" "$here/arm-linux-gnueabihf.cmake") ;;
  esac
  if ! run_suite "$suite" "${args[@]}"; then failed+=("$suite"); fi
done

if [ "${#failed[@]}" -ne 0 ]; then
  echo "selftest: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "selftest: all passed (${suites[*]})"
