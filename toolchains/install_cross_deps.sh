#!/usr/bin/env bash
# Installs the cross compilers, emulators and foreign-architecture libraries that the
# ARM builds need (toolchains/*.cmake). Debian 12 packages only.
#
# Idempotent and non-interactive: packages that are already installed are skipped, and
# `apt-get update` runs only when something is missing; a failed update is retried once and
# then only warned about (tools/apt_install.sh). A package that cannot be installed stops the
# script with a non-zero exit code and says which one.
#
# Usage: toolchains/install_cross_deps.sh [--no-armhf-libs]
#   --no-armhf-libs   skip the :armhf Highway/GTest/benchmark libraries (compilers stay)
set -euo pipefail

want_armhf_libs=1
for arg in "$@"; do
  case "$arg" in
    --no-armhf-libs) want_armhf_libs=0 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "install_cross_deps: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -E"; else
    echo "install_cross_deps: must run as root (or with sudo available)" >&2; exit 1
  fi
fi

# Host-architecture tools.
host_pkgs=(
  gcc-arm-none-eabi                 # Cortex-M compiler (C and C++ drivers)
  libnewlib-arm-none-eabi           # libc/libm for bare metal (nano.specs)
  libstdc++-arm-none-eabi-newlib    # C++ headers for bare metal (<cstdint>, <cmath>, ...)
  qemu-system-arm                   # mps2-an500 (Cortex-M7), mps3-an547 (Cortex-M55)
  qemu-user                         # qemu-aarch64 / qemu-arm for Linux user-mode tests
  g++-aarch64-linux-gnu
  g++-arm-linux-gnueabihf
  cmake
)
# Libraries the hosted build finds with find_package, for each foreign architecture.
foreign_libs=(libhwy-dev libgtest-dev libbenchmark-dev libxsimd-dev)
# The tokenizer's PCRE2 and ICU: wanted, not required. Their -dev packages pull in the foreign
# libc6-dev, which is Multi-Arch: same and must match the host's version exactly; a mirror in
# mid-sync can make that impossible (seen: linux-libc-dev 6.1.187 amd64 vs 6.1.176 arm64).
# Without them the cross build has a tokenizer that refuses by name and leaves its tests out
# (tools/tokenizer/CMakeLists.txt); everything else is built and tested as before.
tokenizer_libs=(libpcre2-dev libicu-dev)
install_tokenizer_libs() {  # $1 = dpkg architecture
  apt_install_missing "${tokenizer_libs[@]/%/:$1}" ||
    echo "install_cross_deps: warning: no PCRE2/ICU for $1; its cross build will have no tokenizer" >&2
}

source "$(dirname "$0")/../tools/apt_install.sh"

has_candidate() {  # $1 = package or package:arch; true if apt can install it
  local cand
  cand="$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2; exit}')"
  [ -n "$cand" ] && [ "$cand" != "(none)" ]
}

ensure_arch() {  # $1 = dpkg architecture
  if ! dpkg --print-foreign-architectures | grep -qx "$1"; then
    echo "install_cross_deps: dpkg --add-architecture $1"
    $SUDO dpkg --add-architecture "$1"
    apt_updated=0   # the new architecture's package lists must be fetched
  fi
}

# Register the foreign architectures first so one `apt-get update` fetches every list.
ensure_arch arm64
[ "$want_armhf_libs" -eq 1 ] && ensure_arch armhf

apt_install_missing "${host_pkgs[@]}"

# AArch64: required.
apt_install_missing "${foreign_libs[@]/%/:arm64}"
install_tokenizer_libs arm64

# 32-bit ARM hard-float: only where Debian ships Highway for armhf (bookworm does).
if [ "$want_armhf_libs" -eq 1 ]; then
  if apt_is_installed libhwy-dev:armhf || { apt_update_once; has_candidate libhwy-dev:armhf; }; then
    apt_install_missing "${foreign_libs[@]/%/:armhf}"
    install_tokenizer_libs armhf
  else
    echo "install_cross_deps: note: libhwy-dev:armhf is not available; skipping armhf libraries"
  fi
fi

# Smoke check: every tool the toolchain files name must now be on PATH.
for tool in arm-none-eabi-gcc arm-none-eabi-g++ arm-none-eabi-size arm-none-eabi-nm \
            qemu-system-arm qemu-aarch64 qemu-arm \
            aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ \
            arm-linux-gnueabihf-gcc arm-linux-gnueabihf-g++; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install_cross_deps: ERROR: '$tool' not found after install" >&2
    exit 1
  fi
done
echo "install_cross_deps: done"
