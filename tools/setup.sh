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
  python3-jinja2
  bible-kjv bible-kjv-text
)

apt_install_missing "${packages[@]}"

# Test-only npm packages, each pinned by a tests/<name>/package-lock.json and installed into
# ${ATTNRT_TEST_DEPS:-build/test-deps}/<name>, where the tests look; no package script runs,
# nothing is fetched at test time, nothing is linked into attnrt. A test whose packages are
# missing skips and says why.
#   tokenizer: Hugging Face's Rust tokenizers (Node binding, a prebuilt linux-x64 binary) and
#              real tokenizer.json files, the tokenizer exactness test's reference;
#   llamacpp:  node-llama-cpp 3.22.1 and its prebuilt x64 CPU binaries, the GGUF import test's
#              oracle (needs Node.js >= 20: Debian 12's own nodejs is 18).
# NodeSource's nodejs carries npm; Debian's nodejs needs the npm package beside it.
if ! command -v npm >/dev/null 2>&1; then
  apt_install_missing nodejs npm
fi
root=$(cd "$(dirname "$0")/.." && pwd)
install_locked_npm() {  # NAME MODULE-THAT-MUST-EXIST NPM-ARGS...
  local name=$1 module=$2 deps lock
  shift 2
  deps="${ATTNRT_TEST_DEPS:-$root/build/test-deps}/$name"
  lock="$root/tests/$name/package-lock.json"
  if [ -f "$deps/package-lock.json" ] && cmp -s "$lock" "$deps/package-lock.json" &&
     [ -d "$deps/node_modules/$module" ]; then
    echo "npm: $name test packages already installed in $deps"
    return 0
  fi
  mkdir -p "$deps"
  cp "$root/tests/$name/package.json" "$lock" "$deps/"
  (cd "$deps" && npm "$@" --ignore-scripts --no-audit --no-fund --loglevel=error)
}
install_locked_npm tokenizer @anush008/tokenizers ci
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$(uname -m)" != x86_64 ]; then
  echo "npm: llama.cpp oracle: its pinned prebuilt binaries are x86-64 only; not installed"
elif [ "$node_major" -lt 20 ]; then
  echo "npm: llama.cpp oracle needs Node.js >= 20 (found ${node_major}); not installed" >&2
else
  # Not `npm ci`: node-llama-cpp 3.22.1 lists optional packages of other platforms that were
  # never published at that version, which `npm ci` reports as missing from any lock file;
  # `npm install --no-save` installs exactly the locked versions and leaves the lock alone.
  install_locked_npm llamacpp @node-llama-cpp/linux-x64 install --no-save --omit=optional
fi
