#!/usr/bin/env python3
"""The ids models/lm-bpe was trained on are Hugging Face's: every KJV verse (tools/python/kjv.py,
as train_bpe_llama.py reads them) encoded by tools/python/byte_level_bpe.py's encoder with the
folder's tokenizer.json must equal what Hugging Face's Rust tokenizers gives (tests/tokenizer/
reference.js over @anush008/tokenizers, with special tokens: BOS in front).

    bundled_training_ids_test.py --deps DIR

Exit 77 (skipped) when the npm packages (tools/setup.sh) or `bible` (bible-kjv) are missing."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "python"))
import byte_level_bpe as bpe  # noqa: E402
import kjv  # noqa: E402

SKIP = 77
FOLDER = os.path.join(ROOT, "models", "lm-bpe")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deps", required=True, help="where tools/setup.sh installed the packages")
    args = ap.parse_args()
    node_modules = os.path.join(os.path.abspath(args.deps), "tokenizer", "node_modules")
    if not os.path.isdir(os.path.join(node_modules, "@anush008", "tokenizers")):
        print(f"skipped: @anush008/tokenizers not installed in {node_modules} (run tools/setup.sh)")
        return SKIP
    if shutil.which("bible") is None:
        print("skipped: `bible` (bible-kjv) is not installed (run tools/setup.sh)")
        return SKIP
    verses = kjv.verses("bundled_training_ids_test.py")
    tokenizer = os.path.join(FOLDER, "tokenizer.json")
    with open(tokenizer, encoding="utf-8") as f:
        encoder = bpe.encoder_of(json.load(f))
    bos = encoder.vocab["<|begin_of_text|>"]
    ours = [[bos] + encoder.encode(v) for v in verses]
    with tempfile.TemporaryDirectory() as work:
        job, out = os.path.join(work, "job.json"), os.path.join(work, "out.json")
        with open(job, "w", encoding="utf-8") as f:
            json.dump({"node_modules": node_modules, "tokenizer": tokenizer,
                       "config": os.path.join(FOLDER, "tokenizer_config.json"),
                       "texts": verses, "id_lists": []}, f)
        p = subprocess.run(["node", os.path.join(HERE, "reference.js"), "run", job, out],
                           capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            print(f"FAIL reference.js: {p.stderr[-500:]}")
            return 1
        with open(out, encoding="utf-8") as f:
            theirs = json.load(f)["with_special"]
    differ = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    for i in differ[:3]:
        print(f"MISMATCH verse {i}: {verses[i]!r}\n  ours      {ours[i]}\n  reference {theirs[i]}")
    ok = not differ and len(theirs) == len(ours)
    print(f"{len(verses)} verses, {sum(map(len, ours))} ids: {len(differ)} differ"
          + ("" if len(theirs) == len(ours) else f"; reference gave {len(theirs)} lists"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
