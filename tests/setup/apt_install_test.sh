#!/usr/bin/env bash
# Tests the install logic of tools/setup.sh and toolchains/install_cross_deps.sh without the
# network: stub apt-get / apt-cache / dpkg / dpkg-query on PATH keep a fake package database in
# a temporary folder. Cases:
#   1. everything installed: no apt-get call at all (not even update);
#   2. `apt-get update` fails (mirror sync) but install works: exit 0, update tried twice, warned;
#   3. one package cannot be installed: non-zero exit, and the message names that package.
# Usage: apt_install_test.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: apt_install_test.sh SOURCE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stubs=$work/bin
mkdir -p "$stubs"

# Fake dpkg database: one file per installed package under $work/db (name with ':' kept).
cat > "$stubs/dpkg-query" <<'STUB'
#!/usr/bin/env bash
pkg=${!#}
if [ -e "$FAKE_DB/$pkg" ]; then echo "ii "; else echo "un "; exit 1; fi
STUB
cat > "$stubs/dpkg" <<'STUB'
#!/usr/bin/env bash
case "$1" in
  --print-foreign-architectures) printf 'arm64\narmhf\n' ;;
  --add-architecture) echo "$2" >> "$FAKE_LOG.arch" ;;
esac
STUB
cat > "$stubs/apt-cache" <<'STUB'
#!/usr/bin/env bash
echo "  Candidate: 1.0"
STUB
# apt-get: `update` fails while FAKE_UPDATE_FAILS=1; `install` installs every named package
# except those listed in FAKE_UNINSTALLABLE (and then fails, as apt does).
cat > "$stubs/apt-get" <<'STUB'
#!/usr/bin/env bash
[ "$1" = -o ] && shift 2   # the lock-wait option
echo "apt-get $*" >> "$FAKE_LOG"
if [ "$1" = update ]; then
  [ "${FAKE_UPDATE_FAILS:-0}" = 1 ] && { echo "E: File has unexpected size (334084 != 349884). Mirror sync in progress?" >&2; exit 100; }
  exit 0
fi
rc=0
for a in "$@"; do
  case "$a" in install|-y|-q|-o|--no-install-recommends|DPkg::*) continue ;; esac
  if [[ " ${FAKE_UNINSTALLABLE:-} " == *" $a "* ]]; then
    echo "E: Unable to locate package $a" >&2; rc=100
  fi
done
[ $rc -ne 0 ] && exit $rc
for a in "$@"; do
  case "$a" in install|-y|-q|-o|--no-install-recommends|DPkg::*) continue ;; esac
  touch "$FAKE_DB/$a"
done
STUB
# The cross script checks that the compilers and emulators it installed are on PATH.
for tool in arm-none-eabi-gcc arm-none-eabi-g++ arm-none-eabi-size arm-none-eabi-nm \
            qemu-system-arm qemu-aarch64 qemu-arm aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ \
            arm-linux-gnueabihf-gcc arm-linux-gnueabihf-g++ npm; do
  printf '#!/bin/sh\nexit 0\n' > "$stubs/$tool"
done
chmod +x "$stubs"/*

# setup.sh's npm step (the tokenizer test's packages) runs the stub npm into a scratch folder.
export PATH="$stubs:$PATH" APT_UPDATE_RETRY_PAUSE=0 ATTNRT_TEST_DEPS=$work/deps
failures=0
check() {  # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}

# run_case SCRIPT PRE-INSTALLED(all|none) UPDATE_FAILS UNINSTALLABLE -> sets rc, out
run_case() {
  local script=$1 preinstalled=$2
  export FAKE_DB=$work/db FAKE_LOG=$work/log FAKE_UPDATE_FAILS=$3 FAKE_UNINSTALLABLE=$4
  rm -rf "$FAKE_DB" "$FAKE_LOG"; mkdir -p "$FAKE_DB"; : > "$FAKE_LOG"
  if [ "$preinstalled" = all ]; then
    # Pre-install every package the script names: run it once with a working apt.
    FAKE_UPDATE_FAILS=0 FAKE_UNINSTALLABLE="" bash "$script" > /dev/null 2>&1
    : > "$FAKE_LOG"
  fi
  out=$(bash "$script" 2>&1); rc=$?
}
count_updates() { grep -c '^apt-get update' "$FAKE_LOG"; }

for script in "$src/tools/setup.sh" "$src/toolchains/install_cross_deps.sh"; do
  name=$(basename "$script")
  run_case "$script" all 1 ""
  check "$name: nothing missing -> exit 0" [ "$rc" -eq 0 ]
  check "$name: nothing missing -> no apt-get call" [ ! -s "$FAKE_LOG" ]

  run_case "$script" none 1 ""
  check "$name: update fails, install works -> exit 0 (got $rc)" [ "$rc" -eq 0 ]
  check "$name: update retried once" [ "$(count_updates)" -eq 2 ]
  check "$name: failed update is warned about" grep -q "warning: 'apt-get update' failed" <<< "$out"
  check "$name: packages installed" [ -e "$FAKE_DB/cmake" ]

  missing_pkg=cmake
  run_case "$script" none 0 "$missing_pkg"
  check "$name: uninstallable package -> non-zero exit" [ "$rc" -ne 0 ]
  check "$name: message names the package" grep -q "could not install: .*$missing_pkg" <<< "$out"
  check "$name: the other packages still installed" [ -n "$(ls "$FAKE_DB")" ]
done

if [ "$failures" -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "all checks passed"
