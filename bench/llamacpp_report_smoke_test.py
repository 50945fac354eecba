#!/usr/bin/python3
"""CTest smoke test of bench/run_llamacpp_report.py (seconds; never asserts on speed).

Runs the report end to end on a tiny llama shape (rows of 256, so every type fits) with F32,
Q4_0 and Q4_K, one thread, one round and tiny budgets, and checks that the JSON and markdown are
written, that every shape x type x thread row is there, that a row is skipped only for a type
`attnrt convert --help` does not list (and says so), and that every figure of a measured row is
a positive number. Then checks that the script refuses lengths beyond the shape's max_seq_len.
Exits 77 (CTest skip) without node or node-llama-cpp (bench/install_llama_cpp.sh,
tools/setup.sh), as the other llama.cpp tests do.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SKIP = 77
TYPES = ["F32", "Q4_0", "Q4_K"]
ATTNRT_NAME = {"F32": "f32", "Q4_0": "q4_0", "Q4_K": "q4_k"}
TINY = {"architecture": "llama", "dim": 256, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2,
        "vocab_size": 512, "hidden_dim": 512, "norm_eps": 1e-5, "max_seq_len": 64,
        "rope_theta": 10000.0, "rope_style": "interleaved"}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def positive(value):
    return isinstance(value, (int, float)) and value > 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--attnrt", required=True)
    ap.add_argument("--llama-modules", default=os.path.join(ROOT, "build", "test-deps",
                                                            "llamacpp", "node_modules"))
    args = ap.parse_args()
    if shutil.which("node") is None or not os.path.isdir(
            os.path.join(args.llama_modules, "node-llama-cpp")):
        print(f"SKIP: no node or no node-llama-cpp in {args.llama_modules}", file=sys.stderr)
        return SKIP
    script = os.path.join(HERE, "run_llamacpp_report.py")
    with tempfile.TemporaryDirectory(prefix="attnrt_llamacpp_smoke_") as work:
        config = os.path.join(work, "tiny.json")
        with open(config, "w") as f:
            json.dump(TINY, f)
        out_json, out_md = os.path.join(work, "r.json"), os.path.join(work, "r.md")
        base = [sys.executable, script, "--attnrt", args.attnrt, "--llama-modules",
                args.llama_modules, "--shapes", config, "--threads", "1", "--rounds", "1",
                "--seconds", "0.05", "--prompt-len", "8", "--gen", "8", "--prefill", "8,16",
                "--json-out", out_json, "--md-out", out_md]
        proc = subprocess.run(base + ["--types", ",".join(TYPES)], capture_output=True,
                              text=True, timeout=600)
        check(proc.returncode == 0, f"report exited {proc.returncode}: {proc.stderr[-3000:]}")
        check("[1/" in proc.stderr, "a progress line per measurement on stderr")
        if proc.returncode == 0:
            report = json.load(open(out_json))
            md = open(out_md).read()
            for key in ("cpu", "isa_flags", "llama", "rounds", "rows", "attnrt_types"):
                check(key in report, f"JSON key {key}")
            check("CPU:" in md and "llama.cpp:" in md and "Load (uptime)" in md,
                  "markdown names the CPU, llama.cpp and the load")
            rows = {(r["type"], r["threads"]): r for r in report["rows"]}
            check(len(report["rows"]) == len(TYPES), f"{len(TYPES)} rows, got {len(rows)}")
            for t in TYPES:
                r = rows.get((t, 1))
                check(r is not None, f"row {t}")
                if r is None:
                    continue
                check(any(line.startswith(f"| tiny | {t} | 1 |") for line in md.splitlines()),
                      f"markdown row {t}")
                known = ATTNRT_NAME[t] in report["attnrt_types"]
                if "skipped" in r:
                    check(not known and "does not know" in r["skipped"],
                          f"{t} skipped only as a type attnrt does not know: {r['skipped']}")
                    continue
                check(known, f"{t} measured though attnrt does not list it")
                figures = [r["llama_decode_ms"], r["attnrt_decode_ms"], r["decode_ratio"],
                           r["read_ms"], r["read_ratio"]]
                for n in ("8", "16"):
                    figures += [r["llama_prefill_ms"].get(n), r["attnrt_prefill_ms"].get(n),
                                r["prefill_ratio"].get(n)]
                check(all(positive(x) for x in figures), f"{t}: positive figures {figures}")
                check(r["decode_met"] in (True, False), f"{t}: decode target marked")
        # Lengths beyond the shape's 64 positions: refused before any work.
        proc = subprocess.run(base[:-4] + ["--prefill", "128", "--types", "F32", "--json-out",
                                           out_json + "2", "--md-out", out_md + "2"],
                              capture_output=True, text=True, timeout=120)
        check(proc.returncode != 0 and "max_seq_len" in proc.stderr,
              f"--prefill 128 on a 64-position shape refused ({proc.returncode}: "
              f"{proc.stderr[-500:]})")
    print(f"llamacpp_report_smoke: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
