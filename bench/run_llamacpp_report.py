#!/usr/bin/python3
"""attnrt beside llama.cpp per weight type: decode, prefill and a plain read, on the same weights.

For each shape (a llama config: bench/configs/stories15m.json, smollm2_135m.json, and
kquant_512.json, whose rows are multiples of 256 for the K-quants) and weight type, one set of
random weights (seeded, tied embeddings) is written as a GGUF file with every matrix in that ggml
type (bench/gguf_writer.py --type) and converted with `attnrt convert` of that GGUF: attnrt keeps
F32/F16/Q4_0 as they are and Q8_0 as q8 (the same int8 values and f16 scales), so both engines
run the same weights. A type that `attnrt convert --help` does not list (q4_K, q6_K until
attnrt runs them) is skipped, and the table says so. Then, in --rounds interleaved rounds (every
shape, type and thread count in turn, the engine that goes first alternating), it times:
  attnrt     `attnrt bench lm FILE --prompt-len P --gen G`: decode ms/token (median step) at
             context P+1..P+G (default 65..255), prefill ms of the P-token prompt, and read_ms,
             one vectorized read of every weight and KV byte a step needs; one more
             `bench lm --prompt-len N --gen 1` per other --prefill length N (its prefill only)
  llama.cpp  bench/llama_cpp_bench.mjs --prompt-len P: node-llama-cpp's prebuilt CPU build,
             loaded offline; prefill of each --prefill length (median of repeated runs, to the
             first sampled token), then G greedy steps after the P-token prompt, each timed
             alone (median)
Both run with the KV cache in --kv-dtype (llama.cpp's default f16) and --threads workers;
llama.cpp without flash attention unless --llama-flash-attention.

Older CPUs on this one: --isa avx2 runs attnrt's AVX2 code (`bench lm --isa`), and
--llama-cpu-variant haswell makes llama.cpp load its AVX2 CPU backend (a copy of --llama-modules,
hard links where it can, under the work folder, holding that libggml-cpu-*.so alone: ggml loads
the best-scoring one it finds). Together: both engines as on an AVX2-only machine.

The markdown table (and --json-out) gives per shape, type and thread count the medians over
rounds and the ratios attnrt / llama.cpp (the median of each round's ratio), against the targets
of issue 32:
  decode        attnrt <= 0.7x llama.cpp's time
  prefill       attnrt <= 0.6x llama.cpp's time, at every --prefill length
  read          q8_0 and q4_0 decode <= 1.3x read_ms
  q4_0 vs q8    at SmolLM2-135M's shape, attnrt's q4_0 decode <= 0.6x its q8 decode
with the CPU, its ISA flags, llama.cpp's version and build, attnrt's kernels and the load
average before and after every round: on a shared machine every figure is wall time that
includes other processes' turns.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "python"))
from command_json import run_json  # noqa: E402
from machine_info import cpu_summary, isa_flags, uptime  # noqa: E402
from output_files import clashing_paths, write_text_atomically  # noqa: E402

CONFIGS = os.path.join(HERE, "configs")
# Named shapes and the types each runs by default: the K-quant shape is there for the K-quants.
SHAPES = {"stories15m": ("F32", "F16", "Q8_0", "Q4_0"),
          "smollm2_135m": ("F32", "F16", "Q8_0", "Q4_0"),
          "kquant_512": ("Q4_K", "Q6_K")}
TYPES = ("F32", "F16", "Q8_0", "Q4_0", "Q4_K", "Q6_K")
BLOCK = {"F32": 1, "F16": 1, "Q8_0": 32, "Q4_0": 32, "Q4_K": 256, "Q6_K": 256}
# The ggml type's name in attnrt's --dtype list (compared without case: q4_K or q4_k).
ATTNRT_NAME = {"F32": "f32", "F16": "f16", "Q8_0": "q8", "Q4_0": "q4_0", "Q4_K": "q4_k",
               "Q6_K": "q6_k"}
DECODE_TARGET, PREFILL_TARGET, READ_TARGET, Q4_VS_Q8_TARGET = 0.7, 0.6, 1.3, 0.6
READ_TYPES = ("Q8_0", "Q4_0")
Q4_VS_Q8_SHAPE = "smollm2_135m"


def progress(text):
    print(text, file=sys.stderr, flush=True)


def attnrt_types(attnrt):
    """The --dtype names `attnrt convert --help` lists (lower case)."""
    text = subprocess.run([attnrt, "convert", "--help"], capture_output=True, text=True,
                          check=True).stdout
    found = re.search(r"one of ((?:[A-Za-z0-9_]+(?:,\s*)?)+)", " ".join(text.split()))
    if not found:
        raise SystemExit("run_llamacpp_report: no type list (\"one of ...\") in attnrt convert "
                         "--help")
    return [t.strip().lower() for t in found.group(1).split(",") if t.strip()]


def llama_probe(args):
    """node-llama-cpp's version line, or None after saying why there is none."""
    if shutil.which("node") is None:
        progress("run_llamacpp_report: no node on PATH")
        return None
    proc = subprocess.run(["node", os.path.join(HERE, "llama_cpp_bench.mjs"), "--probe",
                           "--modules", args.llama_modules], capture_output=True, text=True)
    if proc.returncode != 0:
        progress(f"run_llamacpp_report: node-llama-cpp is not installed under {args.llama_modules}"
                 " (bench/install_llama_cpp.sh installs it from npm)")
        return None
    return proc.stdout.strip()


def shape_list(args):
    """[(name, config path, types to run)] from --shapes (names of SHAPES or config paths) and
    --types: a named shape runs its own types that --types names, a config path every type of
    --types whose block divides its rows."""
    out = []
    for item in args.shapes:
        if item in SHAPES:
            path, wanted = os.path.join(CONFIGS, item + ".json"), SHAPES[item]
        elif os.path.isfile(item):
            path, wanted = item, TYPES
        else:
            raise SystemExit(f"run_llamacpp_report: --shapes {item} is neither a config file nor "
                             f"one of {', '.join(SHAPES)}")
        with open(path) as f:
            c = json.load(f)
        rows = (c["dim"], c["hidden_dim"])
        types = [t for t in args.types if t in wanted and all(r % BLOCK[t] == 0 for r in rows)]
        # llama_cpp_bench.mjs samples one token past the last timed step: G + 1 positions.
        longest = max(args.prompt_len + args.gen + 1, *args.prefill)
        if longest > c["max_seq_len"]:
            raise SystemExit(f"run_llamacpp_report: {path}: --prompt-len + --gen / --prefill "
                             f"need {longest} positions, its max_seq_len is {c['max_seq_len']}")
        name = item if item in SHAPES else os.path.splitext(os.path.basename(item))[0]
        out.append((name, path, types))
    return out


def prepare(args, shapes, known, work):
    """{(shape, type): attnrt file} for the types attnrt knows, their GGUF beside it;
    {(shape, type): why skipped} for the others."""
    files, skipped = {}, {}
    writer = os.path.join(HERE, "gguf_writer.py")
    for name, config, types in shapes:
        for t in types:
            if ATTNRT_NAME[t] not in known:
                skipped[(name, t)] = (f"skipped: attnrt convert does not know {ATTNRT_NAME[t]} "
                                      f"(its types: {', '.join(known)})")
                progress(f"{name} {t}: {skipped[(name, t)]}")
                continue
            gguf = os.path.join(work, f"{name}_{t}.gguf")
            model = os.path.join(work, f"{name}_{t}.attnrt")
            progress(f"{name} {t}: writing {os.path.basename(gguf)} and converting it")
            subprocess.run([sys.executable, writer, "--config", config, "--random", "--seed",
                            str(args.seed), "--type", t, "-o", gguf], check=True)
            proc = subprocess.run([args.attnrt, "convert", gguf, "-o", model],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise SystemExit(f"run_llamacpp_report: attnrt convert {gguf} failed: "
                                 f"{proc.stderr[-2000:]}")
            files[(name, t)] = {"gguf": gguf, "attnrt": model}
    return files, skipped


def variant_modules(modules, variant, work):
    """A copy of `modules` (hard links where the file system allows) under `work` whose ggml CPU
    backends are libggml-cpu-VARIANT.so alone."""
    dest = os.path.join(work, f"llama_cpu_{variant}", "node_modules")

    def link_or_copy(src, dst):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    if not os.path.isdir(dest):
        progress(f"llama.cpp: a copy of {modules} with the {variant} CPU backend alone")
        shutil.copytree(modules, dest, symlinks=True, copy_function=link_or_copy)
    found = []
    for root, _, names in os.walk(dest):
        for n in names:
            m = re.fullmatch(r"libggml-cpu-(.+)\.so", n)
            if m and m.group(1) == variant:
                found.append(n)
            elif m:
                os.remove(os.path.join(root, n))  # a link: the original stays
    if not found:
        raise SystemExit(f"run_llamacpp_report: --llama-cpu-variant {variant}: no "
                         f"libggml-cpu-{variant}.so under {modules}")
    return dest


def time_attnrt(args, model, threads):
    """{decode, prefill: {N: ms}, read_ratio, ...} from `attnrt bench lm` runs."""
    base = [args.attnrt, "bench", "lm", model, "--json", "--seconds", str(args.seconds),
            "--threads", str(threads), "--kv-dtype", args.kv_dtype, "--isa", args.isa]
    j, _ = run_json(base + ["--prompt-len", str(args.prompt_len), "--gen", str(args.gen)],
                    args.timeout)
    out = {"decode": j["decode_ms_per_token"], "decode_cpu": j["decode_cpu_ms_per_token"],
           "read_ms": j["read_ms"], "read_ratio": j["decode_read_ratio"],
           "context": [j["decode_context"] - args.gen + 1, j["decode_context"]],
           "threads": j["threads"], "kernel": f"{j['linear_kernel']} ({j['linear_isa']})",
           "weight_dtype": j["weight_dtype"], "prefill": {}}
    for n in args.prefill:
        if n == args.prompt_len:
            out["prefill"][n] = j["prefill_ms"]
        else:  # one decode step only: this run is for the prefill
            out["prefill"][n] = run_json(base + ["--prompt-len", str(n), "--gen", "1"],
                                         args.timeout)[0]["prefill_ms"]
    return out


def time_llama(args, gguf, threads):
    cmd = ["node", os.path.join(HERE, "llama_cpp_bench.mjs"), "--modules", args.llama_modules,
           "--model", gguf, "--threads", str(threads), "--prompt-len", str(args.prompt_len),
           "--tokens", str(args.gen + 1), "--seconds", str(args.llama_decode_cap),
           "--prefill", ",".join(map(str, args.prefill)), "--prefill-seconds", str(args.seconds),
           "--kv-type", args.kv_dtype.upper()]
    if args.llama_flash_attention:
        cmd.append("--flash-attention")
    j, _ = run_json(cmd, args.timeout)
    return {"decode": j["decode_ms_per_token"], "context": j["decode_context"],
            "prefill": {int(n): ms for n, ms in j["prefill"].items()}, "threads": j["threads"],
            "release": j["llama_cpp_release"], "system_info": j["system_info"],
            "version": j["version"]}


def describe(engine, m):
    pre = ", ".join(f"{n}: {ms:.2f} ms" for n, ms in m["prefill"].items())
    read = f", x{m['read_ratio']:.2f} of read" if "read_ratio" in m else ""
    return f"{engine}: decode {m['decode']:.3f} ms/token, prefill {pre}{read}"


def measure(args, shapes, files):
    """raw[(shape, type, threads)] = {"attnrt": [per round], "llama.cpp": [per round]}."""
    raw, rounds, failures = {}, [], []
    cases = [(name, t, th) for name, _, types in shapes for t in types if (name, t) in files
             for th in args.threads]
    total, done = len(cases) * 2 * args.rounds, 0
    for r in range(args.rounds):
        info = {"round": r + 1, "uptime_before": uptime()}
        progress(f"round {r + 1}/{args.rounds}: {info['uptime_before']}")
        for i, (name, t, th) in enumerate(cases):
            engines = [("attnrt", lambda: time_attnrt(args, files[(name, t)]["attnrt"], th)),
                       ("llama.cpp", lambda: time_llama(args, files[(name, t)]["gguf"], th))]
            if (r + i) % 2:
                engines.reverse()  # neither engine always runs first (warm caches, turbo)
            for engine, timed in engines:
                done += 1
                where = f"[{done}/{total}] round {r + 1} {name} {t} {th} thread(s)"
                try:
                    m = timed()
                except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
                    failures.append(f"{where} {engine}: {e}")
                    progress(f"{where} {engine}: FAILED {e}")
                    continue
                raw.setdefault((name, t, th), {"attnrt": [], "llama.cpp": []})[engine].append(
                    dict(m, round=r + 1))
                progress(f"{where} {describe(engine, m)}")
        info["uptime_after"] = uptime()
        rounds.append(info)
    return raw, rounds, failures


def paired(a, b, key, n=None):
    """Each round's attnrt / llama.cpp ratio of `key` (a prefill length n within "prefill")."""
    by_round = {m["round"]: m for m in b}
    out = []
    for m in a:
        other = by_round.get(m["round"])
        if other is None:
            continue
        x, y = (m[key], other[key]) if n is None else (m[key][n], other[key][n])
        if y > 0:
            out.append(x / y)
    return out


def med(values):
    return statistics.median(values) if values else None


def summarize(args, shapes, raw, skipped):
    rows = []
    for name, _, types in shapes:
        for t in types:
            for th in args.threads:
                row = {"shape": name, "type": t, "threads": th}
                if (name, t) in skipped:
                    rows.append(dict(row, skipped=skipped[(name, t)]))
                    continue
                ours = raw.get((name, t, th), {}).get("attnrt", [])
                theirs = raw.get((name, t, th), {}).get("llama.cpp", [])
                if not ours or not theirs:
                    rows.append(dict(row, skipped="failed: see the failures"))
                    continue
                row.update({
                    "rounds": min(len(ours), len(theirs)),
                    "llama_decode_ms": med([m["decode"] for m in theirs]),
                    "attnrt_decode_ms": med([m["decode"] for m in ours]),
                    "attnrt_decode_cpu_ms": med([m["decode_cpu"] for m in ours]),
                    "decode_ratio": med(paired(ours, theirs, "decode")),
                    "llama_prefill_ms": {n: med([m["prefill"][n] for m in theirs])
                                         for n in args.prefill},
                    "attnrt_prefill_ms": {n: med([m["prefill"][n] for m in ours])
                                          for n in args.prefill},
                    "prefill_ratio": {n: med(paired(ours, theirs, "prefill", n))
                                      for n in args.prefill},
                    "read_ms": med([m["read_ms"] for m in ours]),
                    "read_ratio": med([m["read_ratio"] for m in ours]),
                    "attnrt_kernel": ours[0]["kernel"],
                    "attnrt_context": ours[0]["context"], "llama_context": theirs[0]["context"],
                })
                row["decode_met"] = row["decode_ratio"] is not None and \
                    row["decode_ratio"] <= DECODE_TARGET
                ratios = list(row["prefill_ratio"].values())
                row["prefill_met"] = None not in ratios and max(ratios) <= PREFILL_TARGET
                if t in READ_TYPES:
                    row["read_met"] = row["read_ratio"] <= READ_TARGET
                rows.append(row)
    return rows


def q4_vs_q8(args, raw):
    """attnrt's q4_0 decode over its q8 decode at SmolLM2's shape, per thread count."""
    out = []
    for th in args.threads:
        q4 = raw.get((Q4_VS_Q8_SHAPE, "Q4_0", th), {}).get("attnrt", [])
        q8 = raw.get((Q4_VS_Q8_SHAPE, "Q8_0", th), {}).get("attnrt", [])
        if q4 and q8:
            ratio = med(paired(q4, q8, "decode"))
            out.append({"threads": th, "q4_0_ms": med([m["decode"] for m in q4]),
                        "q8_ms": med([m["decode"] for m in q8]), "ratio": ratio,
                        "met": None if ratio is None else ratio <= Q4_VS_Q8_TARGET})
    return out


def load_1min(uptime_text):
    """The 1-minute load average in `uptime`'s text (0 where there is none)."""
    try:
        return float(uptime_text.split("load average:")[1].split(",")[0])
    except (IndexError, ValueError):
        return 0.0


def yes(value):
    return "-" if value is None else ("met" if value else "NO")


def num(value, form, unit=""):
    """value in `form`, or "-" for a figure no round gave (an engine failed in every round)."""
    return "-" if value is None else format(value, form) + unit


def markdown(report, args):
    lines = [f"CPU: {report['cpu']}; ISA flags: {', '.join(report['isa_flags']) or 'none listed'}.",
             f"llama.cpp: node-llama-cpp {report['llama'].get('version', '?')}, "
             f"{report['llama'].get('release', '?')}; "
             f"{report['llama'].get('system_info', '?')}",
             f"llama.cpp CPU backend: {args.llama_cpu_variant or 'its own pick'}; attnrt --isa "
             f"{args.isa}.",
             f"attnrt: {report['attnrt']}; kernels: " + "; ".join(
                 f"{t} {k}" for t, k in report["attnrt_kernels"].items()) + ".",
             f"KV cache {args.kv_dtype} in both; llama.cpp flash attention "
             f"{'on' if args.llama_flash_attention else 'off'}. Decode: median step at context "
             f"{args.prompt_len + 1}..{args.prompt_len + args.gen}; prefill: median run of "
             f"{' and '.join(map(str, args.prefill))} tokens; read: attnrt's read_ms (every "
             "weight and KV byte a step reads, one vectorized pass). Ratios are attnrt / "
             "llama.cpp (below 1: attnrt is faster), the median of each round's ratio.",
             "Load (uptime) per round: " + "; ".join(
                 f"round {r['round']}: {r['uptime_before'].split('load average:')[-1].strip()} "
                 f"before, {r['uptime_after'].split('load average:')[-1].strip()} after"
                 for r in report["rounds"]) + "."]
    busiest = max((load_1min(r[k]) for r in report["rounds"]
                   for k in ("uptime_before", "uptime_after")), default=0.0)
    if busiest > 0.5 * (os.cpu_count() or 1):
        lines.append(f"**Loaded machine**: the 1-minute load average reached {busiest:.2f} on "
                     f"{os.cpu_count()} CPUs; these figures say how the script runs, not how "
                     "fast either engine is.")
    lines.append("")
    pre = args.prefill
    head = ["shape", "type", "threads", "llama.cpp decode ms", "attnrt decode ms", "ratio"]
    for n in pre:
        head += [f"llama.cpp prefill {n} ms", f"attnrt prefill {n} ms", "ratio"]
    head += ["attnrt decode / read", f"decode <= {DECODE_TARGET}x",
             f"prefill <= {PREFILL_TARGET}x", f"q8_0/q4_0 <= {READ_TARGET}x read"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in report["rows"]:
        cells = [r["shape"], r["type"], str(r["threads"])]
        if "skipped" in r:
            cells += [r["skipped"]] + ["-"] * (len(head) - 4)
        else:
            cells += [num(r["llama_decode_ms"], ".3f"), num(r["attnrt_decode_ms"], ".3f"),
                      num(r["decode_ratio"], ".2f", "x")]
            for n in pre:
                cells += [num(r["llama_prefill_ms"][n], ".2f"),
                          num(r["attnrt_prefill_ms"][n], ".2f"),
                          num(r["prefill_ratio"][n], ".2f", "x")]
            cells += [num(r["read_ratio"], ".2f", "x"), yes(r["decode_met"]),
                      yes(r["prefill_met"]), yes(r.get("read_met"))]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"attnrt q4_0 decode against its q8 decode at {Q4_VS_Q8_SHAPE}'s shape "
              f"(target <= {Q4_VS_Q8_TARGET}x):", ""]
    if report["q4_vs_q8"]:
        lines += ["| threads | q4_0 ms | q8 ms | ratio | met |", "|---|---|---|---|---|"]
        lines += [f"| {q['threads']} | {q['q4_0_ms']:.3f} | {q['q8_ms']:.3f} | "
                  f"{num(q['ratio'], '.2f', 'x')} | {yes(q['met'])} |" for q in report["q4_vs_q8"]]
    else:
        lines.append(f"not measured (needs {Q4_VS_Q8_SHAPE} with Q8_0 and Q4_0).")
    if report["failures"]:
        lines += ["", "Failed runs:"] + [f"- {f}" for f in report["failures"]]
    return "\n".join(lines)


def positive_list(text):
    values = [int(v) for v in text.split(",") if v.strip()]
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text}: comma-separated whole numbers >= 1")
    return values


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__.split(
        "\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attnrt", default=os.path.join(ROOT, "build", "release", "bin", "attnrt"))
    ap.add_argument("--shapes", nargs="+", default=list(SHAPES),
                    help=f"named shapes ({', '.join(SHAPES)}: bench/configs/NAME.json, each with "
                         "its own types) or llama config paths (every --types type that fits)")
    ap.add_argument("--types", type=lambda s: s.upper().split(","), default=list(TYPES),
                    help=f"comma-separated ggml types among {','.join(TYPES)} (default all)")
    ap.add_argument("--threads", type=positive_list, default=[1, 2],
                    help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    ap.add_argument("--seconds", type=float, default=1.0,
                    help="budget of each attnrt bench lm measurement and of each llama.cpp "
                         "prefill length (default 1)")
    ap.add_argument("--prompt-len", type=int, default=64,
                    help="prompt before the timed decode steps (default 64)")
    ap.add_argument("--gen", type=int, default=191,
                    help="timed decode steps (default 191: context 65..255, within stories15M's "
                         "256 positions for llama.cpp too)")
    ap.add_argument("--prefill", type=positive_list, default=[64, 256],
                    help="comma-separated prefill lengths (default 64,256)")
    ap.add_argument("--kv-dtype", choices=("f16", "f32"), default="f16",
                    help="KV cache of both engines (default f16, llama.cpp's default)")
    ap.add_argument("--llama-flash-attention", action="store_true")
    ap.add_argument("--llama-decode-cap", type=float, default=120.0,
                    help="cap in seconds on one llama.cpp run's decoding (it can slow down "
                         "badly under load)")
    ap.add_argument("--llama-modules", default=os.path.join(ROOT, "build", "test-deps",
                                                            "llamacpp", "node_modules"),
                    help="node_modules holding node-llama-cpp (bench/install_llama_cpp.sh)")
    ap.add_argument("--isa", default="best",
                    help="attnrt's Highway target (attnrt bench lm --isa; default best)")
    ap.add_argument("--llama-cpu-variant", metavar="NAME",
                    help="llama.cpp's CPU backend to load (haswell: AVX2, skylakex: AVX-512; "
                         "the libggml-cpu-NAME.so files of node-llama-cpp); default: its pick")
    ap.add_argument("--seed", type=int, default=1, help="of the random weights")
    ap.add_argument("--timeout", type=float, default=900.0, help="per command")
    ap.add_argument("--work-dir", help="where the GGUF and attnrt files go (default: a "
                                       "temporary folder, removed at the end)")
    for option, name in (("--json-out", "llamacpp_report.json"),
                         ("--md-out", "llamacpp_report.md")):
        ap.add_argument(option, default=os.path.join(HERE, "results", name))
    args = ap.parse_args()
    bad = [t for t in args.types if t not in TYPES]
    if bad:
        ap.error(f"--types {','.join(bad)}: not among {','.join(TYPES)}")
    if args.rounds < 1 or args.prompt_len < 1 or args.gen < 2:
        ap.error("--rounds and --prompt-len must be >= 1, --gen >= 2")
    clash = clashing_paths([args.json_out, args.md_out])
    if clash:
        sys.exit(f"run_llamacpp_report: {clash}")
    if not os.path.exists(args.attnrt):
        sys.exit(f"run_llamacpp_report: no attnrt at {args.attnrt} (build it or pass --attnrt)")
    shapes = shape_list(args)  # refuses lengths a shape cannot hold before any work
    version = llama_probe(args)
    if version is None:
        return 1
    known = attnrt_types(args.attnrt)

    def run(work):
        if args.llama_cpu_variant:
            args.llama_modules = variant_modules(args.llama_modules, args.llama_cpu_variant, work)
        files, skipped = prepare(args, shapes, known, work)
        return (files, skipped) + measure(args, shapes, files)

    if args.work_dir:
        os.makedirs(args.work_dir, exist_ok=True)
        files, skipped, raw, rounds, failures = run(args.work_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="attnrt_llamacpp_") as work:
            files, skipped, raw, rounds, failures = run(work)

    llama = {"version": version}
    kernels = {}
    for (name, t, th), by in sorted(raw.items()):
        for m in by["llama.cpp"][:1]:
            llama.update(release=m["release"], system_info=m["system_info"])
        for m in by["attnrt"][:1]:
            kernels.setdefault(t, m["kernel"])
    report = {"cpu": cpu_summary(), "isa_flags": isa_flags(), "llama": llama,
              "attnrt": args.attnrt, "attnrt_types": known, "attnrt_kernels": kernels,
              "rounds": rounds, "rows": summarize(args, shapes, raw, skipped),
              "q4_vs_q8": q4_vs_q8(args, raw), "failures": failures,
              "raw": {f"{k[0]}/{k[1]}/{k[2]}": v for k, v in raw.items()}, "args": vars(args)}
    text = markdown(report, args)
    print(text)
    for path, content in ((args.json_out, json.dumps(report, indent=1)), (args.md_out, text)):
        if path:
            write_text_atomically(path, content + "\n")
    if failures:
        progress(f"run_llamacpp_report: {len(failures)} run(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
