#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then configures, builds and runs
# the out-of-tree consumer against it with find_package(attnrt).
# Usage: install_consumer_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/lib/cmake/attnrt/attnrtConfig.cmake"
cmake -S "$src/tests/packaging/consumer" -B "$work/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$work/build/consumer"
