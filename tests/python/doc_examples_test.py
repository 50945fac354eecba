#!/usr/bin/env python3
"""Runs the examples of README.md and docs/*.md verbatim, and checks their links, so neither rots.

An example is the ```sh fence after a `<!-- example: NAME -->` line. Each runs under
`bash -e -o pipefail` in its own empty directory holding only what the docs assume of a checkout
after the build: `tools/` (linked), `build/release/bin/attnrt` (the binary under test) and
`build/release/models/` (the models the build converts). An example passes when it exits 0,
its stdout holds every line of a ```text fence that directly follows it (the output the docs
show), and the checks below for its name hold. Every name in EXPECTED must be found: an example
that is deleted or loses its marker fails the test.

Links: every relative link in those files must name an existing file, and a `#anchor` a heading
of the linked Markdown file (GitHub's heading slugs).

Usage: doc_examples_test.py --attnrt PATH --models DIR. Exits 77 (CTest skip) without torch."""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

from script_setup import ROOT, skip_without_modules

with skip_without_modules():
    import numpy  # noqa: F401
    import torch  # noqa: F401

from failure_report import report  # noqa: E402
EXAMPLE = re.compile(r"^<!-- example: (\S+) -->\n```sh\n(.*?)^```\n(?:\n?```text\n(.*?)^```\n)?",
                     re.M | re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
TOLERANCE = 1e-4  # the conversion example's outputs are O(1) after its final LayerNorm


def check_conversion(out):
    problems = []
    if not re.search(r"^architecture: encoder \(torch\.nn\.TransformerEncoder\), 3 layer\(s\)",
                     out, re.M):
        problems.append("inspect did not print 'architecture: encoder ..., 3 layer(s)'")
    m = re.search(r"max \|attnrt - torch\| = (\S+)", out)
    if m is None:
        problems.append("no 'max |attnrt - torch|' line")
    elif not float(m.group(1)) <= TOLERANCE:
        problems.append(f"max |attnrt - torch| = {m.group(1)} > {TOLERANCE}")
    return problems


# Every example the docs must keep, with the checks beyond "exits 0, prints its ```text".
EXPECTED = {
    "conversion": check_conversion,
    "tour-convert": lambda out: [],
    "tour-generate": lambda out: [],
    "tour-lm-bpe": lambda out: [],
    "tour-embed": lambda out: [],
    "generate": lambda out: [],
}
# Examples that tokenize text with the engine: a cross build without it (--no-tokenizer,
# tools/tokenizer/CMakeLists.txt) checks that they are still there but does not run them.
NEEDS_TOKENIZER = {"tour-lm-bpe"}


def doc_files():
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))


def examples(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return [(m.group(1), m.group(2), m.group(3)) for m in EXAMPLE.finditer(text)]


def run_example(name, block, shown, attnrt, models):
    with tempfile.TemporaryDirectory(prefix=f"attnrt_doc_{name}_") as work:
        os.symlink(os.path.join(ROOT, "tools"), os.path.join(work, "tools"))
        os.makedirs(os.path.join(work, "build", "release", "bin"))
        os.symlink(os.path.abspath(attnrt), os.path.join(work, "build", "release", "bin", "attnrt"))
        os.symlink(os.path.abspath(models), os.path.join(work, "build", "release", "models"))
        p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block], cwd=work,
                           capture_output=True, text=True)
    print(f"--- {name}\n{p.stdout}", end="")
    print(p.stderr, end="", file=sys.stderr)
    problems = [] if p.returncode == 0 else [f"exited {p.returncode}"]
    printed = [line.rstrip() for line in p.stdout.splitlines()]
    for line in (shown or "").splitlines():
        if line.rstrip() not in printed:
            problems.append(f"printed no line {line!r} (the docs show it)")
    return problems + EXPECTED.get(name, lambda out: [])(p.stdout)


def slug(heading):
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        text = FENCE.sub("", f.read())
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.*)$", text, re.M)}


def broken_links(path, text):
    problems = []
    for target in LINK.findall(FENCE.sub("", text)):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not checked offline
        file, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        if not os.path.exists(resolved):
            problems.append(f"{os.path.relpath(path, ROOT)}: link {target} names no file")
        elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
            problems.append(f"{os.path.relpath(path, ROOT)}: link {target} names no heading")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnrt", required=True)
    ap.add_argument("--models", required=True, help="the build's converted models (build/release/models)")
    ap.add_argument("--no-tokenizer", action="store_true",
                    help="attnrt was built without its tokenizer: leave NEEDS_TOKENIZER out")
    args = ap.parse_args()
    failures, found = [], []
    for path in doc_files():
        with open(path, encoding="utf-8") as f:
            failures += broken_links(path, f.read())
        for name, block, shown in examples(path):
            found.append(name)
            if args.no_tokenizer and name in NEEDS_TOKENIZER:
                print(f"not run: {name} (this attnrt has no tokenizer)")
                continue
            failures += [f"{name}: {p}" for p in run_example(name, block, shown, args.attnrt,
                                                             args.models)]
    failures += [f"example {n!r} is gone from README.md and docs/" for n in EXPECTED if n not in found]
    if not broken_links(os.path.join(ROOT, "README.md"), "[x](docs/no-such-file.md)"):
        failures.append("the link check passed a link to a missing file")
    return report(failures, f"{len(found)} examples run, {len(failures)} failure(s)")


if __name__ == "__main__":
    sys.exit(main())
