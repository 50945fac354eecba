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
  nlohmann-json3-dev libcli11-dev
  clang libclang-rt-14-dev
  python3 python3-numpy python3-torch python3-torchvision libopenblas0-pthread python3-matplotlib
  bible-kjv bible-kjv-text
)

apt_install_missing "${packages[@]}"

# llama.cpp as the test oracle of GGUF import (issue 33): node-llama-cpp and its prebuilt x64
# CPU binaries, pinned by tests/llamacpp/package-lock.json, installed with --ignore-scripts
# into build/npm/llamacpp (no install script runs; nothing downloads at test
# time; never linked into attnrt). It needs Node.js >= 20 (the machine image's; Debian 12's own
# nodejs is 18): without it, or on another CPU, the GGUF comparison test skips and says why.
install_llamacpp_oracle() {
  local root dir major
  root=$(cd "$(dirname "$0")/.." && pwd)
  dir="$root/build/npm/llamacpp"
  if [ "$(uname -m)" != x86_64 ]; then
    echo "llama.cpp oracle: the pinned prebuilt binaries are x86-64 only; not installed"
    return 0
  fi
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$major" -lt 20 ] || ! command -v npm >/dev/null; then
    echo "llama.cpp oracle: needs Node.js >= 20 and npm (found node major ${major}); not installed" >&2
    return 0
  fi
  if cmp -s "$root/tests/llamacpp/package-lock.json" "$dir/package-lock.json" &&
     [ -d "$dir/node_modules/@node-llama-cpp/linux-x64" ]; then
    echo "llama.cpp oracle: already installed in $dir"
    return 0
  fi
  mkdir -p "$dir"
  cp "$root/tests/llamacpp/package.json" "$root/tests/llamacpp/package-lock.json" "$dir/"
  # Not `npm ci`: node-llama-cpp 3.22.1 lists optional packages of other platforms that were
  # never published at that version, which `npm ci` reports as missing from any lock file;
  # `npm install --no-save` installs exactly the locked versions and leaves the lock alone.
  (cd "$dir" && npm install --no-save --ignore-scripts --omit=optional --no-audit --no-fund)
}
install_llamacpp_oracle
