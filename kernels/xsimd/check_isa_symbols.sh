#!/bin/sh
# Checks that an ISA-flagged object of the xsimd family defines no weak (inline or
# template) symbol other than instantiations for its own xsimd architecture. Such
# a symbol could also be emitted by a file built for another ISA, and the linker
# keeps one copy for the whole program, so AVX-512 code could run on an AVX2 CPU.
# Usage: check_isa_symbols.sh NM OWN_ARCH OBJECT...   (OWN_ARCH: a fixed string)
nm_tool=$1
own_arch=$2
shift 2
failed=0
for obj in "$@"; do
  # Weak (W, V) and unique (u) definitions, demangled, without address and type.
  symbols=$("$nm_tool" -C "$obj" | awk '$2 ~ /^[WVu]$/ { $1 = ""; $2 = ""; sub(/^  /, ""); print }') || exit 1
  foreign=$(printf '%s\n' "$symbols" | grep -v -F "$own_arch" | grep -v -x 'attnrt::xsimd_tiles::kLaneIndex' | grep -v '^$')
  count=$(printf '%s\n' "$symbols" | grep -c -F "$own_arch")
  if [ -n "$foreign" ]; then
    echo "FAIL $obj defines weak symbols not specific to $own_arch:"
    printf '%s\n' "$foreign" | sed 's/^/  /'
    failed=1
  else
    echo "ok   $obj: $count weak symbols, all for $own_arch"
  fi
done
[ "$failed" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit "$failed"
