#!/usr/bin/env bash
# CTest `firmware_c_on_host`: the firmware's own C99 sources, built for and run on this
# host against the INSTALLED package, with heap calls counted.
#   tests/firmware/lm_fw_main.c       the demo byte-level LM, 32 greedy tokens (lm_fw)
#   tests/firmware_consumer/main.c    the converted demo encoder layer vs PyTorch's output
# Both unchanged: only semihost.h is the host's (tests/packaging/host_fw/, stdout).
#   1. cmake --install the build into a scratch prefix;
#   2. with the installed `attnrt`: convert models/lm and models/demo, plan the LM on this
#      host (plan --json -> embed --plan-from -> device_plan.h), embed both models as C
#      arrays, and write lm_expected.h from `attnrt generate --json`
#      (tests/firmware/lm_expected.cmake, as the firmware build does); model_io.h from
#      the demo's .npy files (tests/firmware/npy_to_header.py);
#   3. cc -std=c99 -Wall -Wextra -Werror -pedantic $(pkg-config --cflags --libs attnrt),
#      linked with host_fw/heap_count.c and -Wl,--wrap for main, attnrt_model_open,
#      malloc, calloc, realloc, free, operator new/new[] and delete/delete[];
#   4. run: pass only on exit 0, the PASS line, and "heap: 0 calls" (from the first
#      attnrt_model_open to the end of main, so after the last C API call).
# Usage: host_fw_test.sh BUILD_DIR SOURCE_DIR PYTHON (a python3 with numpy)
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 BUILD_DIR SOURCE_DIR PYTHON" >&2
  exit 2
fi
build=$1 src=$2 python=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
host_fw=$src/tests/packaging/host_fw
test_name=firmware_c_on_host
. "$src/tests/firmware/script_steps.sh"  # step, quiet, demo_model_files

step "install $build -> $prefix"
quiet "cmake --install" cmake --install "$build" --prefix "$prefix"
attnrt=$prefix/bin/attnrt
test -x "$attnrt" || { echo "firmware_c_on_host: FAIL: no installed bin/attnrt" >&2; exit 1; }
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
read -r -a pc_cflags <<<"$(pkg-config --cflags attnrt)"
read -r -a pc_libs <<<"$(pkg-config --libs attnrt)"
wrap=-Wl,--wrap=main,--wrap=attnrt_model_open,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
wrap=$wrap,--wrap=_Znwm,--wrap=_Znam,--wrap=_ZnwmSt11align_val_t,--wrap=_ZnamSt11align_val_t
wrap=$wrap,--wrap=_ZdlPv,--wrap=_ZdaPv,--wrap=_ZdlPvm,--wrap=_ZdaPvm
# The firmware's C flags (tests/firmware/lm_firmware.cmake, tests/firmware_consumer).
build_c() {  # OUT GEN_DIR SOURCES...
  local out=$1 gen=$2; shift 2
  quiet "cc $out" cc -std=c99 -Wall -Wextra -Werror -pedantic "${pc_cflags[@]}" \
    -I"$gen" -I"$host_fw" "$@" "$host_fw/semihost.c" "$host_fw/heap_count.c" \
    -o "$out" "$wrap" "${pc_libs[@]}"
}
# Runs a program; passes only on exit 0, the line PASS_LINE and no heap calls.
run_c() {  # PROGRAM PASS_LINE
  local code=0
  "$1" >"$work/run.log" 2>&1 || code=$?
  cat "$work/run.log"
  if [ "$code" -ne 0 ]; then
    echo "firmware_c_on_host: FAIL: $(basename "$1") exited with $code" >&2
    exit 1
  fi
  if ! grep -qxF "$2" "$work/run.log"; then
    echo "firmware_c_on_host: FAIL: $(basename "$1") printed no '$2' line" >&2
    exit 1
  fi
  if ! grep -q '^heap: 0 calls ' "$work/run.log"; then
    echo "firmware_c_on_host: FAIL: $(basename "$1") used the heap after attnrt_model_open" >&2
    exit 1
  fi
}

# The demo LM, as tests/firmware/lm_firmware.cmake makes it for the boards.
lm_prompt="In the beginning"
lm_new_tokens=32
lm_max_seq=$(( ${#lm_prompt} + lm_new_tokens ))  # byte-level: one token per byte
for dtype in f32 q8; do
  gen=$work/lm_$dtype
  mkdir -p "$gen"
  step "lm ($dtype): convert, plan on this host, embed, expected tokens (installed attnrt)"
  quiet "attnrt convert" "$attnrt" convert --config "$src/models/lm/config.json" \
    "$src/models/lm/model.safetensors" -o "$gen/lm.attnrt" --dtype "$dtype"
  # stdout is only the JSON object (the table goes to stderr). One thread: the C API's.
  if ! "$attnrt" plan "$gen/lm.attnrt" --max-seq "$lm_max_seq" --threads 1 --json \
      >"$gen/plan.json" 2>"$work/step.log"; then
    cat "$work/step.log"
    echo "firmware_c_on_host: FAIL: attnrt plan" >&2
    exit 1
  fi
  quiet "attnrt embed" "$attnrt" embed "$gen/lm.attnrt" -o "$gen/lm_data.c" \
    --name attnrt_lm_model --section .attnrt_weights --seq "$lm_max_seq" \
    --plan-from "$gen/plan.json"
  printf '%s\n' "/* This host's plan: attnrt plan --json, through attnrt embed --plan-from. */" \
    '#include "lm_data.h"' \
    '#define ATTNRT_DEVICE_ARENA_BYTES ATTNRT_LM_MODEL_ARENA_BYTES' >"$gen/device_plan.h"
  quiet "lm_expected.cmake" cmake "-DATTNRT=$attnrt" "-DMODEL=$gen/lm.attnrt" \
    "-DPROMPT=$lm_prompt" "-DCOUNT=$lm_new_tokens" "-DMAX_SEQ=$lm_max_seq" "-DDTYPE=$dtype" \
    "-DOUT=$gen/lm_expected.h" -P "$src/tests/firmware/lm_expected.cmake"
  step "lm ($dtype): build tests/firmware/lm_fw_main.c against the installed package"
  build_c "$work/lm_fw_$dtype" "$gen" "$src/tests/firmware/lm_fw_main.c" "$gen/lm_data.c"
  run_c "$work/lm_fw_$dtype" "lm: PASS: all tokens equal the host's"
done

# The converted demo encoder layer, as tests/firmware_consumer/out_of_tree_test.sh makes it.
gen=$work/demo
step "demo encoder: convert, embed, model_io.h"
demo_model_files "$attnrt" "$python" "$src" "$gen"
step "demo encoder: build tests/firmware_consumer/main.c against the installed package"
build_c "$work/consumer_fw" "$gen" "$src/tests/firmware_consumer/main.c" "$gen/model_data.c"
run_c "$work/consumer_fw" "consumer_fw: PASS"

echo "firmware_c_on_host: PASS (lm_fw_main.c f32+q8, firmware_consumer/main.c; 0 heap calls)"
