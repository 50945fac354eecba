#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds three consumers of
# it and runs them on the bundled models:
#   consumer/    a C++ project (find_package(attnrt), attnrt::attnrt, the C++ API)
#   consumer_c/  a C-only project (project(x C), attnrt::attnrt, the C API,
#                -std=c99 -Wall -Wextra -Werror -pedantic)
#   the same C file built by plain cc with `pkg-config --cflags --libs attnrt`
# All three must print the same lines (model output sum, generated text), and
# kernel-internal headers must not be installed. docs/library.md shows these
# files verbatim: the test checks that too. With TOKENIZER ON (the build has the
# tokenizer engine), a fourth:
#   consumer_tokenizer/  a C-only project linking attnrt::tokenizer_c: the ids of the
#                bundled BPE model's tokenizer must be the installed CLI's `attnrt tokenize`.
# Usage: install_consumer_test.sh BUILD_DIR SOURCE_DIR [TOKENIZER]
set -euo pipefail
build=$1
src=$2
tokenizer=${3:-OFF}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
test -f "$prefix/lib/cmake/attnrt/attnrtConfig.cmake"
test -f "$prefix/include/attnrt/attnrt.h"
test -f "$prefix/include/attnrt/thread_pool.h"
test -f "$prefix/include/attnrt/host/thread_pool.h"
for internal in sdpa_blocks.h sdpa_mask.h; do
  if find "$prefix/include" -name "$internal" | grep -q .; then
    echo "kernel-internal header $internal is installed" >&2
    exit 1
  fi
done

models=("$build/models/demo.attnrt" "$build/models/lm.attnrt")
for project in consumer consumer_c; do
  cmake -S "$src/tests/packaging/$project" -B "$work/$project" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix" >"$work/$project.log" 2>&1 || { cat "$work/$project.log"; exit 1; }
  cmake --build "$work/$project" >"$work/$project.log" 2>&1 || { cat "$work/$project.log"; exit 1; }
  "$work/$project/example" "${models[@]}" >"$work/$project.out"
  cat "$work/$project.out"
done

# Non-CMake build of the C example with pkg-config.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cc -std=c99 -Wall -Wextra -Werror -pedantic $(pkg-config --cflags attnrt) \
  "$src/tests/packaging/consumer_c/main.c" -o "$work/pc_example" $(pkg-config --libs attnrt)
"$work/pc_example" "${models[@]}" >"$work/pc.out"
pkg-config --libs attnrt-threads | grep -q -- -lattnrt_threads

# The tokenizer's C API from its own target, against the CLI's ids (which tests/tokenizer
# checks against Hugging Face's tokenizers), and decoded back to the text.
if [ "$tokenizer" = ON ]; then
  test -f "$prefix/include/attnrt/tokenizer.h"
  project=consumer_tokenizer
  cmake -S "$src/tests/packaging/$project" -B "$work/$project" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix" >"$work/$project.log" 2>&1 || { cat "$work/$project.log"; exit 1; }
  cmake --build "$work/$project" >"$work/$project.log" 2>&1 || { cat "$work/$project.log"; exit 1; }
  bpe=$build/models/lm-bpe.attnrt
  text="In the beginning God created the heaven"
  "$work/$project/example" "$bpe" "$text" >"$work/$project.out"
  cat "$work/$project.out"
  want=$("$prefix/bin/attnrt" tokenize "$bpe" --text "$text")
  [ -n "$want" ] || { echo "attnrt tokenize printed no ids" >&2; exit 1; }
  grep -qx "ids: $want" "$work/$project.out" || { echo "tokenizer_c ids differ from: $want" >&2; exit 1; }
  grep -qx "text: $text" "$work/$project.out" || { echo "tokenizer_c did not decode: $text" >&2; exit 1; }
  # The same program through pkg-config (attnrt-tokenizer.pc).
  cc -std=c99 -Wall -Wextra -Werror -pedantic $(pkg-config --cflags attnrt-tokenizer) \
    "$src/tests/packaging/$project/main.c" -o "$work/pc_tokenizer" $(pkg-config --libs attnrt-tokenizer)
  "$work/pc_tokenizer" "$bpe" "$text" >"$work/pc_tokenizer.out"
  cmp "$work/$project.out" "$work/pc_tokenizer.out"
fi

# Same answers through all three, and real ones.
cmp "$work/consumer.out" "$work/consumer_c.out"
cmp "$work/consumer.out" "$work/pc.out"
grep -q '^model: arena [1-9][0-9]* bytes, output sum -\?[0-9]' "$work/consumer.out"
grep -q '^lm: In the beginning.\{16\}$' "$work/consumer.out"

# docs/library.md quotes the two programs verbatim (the block after a
# "<!-- file: PATH -->" line is PATH's contents).
for file in tests/packaging/consumer_c/main.c tests/packaging/consumer/main.cc; do
  awk -v marker="<!-- file: $file -->" '
    $0 == marker { found = 1; next }
    found == 1 && /^```/ { found = 2; next }
    found == 2 && /^```/ { exit }
    found == 2 { print }' "$src/docs/library.md" >"$work/quoted"
  if ! cmp -s "$work/quoted" "$src/$file"; then
    echo "docs/library.md does not quote $file verbatim" >&2
    diff "$work/quoted" "$src/$file" | head -20 >&2
    exit 1
  fi
done
echo "install_and_find_package: C++, C and pkg-config consumers agree (tokenizer_c: $tokenizer)"
