#!/usr/bin/env python3
"""Runs the README's conversion example verbatim, so it cannot rot.

The block is the ```sh fence after the `<!-- readme-example: conversion -->` marker. It runs
under `bash -e -o pipefail` in an empty directory that holds only what the README assumes of
a checkout: `tools/` (linked) and `build/release/bin/attnrt` (linked to the binary under test).
Passes when the block exits 0, `inspect` names the architecture and layer count, and the printed
max |attnrt - torch| is within 1e-4 (the model's outputs are O(1) after its final LayerNorm).

Usage: readme_example_test.py --attnrt PATH. Exits 77 (CTest skip) without torch."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy  # noqa: F401
    import torch  # noqa: F401
except ImportError:
    sys.exit(77)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARKER = "<!-- readme-example: conversion -->"
TOLERANCE = 1e-4


def readme_block():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    at = text.find(MARKER)
    if at < 0:
        raise SystemExit(f"README.md has no {MARKER!r} marker")
    match = re.compile(r"```sh\n(.*?)```", re.S).search(text, at)
    if match is None:
        raise SystemExit("no ```sh block after the marker")
    return match.group(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnrt", required=True)
    args = ap.parse_args()
    failures = []
    with tempfile.TemporaryDirectory(prefix="attnrt_readme_") as work:
        os.symlink(os.path.join(ROOT, "tools"), os.path.join(work, "tools"))
        os.makedirs(os.path.join(work, "build", "release", "bin"))
        os.symlink(os.path.abspath(args.attnrt), os.path.join(work, "build", "release", "bin", "attnrt"))
        p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", readme_block()], cwd=work,
                           capture_output=True, text=True)
        print(p.stdout, end="")
        print(p.stderr, end="", file=sys.stderr)
        if p.returncode != 0:
            failures.append(f"the block exited {p.returncode}")
        if not re.search(r"^architecture: encoder \(torch\.nn\.TransformerEncoder\), 3 layer\(s\)",
                         p.stdout, re.M):
            failures.append("inspect did not print 'architecture: encoder ..., 3 layer(s)'")
        m = re.search(r"max \|attnrt - torch\| = (\S+)", p.stdout)
        if m is None:
            failures.append("no 'max |attnrt - torch|' line")
        elif not float(m.group(1)) <= TOLERANCE:
            failures.append(f"max |attnrt - torch| = {m.group(1)} > {TOLERANCE}")
    for f in failures:
        print("FAIL " + f)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
