#!/usr/bin/env bash
# The cross stage of CI (tests/run_all.sh): ARM builds of the tree, tested under QEMU.
#   aarch64     whole tree; the whole CTest suite under qemu-aarch64 with QEMU_CPU=cortex-a72
#               (NEON only; python parity tests run attnrt emulated and torch natively), then
#               the suite again without the PyTorch parity scripts under QEMU_CPU=max with
#               128-bit SVE2 (Highway's SVE2_128, SVE2 and SVE targets), then the vector- and
#               tile-edge tests with 2048-bit SVE2.
#   armhf       whole tree (ARMv7 NEON, 32-bit size_t); the suite without the parity scripts
#               under qemu-arm with QEMU_CPU=cortex-a15.
#               The parity scripts (sdpa/model/llama/hf_torch_parity*, sdpa_seed002_examples,
#               convert_dtype_classes, lm_quality_llamacpp, gguf_llamacpp) are
#               hundreds to thousands of emulated CLI runs each, ~20 CPU minutes per CPU
#               model; what a second CPU model changes (the kernels' target, a 32-bit
#               size_t) is what the GoogleTest suites check against the reference kernel.
#   cortex-m7   firmware images (library layers + tests/firmware), run by CTest under
#   cortex-m55  qemu-system-arm; the model image needs the host attnrt (build/release).
# Build folders: build/aarch64, build/armhf, build/cortex-m7, build/cortex-m55; full logs
# in <build folder>/cross-*.log. Prints per-step times and one summary line; exits
# non-zero if any step failed (later steps still run).
#
# Usage: toolchains/run_cross_tests.sh [aarch64] [armhf] [cortex-m7] [cortex-m55]
#        (default: all). Needs toolchains/install_cross_deps.sh. ATTNRT_JOBS (default 2).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
jobs=${ATTNRT_JOBS:-2}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(aarch64 armhf cortex-m7 cortex-m55)

# Tests that cannot run in a cross build, each with the reason printed when skipped:
# they run host executables (consumer projects and the firmware C sources built with the
# host compiler against an install, the benchmark driver, the embed workflow's shell
# script, which runs the CLI as the host tool it is); the host suite runs them all.
host_only_tests='^(install_and_find_package|firmware_c_on_host|bench_smoke|bench_load_smoke|embed_cli_test)$'

# CPU seconds (user + system) used so far by the commands this script waited for, in
# $cpu_now: wall time on a shared machine says little, CPU time is what a dedicated
# runner will spend. `times` must run in this shell (not in a $(...) subshell).
cpu_file=$(mktemp)
trap 'rm -f "$cpu_file"' EXIT
read_cpu() {
  times >"$cpu_file"
  cpu_now=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/);
                           printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$cpu_file")
}

results=()
failed=0
step() {  # step NAME COMMAND...: runs, times and records one step
  local name=$1
  shift
  local start=$SECONDS cpu_start
  read_cpu
  cpu_start=$cpu_now
  echo
  echo "=== cross: $name"
  local outcome=passed
  if ! "$@"; then
    outcome=FAILED
    failed=$((failed + 1))
  fi
  read_cpu
  local took="$((SECONDS - start)) s wall, $((cpu_now - cpu_start)) s cpu"
  results+=("$name: $outcome ($took)")
  echo "=== cross: $name $outcome ($took)"
}

# Runs a command with its output in LOG; shows the tail (all of it on failure).
logged() {  # logged LOG COMMAND...
  local log=$1
  shift
  if "$@" >"$log" 2>&1; then
    tail -n 4 "$log"
    return 0
  fi
  tail -n 60 "$log"
  echo "(full log: $log)"
  return 1
}

configure() {  # configure BUILD_DIR TOOLCHAIN [cmake args...]
  local dir=$1 toolchain=$2
  shift 2
  mkdir -p "$dir"
  logged "$dir/cross-configure.log" cmake -S "$root" -B "$dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$root/toolchains/$toolchain" "$@" && return
  # A configure that failed (say, before install_cross_deps.sh installed the compiler) leaves
  # a cache whose per-configuration flags are empty: the next run would build at -O0 (seen:
  # the Cortex-M libraries then reference __cxa_pure_virtual). Start the next one clean.
  rm -f "$dir/CMakeCache.txt"
  return 1
}

build() {  # build BUILD_DIR [targets...]
  local dir=$1
  shift
  local target_args=()
  for t in "$@"; do target_args+=(--target "$t"); done
  logged "$dir/cross-build.log" cmake --build "$dir" -j"$jobs" "${target_args[@]}"
}

host_attnrt() {
  if [ ! -x build/release/bin/attnrt ]; then
    echo "build/release/bin/attnrt is missing: building the host tree first"
    cmake --preset release >/dev/null && cmake --build --preset release -j"$jobs" || return 1
  fi
}

# The kernel table as attnrt sees it on this CPU: the ISA column is the Highway
# target dynamic dispatch chose (and the xsimd variants the CPU can run).
show_kernels() {  # show_kernels BUILD_DIR QEMU_CPU
  echo "attnrt kernels under QEMU_CPU=$2:"
  QEMU_CPU=$2 "$1"/tests/python/attnrt-emulated kernels | sed 's/^/  /'
}

# The benchmarks are not built for the Linux ARM targets: bench_smoke is host-only here
# and nothing else runs them under emulation.
aarch64_build() {
  configure build/aarch64 aarch64-linux-gnu.cmake -DATTNRT_BUILD_BENCH=OFF && build build/aarch64
}

# armhf: the same suite as aarch64, on a 32-bit size_t (the npy, safetensors and weight-file
# tests check there that values past 2^32 are refused by name, not cut).
armhf_build() {
  configure build/armhf arm-linux-gnueabihf.cmake -DATTNRT_BUILD_BENCH=OFF && build build/armhf
}

# The PyTorch parity scripts: each is thousands of emulated CLI runs (10-13 CPU minutes
# under qemu), so only the first CPU model of an architecture runs them. The whole-model
# scripts against Hugging Face's modules and the convert classes (30-90 s each emulated)
# likewise: a second CPU model changes the kernels' target (and armhf a 32-bit size_t),
# which the GoogleTest suites check on every target against the reference kernel and float64.
# gguf_llamacpp, against llama.cpp on every GGUF type (107-165 s under qemu), likewise: the
# other CPU models' kernel paths (SVE's svdot halves of the k-quants, armhf's 32-bit NEON) are
# checked by linear_int8_test's instances there, every type and shape against float64.
parity_tests='^(sdpa_torch_parity|sdpa_seed002_examples|model_torch_parity.*|llama_torch_parity.*|hf_torch_parity|hf_reference_selftest|convert_dtype_classes|lm_quality_llamacpp|gguf_llamacpp)$'

# Kernel test instances a second CPU model of a build already tested would run again
# unchanged: the scalar reference, the xsimd variants (compiled for one ISA, NEON) and
# Highway's NEON instances (the tests instantiate every target the CPU supports, so `max`
# runs NEON, SVE and SVE2; cortex-a72 has run NEON). As CTest names (suites registered
# one test per instance), and as instance names for the SDPA suites, which CTest runs
# grouped by test and which read the skip list from ATTNRT_TEST_SKIP_INSTANCES.
cpu_independent_instance_names='reference|xsimd_[a-z0-9_]+|([A-Za-z0-9_]*_)?NEON'
cpu_independent_instances="/($cpu_independent_instance_names)( |\$)"

# SVE vector lengths. qemu-user's `max` defaults to 512 bits; each SVE instruction is
# emulated lane by lane, so the whole second-CPU run uses 128 bits (Neoverse N2/V2 and
# most SVE2 phones; Highway then also has its SVE2_128 target, which such CPUs run), and
# the tests built around vector and tile edges run again at 2048 bits, the architectural
# maximum, where a kernel that assumes a bound on the lanes shows it.
sve_128='max,sve-default-vector-length=16'
sve_2048='max,sve-default-vector-length=256'
vector_edge_tests='Straddl|AcrossTileEdges|BothWidths|MixedWidths|EveryRowCountUpToThreeTiles|DecodeSplitEdges|OddDims'

# The CTest suite of a Linux ARM build under qemu user mode on one CPU model; with
# `no-parity`, without the PyTorch parity scripts; with `second-cpu`, also without the
# kernel instances that the build's first CPU model already ran identically; with
# `wide-vectors`, only the vector- and tile-edge tests, as second-cpu otherwise.
linux_ctest() {  # linux_ctest BUILD_DIR QEMU_CPU [no-parity | second-cpu | wide-vectors]
  local dir=$1 cpu=$2 exclude=$host_only_tests skip_instances= only=.
  local log=$1/cross-ctest-${2//[,=]/-}.log
  show_kernels "$dir" "$cpu" || return 1
  echo "skipped here (host executables; the host suite runs them): install_and_find_package, firmware_c_on_host, bench_smoke, bench_load_smoke, embed_cli_test"
  if [ -n "${3:-}" ]; then
    exclude="$exclude|$parity_tests"
    echo "skipped on this CPU model (the aarch64 NEON run has them): the PyTorch, Hugging Face and llama.cpp parity scripts, convert_dtype_classes, lm_quality_llamacpp"
  fi
  if [ "${3:-}" = second-cpu ] || [ "${3:-}" = wide-vectors ]; then
    exclude="$exclude|$cpu_independent_instances"
    skip_instances=$cpu_independent_instance_names
    echo "skipped on this CPU model (run on the first): reference, xsimd and Highway NEON kernel instances"
  fi
  if [ "${3:-}" = wide-vectors ]; then
    only=$vector_edge_tests
    echo "only the vector- and tile-edge tests: $only"
  fi
  logged "$log" env QEMU_CPU="$cpu" ATTNRT_TEST_SKIP_INSTANCES="$skip_instances" ctest --test-dir "$dir" -j"$jobs" --timeout 600 \
    --output-on-failure -E "$exclude" -R "$only"
  local status=$?
  grep -E "tests passed|tests failed out of" "$log"
  # What the PyTorch parity scripts checked (their output is in CTest's LastTest.log).
  awk '/^[0-9]+\/[0-9]+ Test: / { test = $3 }
       /cases x .* kernels|^[0-9]+ passed, [0-9]+ failed/ { print "  " test ": " $0 }' \
    "$dir"/Testing/Temporary/LastTest.log
  return $status
}

firmware() {  # firmware BOARD (cortex-m7 | cortex-m55)
  local board=$1 dir=build/$1
  host_attnrt || return 1
  configure "$dir" "$board.cmake" -DATTNRT_HOST_ATTNRT="$root/build/release/bin/attnrt" &&
    build "$dir" || return 1
  cat "$dir"/bin/*.footprint.txt
  logged "$dir/cross-ctest.log" ctest --test-dir "$dir" --output-on-failure -V
  local status=$?
  grep -hE "(fw|lm): " "$dir/cross-ctest.log" | sed 's/^[0-9]*: //'
  count_instructions "$dir"
  return $status
}

# Guest instructions of the firmware images under emulation (toolchains/boards/
# insn_count_plugin.c). model_plan_fw only opens, checks (CRC32C) and plans the model;
# model_fw does that too, then runs and compares it: the difference is the forward pass.
# lm_fw, lm_fw_q8 and lm_fw_q4_0 are each run twice, generating 0 and then N tokens (N from the
# semihosting command line, arg=N): the same open, plan and prompt pass both times, so
# (count(N) - count(0)) / N is one generated token (a greedy attnrt_sample plus a
# one-token attnrt_lm_feed through all layers).
# Informational: a failure here does not fail the step.
count_instructions() {  # count_instructions BUILD_DIR
  local dir=$1 plugin=$1/insn_count.so img n zero full qemu_machine qemu_cpu
  cc -shared -fPIC -O2 -o "$plugin" toolchains/boards/insn_count_plugin.c || return 0
  qemu_machine=$(sed -n 's/^ATTNRT_QEMU_MACHINE:STRING=//p' "$dir/CMakeCache.txt")
  qemu_cpu=$(sed -n 's/^ATTNRT_QEMU_CPU:STRING=//p' "$dir/CMakeCache.txt")
  for img in model_plan_fw model_fw; do
    echo "instructions ($qemu_cpu, $img): $(insn_count "$dir" "$img")"
  done
  n=$(sed -n 's/^#define LM_EXPECTED_COUNT \([0-9]*\)u$/\1/p' \
    "$dir/tests/firmware/generated/lm_f32/lm_expected.h" 2>/dev/null)
  [ -n "$n" ] || { echo "instructions ($qemu_cpu, lm_fw): no lm_expected.h, not counted"; return 0; }
  for img in lm_fw lm_fw_q8 lm_fw_q4_0; do
    zero=$(insn_count "$dir" "$img" 0)
    full=$(insn_count "$dir" "$img" "$n")
    if [ -n "$zero" ] && [ -n "$full" ]; then
      echo "instructions ($qemu_cpu, $img): $zero with 0 generated tokens, $full with $n;" \
        "per generated token (difference / $n): $(((full - zero) / n))"
    else
      echo "instructions ($qemu_cpu, $img): not counted (a run failed)"
    fi
  done
}

# insn_count BUILD_DIR IMAGE [ARG]: guest instructions of one run (empty if it failed),
# ARG on the semihosting command line. Uses the caller's qemu_machine, qemu_cpu and plugin.
insn_count() {
  local dir=$1 img=$2 config=enable=on,target=native out
  [ $# -ge 3 ] && config+=",arg=$3"
  out=$(timeout 300 qemu-system-arm -M "$qemu_machine" -cpu "$qemu_cpu" -nographic \
    -semihosting-config "$config" -d plugin -plugin "$dir/insn_count.so" \
    -kernel "$dir/bin/$img.elf" 2>&1) || return 0
  sed -n 's/^insn_count: \([0-9]*\).*/\1/p' <<<"$out"
}

total_start=$SECONDS
for target in "${targets[@]}"; do
  case "$target" in
    aarch64)
      step "aarch64 configure+build" aarch64_build
      step "aarch64 ctest QEMU_CPU=cortex-a72 (NEON)" linux_ctest build/aarch64 cortex-a72
      step "aarch64 ctest QEMU_CPU=$sve_128 (SVE2 128-bit, Highway instances and the rest, no parity scripts)" \
        linux_ctest build/aarch64 "$sve_128" second-cpu
      step "aarch64 ctest QEMU_CPU=$sve_2048 (SVE2 2048-bit, vector- and tile-edge tests)" \
        linux_ctest build/aarch64 "$sve_2048" wide-vectors
      ;;
    armhf)
      step "armhf configure+build" armhf_build
      step "armhf ctest QEMU_CPU=cortex-a15 (NEON, 32-bit, no parity scripts)" linux_ctest build/armhf cortex-a15 no-parity
      ;;
    cortex-m7 | cortex-m55)
      step "$target firmware build+ctest" firmware "$target"
      ;;
    *)
      echo "run_cross_tests: unknown target '$target'" >&2
      exit 2
      ;;
  esac
done

echo
echo "=== cross summary"
for r in "${results[@]}"; do echo "  $r"; done
read_cpu
echo "cross: ${#results[@]} steps, $failed failed, $((SECONDS - total_start)) s wall, $cpu_now s cpu"
exit $((failed > 0))
