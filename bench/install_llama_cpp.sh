#!/bin/bash
# Installs llama.cpp for bench/run_load_report.py: node-llama-cpp and its prebuilt CPU binary
# for this machine from the npm registry, into build/test-deps/llamacpp/node_modules, where tools/setup.sh puts the tests' copy on
# x86-64 (not a dependency of
# the build or the tests; the report leaves llama.cpp out, and says so, without it). Needs node
# and npm (Debian: apt-get install nodejs npm). Nothing is compiled or downloaded at run time:
# the benchmark loads the prebuilt binary with getLlama({gpu: false, build: "never"}).
set -euo pipefail
VERSION=3.22.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEST=${1:-$ROOT/build/test-deps/llamacpp}
case "$(uname -m)" in
  x86_64) BINARY=@node-llama-cpp/linux-x64 ;;
  aarch64) BINARY=@node-llama-cpp/linux-arm64 ;;
  armv7l) BINARY=@node-llama-cpp/linux-armv7l ;;
  *) echo "install_llama_cpp: no prebuilt node-llama-cpp for $(uname -m)" >&2; exit 1 ;;
esac
mkdir -p "$DEST"
# --omit=optional: not the CUDA and Vulkan builds (hundreds of MB); --ignore-scripts: its
# postinstall would try to fetch and build llama.cpp's source where the binary fits.
npm install --prefix "$DEST" --no-audit --no-fund --omit=optional --ignore-scripts \
  "node-llama-cpp@$VERSION" "$BINARY@$VERSION"
node "$ROOT/bench/llama_cpp_bench.mjs" --modules "$DEST/node_modules" --probe
