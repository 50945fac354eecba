#!/usr/bin/env bash
# `attnrt embed` as a command: the array is defined once (in the .c), in the
# section asked for; a plan made for another model or with another --activations, a
# bad --align, a bad --section and an --out that is not a .c are refused with a message;
# --activations is recorded in the header (_ACTIVATIONS) for attnrt_model_set_activations.
# Usage: embed_cli_test.sh ATTNRT EMBED_TEST_BINARY DEMO_MODEL LM_MODEL
set -euo pipefail
attnrt=$1 binary=$2 demo=$3 lm=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "embed_cli_test: $*" >&2; exit 1; }

# One definition, in the requested section, of exactly the model's size.
defs=$(nm -S --defined-only "$binary" | grep -c ' demo_model_data$' || true)
[ "$defs" = 1 ] || fail "demo_model_data defined $defs times"
size=$(nm -S --defined-only "$binary" | awk '$4 == "demo_model_data" { print $2 }')
[ $((16#$size)) = "$(stat -c %s "$demo")" ] || fail "array size $((16#$size)) != $(stat -c %s "$demo")"
readelf -SW "$binary" >"$work/sections"
grep -q ' \.attnrt_demo ' "$work/sections" || fail "section .attnrt_demo missing"

expect_refusal() {  # expect_refusal MESSAGE_PART ARGS...
  local want=$1; shift
  if "$attnrt" embed "$@" >"$work/out" 2>"$work/err"; then fail "accepted: embed $*"; fi
  grep -q -- "$want" "$work/err" || fail "embed $*: want '$want' in: $(cat "$work/err")"
}
"$attnrt" plan "$lm" --max-seq 16 --threads 1 --json >"$work/lm_plan.json" 2>/dev/null
expect_refusal "made for another model" "$demo" -o "$work/m.c" --plan-from "$work/lm_plan.json"
echo '{"architecture": "encoder-layer"}' >"$work/partial.json"
expect_refusal "weight_file_bytes" "$demo" -o "$work/m.c" --plan-from "$work/partial.json"
expect_refusal "cannot read the plan" "$demo" -o "$work/m.c" --plan-from "$work/nonexistent.json"
echo 'not json' >"$work/text.json"
expect_refusal "not a JSON object" "$demo" -o "$work/m.c" --plan-from "$work/text.json"
expect_refusal "power of two" "$demo" -o "$work/m.c" --align 48
expect_refusal "power of two" "$demo" -o "$work/m.c" --align 8
expect_refusal "characters of" "$demo" -o "$work/m.c" --section 'x")));int y;//'
expect_refusal "must name the .c file" "$demo" -o "$work/m.h"
# A plan made with the other --activations counted another Linear kernel's scratch.
"$attnrt" plan "$lm" --max-seq 16 --threads 1 --activations f32 --json >"$work/lm_plan_f32.json" 2>/dev/null
expect_refusal 'made with --activations "f32"' "$lm" -o "$work/m.c" --plan-from "$work/lm_plan_f32.json"
expect_refusal 'made with --activations "auto"' "$lm" -o "$work/m.c" --plan-from "$work/lm_plan.json" \
  --activations f32
[ ! -e "$work/m.c" ] && [ ! -e "$work/m.h" ] || fail "a refused embed wrote files"

# An LM with its target plan: the header carries the max_seq and the arena.
"$attnrt" embed "$lm" -o "$work/lm.c" --name lm --plan-from "$work/lm_plan.json" >/dev/null
grep -q '^#define LM_PLAN_MAX_SEQ 16u$' "$work/lm.h" || fail "LM_PLAN_MAX_SEQ missing"
plan_arena() {  # plan_arena PLAN_JSON: its arena_bytes
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["arena_bytes"])' "$1" 2>/dev/null ||
    sed 's/.*"arena_bytes":\([0-9]*\).*/\1/' "$1"
}
arena=$(plan_arena "$work/lm_plan.json")
grep -q "^#define LM_ARENA_BYTES ${arena}u$" "$work/lm.h" || fail "LM_ARENA_BYTES != $arena"
grep -q '^extern const uint8_t lm_data\[LM_SIZE\];$' "$work/lm.h" || fail "no extern declaration"
grep -q '^#define LM_ACTIVATIONS 0$' "$work/lm.h" || fail "LM_ACTIVATIONS 0 (auto) missing"
# --activations f32 goes into the header for attnrt_model_set_activations, with its own plan.
"$attnrt" embed "$lm" -o "$work/lmf.c" --name lmf --plan-from "$work/lm_plan_f32.json" \
  --activations f32 >/dev/null
grep -q '^#define LMF_ACTIVATIONS 1$' "$work/lmf.h" || fail "LMF_ACTIVATIONS 1 (f32) missing"
arena=$(plan_arena "$work/lm_plan_f32.json")
grep -q "^#define LMF_ARENA_BYTES ${arena}u$" "$work/lmf.h" || fail "LMF_ARENA_BYTES != $arena"
# Without --plan-from there is no arena size at all (the host's plan is not the target's).
"$attnrt" embed "$demo" -o "$work/d.c" --seq 8 >/dev/null
grep -q 'ARENA_BYTES' "$work/d.h" && fail "an arena size without --plan-from"
grep -q '^#define ATTNRT_MODEL_PLAN_SEQ 8u$' "$work/d.h" || fail "PLAN_SEQ missing"
echo "embed_cli_test: ok"
