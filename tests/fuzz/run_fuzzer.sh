#!/usr/bin/env bash
# Runs a libFuzzer binary for a bounded time on a scratch copy of a seed corpus (the committed
# corpus is never modified), prints how many inputs it executed, and exits non-zero on a crash,
# sanitizer report, timeout or out-of-memory. Crash inputs are copied to $FUZZ_ARTIFACT_DIR
# (default ./fuzz-artifacts). Extra arguments go to libFuzzer (e.g. -dict=FILE).
# Usage: run_fuzzer.sh FUZZER_BIN CORPUS_DIR SECONDS [libFuzzer flags...]
set -euo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: $0 FUZZER_BIN CORPUS_DIR SECONDS [libFuzzer flags...]" >&2
  exit 2
fi
bin=$1 corpus=$2 seconds=$3
shift 3
[[ -x $bin ]] || { echo "$0: $bin is not an executable" >&2; exit 2; }
[[ -d $corpus ]] || { echo "$0: $corpus is not a directory" >&2; exit 2; }
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "$0: SECONDS must be a positive integer" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/attnrt-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" "$work/artifacts"
cp -R "$corpus"/. "$work/corpus/"
seeds=$(find "$work/corpus" -type f | wc -l)

# Inputs are at most a few KB, so a large allocation is always a bug: cap malloc well below RSS.
set +e
"$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
  -malloc_limit_mb="${FUZZ_MALLOC_LIMIT_MB:-128}" -artifact_prefix="$work/artifacts/" \
  "$@" "$work/corpus" >"$work/log" 2>&1
rc=$?
set -e

execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$work/log" | tail -n 1)
found=$(find "$work/corpus" -type f | wc -l)
echo "$(basename "$bin"): ${execs:-unknown} executions (budget ${seconds} s), corpus ${seeds} -> ${found} inputs, exit code ${rc}"

if [[ $rc -ne 0 ]]; then
  tail -n 80 "$work/log"
  out=${FUZZ_ARTIFACT_DIR:-$PWD/fuzz-artifacts}
  if compgen -G "$work/artifacts/*" >/dev/null; then
    mkdir -p "$out"
    cp "$work/artifacts/"* "$out/"
    echo "crash inputs copied to $out:"
    ls -l "$out"
  fi
  exit 1
fi
