#!/usr/bin/env bash
# The whole attnrt test suite, as CI runs it: installs dependencies, then
#   1. host release build + every CTest suite (GoogleTest and PyTorch parity),
#   2. the same suite under ASan + UBSan,
#   3. libFuzzer targets (weight file, .npy, SDPA shapes, model inputs, convert
#      inputs), bounded time,
#   4. cross builds under emulation (AArch64 CTest under qemu-user, Cortex-M
#      firmware images under qemu-system-arm), when their toolchain files exist.
# Each stage runs even if an earlier one failed; the exit code is non-zero if
# any stage failed. ATTNRT_FUZZ_SECONDS (default 20) bounds each fuzzer.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=2
fuzz_seconds=${ATTNRT_FUZZ_SECONDS:-20}

passed=0
failed=0
failed_names=()
stage() {
  local name=$1
  shift
  echo
  echo "=== stage: $name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    echo "=== stage $name: passed ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1))
    failed_names+=("$name")
    echo "=== stage $name: FAILED ($((SECONDS - start)) s)"
  fi
}

setup() {
  bash tools/setup.sh
  if [ -f toolchains/install_cross_deps.sh ]; then bash toolchains/install_cross_deps.sh; fi
}

# host_suite PRESET [CTEST ARGS...]
host_suite() {
  local preset=$1
  shift
  cmake --preset "$preset" >/dev/null &&
    cmake --build --preset "$preset" -j"$jobs" &&
    ctest --preset "$preset" -j"$jobs" --timeout 600 "$@"
}

fuzz() {
  cmake --preset fuzz -DATTNRT_FUZZ_SECONDS="$fuzz_seconds" >/dev/null &&
    cmake --build --preset fuzz -j"$jobs" &&
    ctest --test-dir build/fuzz --output-on-failure -j"$jobs"
}

cross() {
  if [ -f toolchains/run_cross_tests.sh ]; then
    bash toolchains/run_cross_tests.sh
  else
    echo "no cross test script yet"
  fi
}

stage setup setup
stage release host_suite release
# Under the sanitizers the GoogleTest suites cover kernels, runtime and models;
# the PyTorch parity scripts (thousands of CLI runs) stay in the release stage,
# and the CLI's input parsing is covered by the fuzzers.
stage asan host_suite asan -LE python
stage fuzz fuzz
stage cross cross

echo
if ((failed)); then echo "failed stages: ${failed_names[*]}"; fi
echo "stages: $passed passed, $failed failed"
exit $((failed > 0))
