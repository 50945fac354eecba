#!/usr/bin/env bash
# Guest instructions of single SDPA calls under qemu-system-arm, per kernel variant:
# sdpa_count_fw is run with reps=1 and reps=0 under the instruction-count plugin
# (toolchains/boards/insn_count_plugin.c); the difference is one call through the
# runtime (validation, scratch from the arena, the kernel), set-up excluded.
#
#   tests/firmware/sdpa_insn_counts.sh BUILD_DIR [KERNEL...]
#
# BUILD_DIR is a configured Cortex-M build (toolchains/cortex-m55.cmake or cortex-m7.cmake);
# the image is built if needed. KERNELs default to every SDPA variant except reference.
# Instruction counts are not cycles: an MVE instruction moves 4 lanes, a gather or a
# VLD4 counts once, and memory stalls do not show. Compare counts, not times.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dir=${1:?usage: sdpa_insn_counts.sh BUILD_DIR [KERNEL...]}
shift
kernels=("$@")
[ ${#kernels[@]} -eq 0 ] && kernels=(hwy-materialized hwy-flash hwy-decode helium-flash)

if ! log=$(cmake --build "$dir" --target sdpa_count_fw 2>&1); then
  echo "$log" >&2
  exit 1
fi
plugin=$dir/insn_count.so
cc -shared -fPIC -O2 -o "$plugin" toolchains/boards/insn_count_plugin.c
machine=$(sed -n 's/^ATTNRT_QEMU_MACHINE:STRING=//p' "$dir/CMakeCache.txt")
cpu=$(sed -n 's/^ATTNRT_QEMU_CPU:STRING=//p' "$dir/CMakeCache.txt")

count() {  # count KERNEL B H L S E EV CAUSAL REPS -> instructions (empty if the run failed)
  local args="" a out
  for a in "$@"; do args+=",arg=$a"; done
  out=$(timeout 300 qemu-system-arm -M "$machine" -cpu "$cpu" -nographic \
    -semihosting-config "enable=on,target=native$args" -d plugin -plugin "$plugin" \
    -kernel "$dir/bin/sdpa_count_fw.elf" 2>&1) || { echo "$out" >&2; return 0; }
  sed -n 's/^insn_count: \([0-9]*\).*/\1/p' <<<"$out"
}

shapes=(
  "1 2 64 64 32 32 none"        # prefill, L = S = 64
  "1 2 64 64 32 32 upper-left"  # the same, causal
  "1 2 1 512 32 32 none"        # decode step against a 512-key cache
  "1 4 32 32 16 16 none"        # the attention of the demo model (d_model 64, 4 heads, seq 32)
  "1 4 16 256 64 64 lower-right"  # 16 new queries against a 256-key cache, head dim 64
  "1 2 256 256 32 32 none"      # a longer prefill
)
printf '%-10s %-34s %-18s %14s\n' cpu "call (B H L S E Ev causal)" kernel instructions
for shape in "${shapes[@]}"; do
  for kernel in "${kernels[@]}"; do
    # shellcheck disable=SC2086
    one=$(count "$kernel" $shape 1)
    # shellcheck disable=SC2086
    zero=$(count "$kernel" $shape 0)
    if [ -n "$one" ] && [ -n "$zero" ]; then
      printf '%-10s %-34s %-18s %14d\n' "$cpu" "$shape" "$kernel" $((one - zero))
    else
      printf '%-10s %-34s %-18s %14s\n' "$cpu" "$shape" "$kernel" "(not run)"
    fi
  done
done
