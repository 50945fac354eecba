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
