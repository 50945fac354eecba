#!/usr/bin/env bash
# Installs what attnrt needs on Debian 12 (as root): compilers, CMake/Ninja, the
# Debian packages of its libraries, and PyTorch for the parity tests. Skips apt
# entirely when everything is already there, so repeated runs are fast.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libhwy-dev libxsimd-dev libbenchmark-dev libgtest-dev libgmock-dev
  nlohmann-json3-dev libcli11-dev
  clang libclang-rt-14-dev
  python3 python3-numpy python3-torch libopenblas0-pthread python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#packages[@]} packages present"
fi
